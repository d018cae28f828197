// The adder on train.py's held-out prompts (held_out.txt, never trained on): the model's greedy
// continuation of each prompt at run time, against PyTorch's greedy continuation of it (float32,
// the weights as saved; float64 beside it), and against the arithmetic.
//   lm_adder_held_out held_out.txt [N]   checks the first N prompts (default: all)
// Fails (exit status 1) when a continuation differs from PyTorch's float32 one, except where
// PyTorch's float32 and float64 continuations differ themselves (a near tie of two logits): there
// either of them is accepted, and the program names the prompt.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "adder.hpp"

namespace {
// The sum a prompt "a+b=" asks for, written as the model should: digits, then the stop token.
std::string expected_continuation(const std::string& prompt) {
  const std::size_t plus = prompt.find('+');
  const long a = std::strtol(prompt.substr(0, plus).c_str(), nullptr, 10);
  const long b = std::strtol(prompt.substr(plus + 1).c_str(), nullptr, 10);
  return std::to_string(a + b) + lm_adder::characters[lm_adder::stop];
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s held_out.txt [N]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
    return 2;
  }
  std::size_t limit = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : ~std::size_t{0};
  std::size_t count = 0, same32 = 0, ties = 0, pytorch_right = 0, right = 0, refused = 0;
  std::string line;
  while (count < limit && std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string prompt, torch32, torch64;
    if (!(fields >> prompt >> torch32 >> torch64) || prompt.size() > lm_adder::longest_prompt) {
      std::fprintf(stderr, "%s: malformed line: %s\n", argv[0], line.c_str());
      return 2;
    }
    ++count;
    const lm_adder::text out = lm_adder::continuation_at_run_time(prompt);
    const std::string got(out.chars, out.length);
    const std::string sum = expected_continuation(prompt);
    same32 += got == torch32 ? 1U : 0U;
    right += got == sum ? 1U : 0U;
    pytorch_right += torch32 == sum ? 1U : 0U;
    if (torch32 != torch64) {
      ++ties;
      std::printf("%s PyTorch float32 %s, float64 %s; cxmat %s\n", prompt.c_str(), torch32.c_str(), torch64.c_str(),
                  got.c_str());
    }
    if (got != torch32 && !(torch32 != torch64 && got == torch64)) {
      ++refused;
      std::printf("%s cxmat %s, PyTorch %s  <- differs\n", prompt.c_str(), got.c_str(), torch32.c_str());
    }
  }
  std::printf(
      "held-out: %zu of %zu continuations equal PyTorch's float32 greedy ones (%zu where float32 and float64 "
      "differ); %zu exactly right (%.2f %%; PyTorch: %zu)\n",
      same32, count, ties, right, 100.0 * static_cast<double>(right) / static_cast<double>(count ? count : 1),
      pytorch_right);
  return count > 0 && refused == 0 ? 0 : 1;
}
