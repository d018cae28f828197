// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The benchmark's model as the importer writes it from its llama2.c checkpoint
// (scripts/cxmat_import.py model.bin --module llama --name story -o story.hpp), generating at run
// time: STEPS greedy tokens from BOS (at most 128, and fewer than the model's context), printed
// as one line of JSON, as cxmat_generation_step prints them. run.py --parts import checks them
// against the plain C program's (a float32 forward pass in the loop style of llama2.c's run.c).
//   cxmat_generation_imported [MODEL.bin (not read)] [STEPS]
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "story.hpp"

int main(int argc, char** argv) {
  constexpr std::size_t most = story_context.size > 128 ? 128 : story_context.size - 1;
  const std::size_t steps = argc > 2 ? static_cast<std::size_t>(std::atoi(argv[2])) : most;
  if (steps < 1 || steps > most) {
    std::fprintf(stderr, "STEPS must be 1 .. %zu\n", most);
    return 2;
  }
  // The prompt made at run time (argc is not a constant): with a constant one the compiler might
  // try the whole generation as a constant expression first.
  const cxmat::matrix<int, 1, 1> bos{{{argc > 0 ? 1 : 0}}};
  const auto tokens = cxmat::generate<most>(story, bos);
  std::printf("{\"tokens\": [");
  for (std::size_t i = 0; i < steps; ++i) std::printf("%s%d", i == 0 ? "" : ", ", tokens(0, i));
  std::printf("]}\n");
}
