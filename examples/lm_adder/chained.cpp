// A generation continued across constant expressions: each `constexpr` variable below is one
// constant expression with its own step budget (Clang's -fconstexpr-steps, GCC's
// -fconstexpr-ops-limit), and holds the whole state, the cache of keys and values included, for
// the next one. So an answer that costs more than one budget is still written by the compiler,
// a few tokens per expression. The build compiles this program under a budget that the same
// generation in one expression exceeds (CMakeLists.txt), which its twin, the CTest entry
// example.lm_adder_chained.one_expression_exceeds_it, shows: the one expression alone
// (LM_ADDER_CHAIN=0 LM_ADDER_ONE_EXPRESSION=1) stops at the limit. lm_adder.cpp writes the same
// answer in one expression at the default limits.
#include <cstdio>

#ifndef LM_ADDER_CHAIN
#define LM_ADDER_CHAIN 1
#endif
#ifndef LM_ADDER_ONE_EXPRESSION
#define LM_ADDER_ONE_EXPRESSION 0
#endif

#include "adder.hpp"

namespace {
using lm_adder::adder;

constexpr cxmat::stop_token stop{lm_adder::stop};
constexpr auto prompt = lm_adder::tokens_of<8>("999+999=");

// The generated tokens of a generation, as text.
template <class G>
constexpr lm_adder::text generated_text(const G& g) {
  cxmat::matrix<int, 1, lm_adder::longest_answer> tokens{};
  for (std::size_t i = 0; i < lm_adder::longest_answer; ++i)
    tokens(0, i) = i < g.generated() ? g.tokens(0, g.prompt_length + i) : cxmat::no_token;
  return lm_adder::continuation_text(tokens);
}

#if LM_ADDER_CHAIN
// The prompt (prefill) and the first token; then two tokens per expression.
constexpr auto g0 = cxmat::start<8 + lm_adder::longest_answer>(adder, prompt, cxmat::greedy, stop);
constexpr auto g1 = cxmat::advance<2>(adder, g0, cxmat::greedy, stop);
constexpr auto g2 = cxmat::advance<2>(adder, g1, cxmat::greedy, stop);

static_assert(generated_text(g0) == "1");
static_assert(generated_text(g1) == "199");
static_assert(generated_text(g2) == "1998$" && g2.stopped);  // 999 + 999, then the stop token
#endif

#if LM_ADDER_ONE_EXPRESSION
// The same answer in one expression (generate<N>: start, then advance<N - 1>).
constexpr lm_adder::text one_expression = lm_adder::continuation<8>("999+999=");
static_assert(one_expression == "1998$");
#endif
}  // namespace

int main() {
  // At run time: the chain and the one-shot generation, from the same prompt.
  auto g = cxmat::start<8 + lm_adder::longest_answer>(adder, prompt, cxmat::greedy, stop);
  g = cxmat::advance<2>(adder, g, cxmat::greedy, stop);
  g = cxmat::advance<2>(adder, g, cxmat::greedy, stop);
  const lm_adder::text chain = generated_text(g);
  const lm_adder::text one_shot = lm_adder::continuation_at_run_time("999+999=");
  std::printf("999+999= chained: %s, in one piece: %s\n", chain.chars, one_shot.chars);
#if LM_ADDER_CHAIN
  const bool same_as_compiler = chain == generated_text(g2);
#else
  const bool same_as_compiler = true;
#endif
  return chain == "1998$" && one_shot == chain && same_as_compiler ? 0 : 1;
}
