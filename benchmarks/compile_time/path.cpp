// One attention form per compile, selected by CXMAT_BENCH_PATH, on the layer's inputs
// (inputs.hpp): every public form that reaches the kernels by another route than layer.cpp's.
// run.py measures each at n = d = 32 beside the plain layer, so a form whose constant path
// misses the cheap kernels shows up as an outlier. Each evaluates as much attention as one
// layer (H heads of n x n, three projections and W_o) except where noted.
#include <cxmat/attention.hpp>
#include <cxmat/ops.hpp>

#include "inputs.hpp"

#ifndef CXMAT_BENCH_PATH
#define CXMAT_BENCH_PATH 0
#endif

namespace cxmat_bench {

// Key j hidden from query i on a fixed pattern (masks in the middle, at the start, alternating).
constexpr cxmat::matrix<bool, n, n> pattern_mask() noexcept {
  cxmat::matrix<bool, n, n> m{};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) m.elems[i][j] = (i + j) % 3 != 0;
  }
  return m;
}

inline constexpr auto scores_bias = random_matrix<n, n>(31, 2.0);
inline constexpr auto allowed = pattern_mask();

#if CXMAT_BENCH_PATH == 0  // the layer with a boolean mask
constexpr auto y = cxmat::multi_head_attention<heads>(X, Wq, Wk, Wv, Wo, cxmat::mask(allowed));
#elif CXMAT_BENCH_PATH == 1  // the layer, causal
constexpr auto y = cxmat::multi_head_attention<heads>(X, Wq, Wk, Wv, Wo, cxmat::causal);
#elif CXMAT_BENCH_PATH == 2  // the layer with an additive score bias
constexpr auto y = cxmat::multi_head_attention<heads>(X, Wq, Wk, Wv, Wo, cxmat::bias(scores_bias));
#elif CXMAT_BENCH_PATH == 3  // per-head form (Boost.Hana tuple of H heads), then W_o
template <std::size_t... Hs>
constexpr auto heads_of(std::index_sequence<Hs...>) noexcept {
  return cxmat::make_heads(cxmat::attention_head{random_matrix<d, d / heads>(100 + 3 * Hs),
                                                 random_matrix<d, d / heads>(101 + 3 * Hs),
                                                 random_matrix<d, d / heads>(102 + 3 * Hs)}...);
}
inline constexpr auto per_head = heads_of(std::make_index_sequence<heads>{});
constexpr auto y = cxmat::multi_head_attention(X, per_head, Wo);
#elif CXMAT_BENCH_PATH == 4  // grouped-query cross-attention, H query heads sharing H/2 key/value heads
inline constexpr auto Wk_kv = random_matrix<d, d / 2>(41);
inline constexpr auto Wv_kv = random_matrix<d, d / 2>(42);
constexpr auto y = cxmat::grouped_query_attention<heads, heads / 2>(X, Wq, Wq, Wk_kv, Wv_kv, Wo);
#elif CXMAT_BENCH_PATH == 5  // batched: one item (its cost is that of the layer plus the batch's)
inline constexpr auto Xb = cxmat::batch<double, 1, n, d>{{X}};
constexpr auto y = cxmat::multi_head_attention<heads>(Xb, Wq, Wk, Wv, Wo).items[0];
#elif CXMAT_BENCH_PATH == 6  // the layer's weights as well (multi_head_attention_with_weights)
constexpr auto y = cxmat::multi_head_attention_with_weights<heads>(X, Wq, Wk, Wv, Wo).output;
#endif

static_assert(finite_and_nonzero(y), "the attention form's output is not finite");

}  // namespace cxmat_bench
