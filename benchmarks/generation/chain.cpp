// Greedy generation by the compiler: a LLaMA model (llama_weights.hpp, written by gen_weights.py)
// generates CXMAT_BENCH_TOKENS tokens after BOS in a chain of constant expressions, each its own
// step budget: gen<0> = start<Cap>(model, BOS) (the prompt and the first token), then
// gen<i> = advance<K>(model, gen<i - 1>) until the count is reached (the last link may be
// shorter). run.py compiles it under default limits, and bisects the limits the costliest link
// needs; with CXMAT_BENCH_EXPECTED (the tokens a run-time program gave, comma-separated) the
// tokens are checked against it.
//   CXMAT_BENCH_CAP     the generation's capacity (the cache's rows), default 40
//   CXMAT_BENCH_K       tokens per constant expression after the first, default 4
//   CXMAT_BENCH_TOKENS  tokens generated, default 32
//   CXMAT_BENCH_WEIGHTS_ONLY  only the weights (the baseline: what parsing them costs)
#include <cstddef>

#include "llama_weights.hpp"

#ifndef CXMAT_BENCH_CAP
#define CXMAT_BENCH_CAP 40
#endif
#ifndef CXMAT_BENCH_K
#define CXMAT_BENCH_K 4
#endif
#ifndef CXMAT_BENCH_TOKENS
#define CXMAT_BENCH_TOKENS 32
#endif

#ifdef CXMAT_BENCH_WEIGHTS_ONLY
static_assert(bench::model.token_embedding.elems[0][0] != 0.0f);
#else
namespace {
constexpr std::size_t cap = CXMAT_BENCH_CAP;
constexpr std::size_t per_link = CXMAT_BENCH_K;
constexpr std::size_t tokens = CXMAT_BENCH_TOKENS;
static_assert(tokens >= 1 && tokens + 1 <= cap && per_link >= 1);

constexpr int bos = 1;  // llama2.c's BOS
constexpr cxmat::matrix<int, 1, 1> prompt{{{bos}}};

// Tokens chosen after link i: 1 + i · K, at most `tokens`.
constexpr std::size_t after(std::size_t i) { return 1 + i * per_link < tokens ? 1 + i * per_link : tokens; }
constexpr std::size_t links = (tokens - 1 + per_link - 1) / per_link;

template <std::size_t I>
constexpr auto gen = cxmat::advance<after(I) - after(I - 1)>(bench::model, gen<I - 1>);
template <>
constexpr auto gen<0> = cxmat::start<cap>(bench::model, prompt);

constexpr const auto& last = gen<links>;
static_assert(!last.stopped || last.length == cap);
static_assert(last.generated() == tokens, "every token generated");

constexpr bool tokens_in_vocab() {
  for (std::size_t i = 0; i < last.length; ++i) {
    if (last.tokens.elems[0][i] < 0 || static_cast<std::size_t>(last.tokens.elems[0][i]) >= bench::vocab) return false;
  }
  return true;
}
static_assert(tokens_in_vocab());

#ifdef CXMAT_BENCH_EXPECTED
constexpr int expected[] = {CXMAT_BENCH_EXPECTED};
constexpr bool same_as_expected() {
  for (std::size_t i = 0; i < tokens && i < sizeof(expected) / sizeof(expected[0]); ++i) {
    if (last.tokens.elems[0][1 + i] != expected[i]) return false;
  }
  return sizeof(expected) / sizeof(expected[0]) >= tokens;
}
static_assert(same_as_expected(), "the compiler's tokens are the run-time program's");
#endif
}  // namespace
#endif
