// A language model that the compiler runs: train.py's adder (adder.safetensors, a LLaMA of 2
// blocks, d_model 48, grouped-query attention with rotary positions), imported by
// scripts/cxmat_import.py in the build. The compiler writes the answers to a few sums
// (static_assert, greedy generation until the stop token); the expected answers are the
// arithmetic's, not the library's. At run time the program writes them again and checks the same.
#include <cstdio>

#include "adder.hpp"

using lm_adder::answer;

// The compiler generates each answer in one constant expression: a prompt of 4 to 8 tokens, then
// one token at a time over the cache of keys and values, up to and including the stop token.
// (Three here, each a few seconds of the compiler's time; the run time below writes six, and
// held_out.cpp every held-out prompt.)
static_assert(answer("12+34=") == "46");
static_assert(answer("7+5=") == "12");
static_assert(answer("999+999=") == "1998");

// Text in, text out (cxmat::complete): the prompt encoded by the adder's tokenizer, the new
// tokens decoded, the stop token '$' included.
static_assert(cxmat::complete<lm_adder::longest_answer, "271+828=">(lm_adder::adder, lm_adder::tokenizer, cxmat::greedy,
                                                                    cxmat::stop_token{lm_adder::stop}) == "1099$");

namespace {
struct sum {
  const char* prompt;
  int a, b;
};
}  // namespace

int main() {
  bool right = true;
  const sum sums[] = {{"12+34=", 12, 34}, {"7+5=", 7, 5},         {"12+345=", 12, 345},
                      {"999+1=", 999, 1}, {"505+497=", 505, 497}, {"999+999=", 999, 999}};
  for (const sum& s : sums) {  // the same, at run time
    const std::string_view prompt(s.prompt);
    const lm_adder::text out = lm_adder::answer_of(lm_adder::continuation_at_run_time(prompt));
    char expected[8];
    std::snprintf(expected, sizeof expected, "%d", s.a + s.b);
    const bool ok = out == std::string_view(expected);
    right = right && ok;
    std::printf("%s%s%s\n", s.prompt, out.chars, ok ? "" : "  <- wrong");
  }
  return right ? 0 : 1;
}
