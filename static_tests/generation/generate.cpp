// generate<N> at compile time: greedy by default, continued across constant expressions with
// the same tokens, stop tokens, the sampler's draws, and the shape rules of a generation.
#include <cstdint>
#include <type_traits>

#include <cxmat/generation.hpp>

#include "test_support/tiny_language_models.hpp"

namespace {

using cxmat::matrix;
using namespace cxmat_test;

constexpr auto model = make_tiny_llama<tiny_llama<double>>(1);
constexpr matrix<int, 1, 3> prompt{{{3, 1, 4}}};

// Greedy generation is argmax of each step's logits, fed back: by hand with prefill and step.
constexpr matrix<int, 1, 6> greedy_by_hand() {
  tiny_llama<double>::cache_type<9> cache{};
  matrix<int, 1, 6> out{};
  auto logits = cxmat::prefill(model, cache, prompt);
  for (std::size_t i = 0; i < 6; ++i) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < tiny_vocab; ++j) best = logits(0, j) > logits(0, best) ? j : best;
    out(0, i) = static_cast<int>(best);
    if (i + 1 < 6) logits = cxmat::step(model, cache, out(0, i));
  }
  return out;
}
constexpr auto six = cxmat::generate<6>(model, prompt);
static_assert(six == greedy_by_hand());

// One constant expression per two tokens gives the same six tokens.
constexpr auto g0 = cxmat::start<9>(model, prompt);
constexpr auto g1 = cxmat::advance<2>(model, g0);
constexpr auto g2 = cxmat::advance<2>(model, g1);
constexpr auto g3 = cxmat::advance<1>(model, g2);
static_assert(g0.generated() == 1 && !g2.stopped && g3.generated() == 6 && g3.stopped);  // 9 tokens: full
constexpr bool chained_equals_one_shot() {
  for (std::size_t i = 0; i < 6; ++i) {
    if (g3.tokens(0, 3 + i) != six(0, i)) return false;
  }
  return true;
}
static_assert(chained_equals_one_shot());

// In the caller's storage (a generation of capacity 12, used before for another prompt and a
// sampled generation): the same tokens, and the storage holds the generation afterwards.
constexpr bool in_storage_equals_one_shot() {
  cxmat::generation<std::remove_cvref_t<decltype(model)>, cxmat::extent{12}> storage{};
  const matrix<int, 1, 2> other{{{7, 7}}};
  const auto first = cxmat::generate<9>(model, other, storage, cxmat::sampling(1.5, 3));
  const auto again = cxmat::generate<6>(model, prompt, storage);
  return first(0, 0) != cxmat::no_token && again == six && storage.length == 3 + 6 && storage.cache.filled == 3 + 5 &&
         storage.tokens(0, 3) == six(0, 0);
}
static_assert(in_storage_equals_one_shot());

// A stop token is emitted, then nothing more (-1).
constexpr auto stopped = cxmat::generate<6>(model, prompt, cxmat::greedy, cxmat::stop_token{six(0, 0)});
static_assert(stopped(0, 0) == six(0, 0));
static_assert(stopped(0, 1) == cxmat::no_token && stopped(0, 5) == cxmat::no_token);

// Sampling: the draws are SplitMix64's (first output of the generator seeded 0, as published),
// the same in a chain as in one piece, and top_k = 1 or temperature 0 is greedy.
static_assert(cxmat::detail::splitmix64(0) == 0xE220A8397B1DCDAFULL);
static_assert(cxmat::detail::uniform_draw(7, 0) ==
              static_cast<double>(cxmat::detail::splitmix64(7) >> 11U) * 0x1.0p-53);
constexpr auto hot = cxmat::sampling(1.5, 42);
constexpr auto sampled = cxmat::generate<6>(model, prompt, hot);
constexpr auto s0 = cxmat::start<9>(model, prompt, hot);
constexpr auto s1 = cxmat::advance<5>(model, s0, hot);
constexpr bool sampled_chain_equal() {
  for (std::size_t i = 0; i < 6; ++i) {
    if (s1.tokens(0, 3 + i) != sampled(0, i)) return false;
  }
  return true;
}
static_assert(sampled_chain_equal());
static_assert(sampled != six);  // this seed and temperature leave the greedy path
static_assert(cxmat::generate<6>(model, prompt, hot.with_top_k(1)) == six);
static_assert(cxmat::generate<6>(model, prompt, cxmat::sampling(0.0, 42)) == six);
static_assert(cxmat::generate<6>(model, prompt, cxmat::sampling(-1.0, 42)) == six);

// Refused sampler parameters.
static_assert(!hot.with_top_k(0).valid() && !hot.with_top_p(0.0).valid() && !hot.with_top_p(1.5).valid());
static_assert(hot.with_top_p(1.0).valid() && hot.with_top_k(3).with_top_p(0.5).valid());

// Shape rules: the prompt is one row of integer ids, and P + N fits the model's context (16).
// (With CXMAT_PLAIN_ERRORS a refusal is a static_assert, not a failed constraint: compile-fail
// snippet 66 checks it there.)
#if !CXMAT_PLAIN_ERRORS
template <std::size_t N, class P>
concept can_generate = requires(const P& p) {
  cxmat::generate<N>(model, p);
};
static_assert(can_generate<13, matrix<int, 1, 3>>);
static_assert(!can_generate<14, matrix<int, 1, 3>>);
static_assert(!can_generate<0, matrix<int, 1, 3>>);
static_assert(!can_generate<2, matrix<double, 1, 3>>);
static_assert(!can_generate<2, matrix<int, 2, 3>>);
static_assert(can_generate<2, matrix<unsigned char, 1, 3>>);
#endif

}  // namespace

// A recorded generation writes the same tokens; position 0 sees only itself (weight 1), and each
// computed row's weights are 0 after its own position.
namespace recorded {
constexpr auto run = cxmat::generate_recording<6>(model, prompt);
static_assert(run.tokens == six);
static_assert(run.attention[0].items[0](0, 0) == 1.0 && run.attention[1].items[3](0, 0) == 1.0);
static_assert(run.attention[1].items[2](4, 5) == 0.0 && run.attention[1].items[2](4, 4) > 0.0);
static_assert(run.attention[0].items[1](8, 0) == 0.0);  // the last token is chosen, not run
}  // namespace recorded
