// Scaled dot-product attention for one head: scores, weights, output, and self-attention.
// Each function takes attention options after the matrices (attention_options.hpp):
//   scaled_dot_product_attention(Q, K, V, cxmat::causal, cxmat::mask(allowed))
#pragma once

#include <cstddef>

#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/attention/detail/diagnostics.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/detail/apply_options.hpp>
#include <cxmat/kernels/attention.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// Scores Q·Kᵀ / √d_k: Q is L x d_k, K is S x d_k, the result is L x S. With options, the
/// scores after scale, bias and masks (masked entries are -inf).
template <class T, extent L, extent DK1, extent S, extent DK2, class... O>
  requires QueryKeyWidthsMatch<DK1, DK2> && (ScoreOptionFits<O, T, L, S> && ...) && OptionsAreConsistent<O...>
constexpr matrix<T, L, S> attention_scores(const matrix<T, L, DK1>& q, const matrix<T, S, DK2>& k,
                                           const O&... opts) noexcept {
  matrix<T, L, S> out{};
  detail::scores<DK1.size>(q.elems, 0, k.elems, 0, out.elems, detail::score_divisor<T, O...>(DK1.size),
                           detail::make_score_mod<T>(L.size, S.size, opts...));
  return out;
}

/// Attention weights softmax(Q·Kᵀ / √d_k), row by row: L x S, each row sums to 1, except that a
/// fully masked row is all zeros (see softmax_rows for non-finite scores).
template <class T, extent L, extent DK1, extent S, extent DK2, class... O>
  requires QueryKeyWidthsMatch<DK1, DK2> && (ScoreOptionFits<O, T, L, S> && ...) && OptionsAreConsistent<O...>
constexpr matrix<T, L, S> attention_weights(const matrix<T, L, DK1>& q, const matrix<T, S, DK2>& k,
                                            const O&... opts) noexcept {
  matrix<T, L, S> out = attention_scores(q, k, opts...);
  for (std::size_t i = 0; i < L.size; ++i) detail::softmax_row(out.elems[i], detail::fixed_length<S.size>{});
  return out;
}

/// softmax(Q·Kᵀ / √d_k)·V: Q is L x d_k, K is S x d_k, V is S x d_v; the result is L x d_v.
/// Queries and keys may differ in number (L ≠ S, cross-attention) and d_k may differ from d_v.
/// A query whose keys are all masked gets a zero output row.
template <class T, extent L, extent DK1, extent S1, extent DK2, extent S2, extent DV, class... O>
  requires QueryKeyWidthsMatch<DK1, DK2> && KeyValueLengthsMatch<S1, S2> && (ScoreOptionFits<O, T, L, S1> && ...) &&
           OptionsAreConsistent<O...>
constexpr matrix<T, L, DV> scaled_dot_product_attention(const matrix<T, L, DK1>& q, const matrix<T, S1, DK2>& k,
                                                        const matrix<T, S2, DV>& v, const O&... opts) noexcept {
  matrix<T, L, DV> out{};
  detail::attend<DK1.size, DV.size>(q.elems, 0, k.elems, 0, v.elems, 0, out.elems, 0,
                                    detail::score_divisor<T, O...>(DK1.size),
                                    detail::make_score_mod<T>(L.size, S1.size, opts...), detail::discard_weights{});
  return out;
}

/// Self-attention of the rows of X (n x d_model): Q = X·Wq, K = X·Wk, V = X·Wv, then
/// scaled_dot_product_attention(Q, K, V). Wq and Wk are d_model x d_k, Wv is d_model x d_v;
/// the result is n x d_v. Takes the options above and query/key/value_bias.
template <class T, extent N, extent DM, extent DMq, extent DK1, extent DMk, extent DK2, extent DMv, extent DV,
          class... O>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<DK1, DK2> && (OptionFitsScores<O, T, N, N> && ...) && OptionsAreConsistent<O...>
constexpr matrix<T, N, DV> self_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, DK1>& wq,
                                          const matrix<T, DMk, DK2>& wk, const matrix<T, DMv, DV>& wv,
                                          const O&... opts) noexcept {
  matrix<T, N, DV> out{};
  const auto q = detail::project<projection::query>(x, wq, opts...);
  const auto k = detail::project<projection::key>(x, wk, opts...);
  const auto v = detail::project<projection::value>(x, wv, opts...);
  detail::attend<DK1.size, DV.size>(q.elems, 0, k.elems, 0, v.elems, 0, out.elems, 0,
                                    detail::score_divisor<T, O...>(DK1.size),
                                    detail::make_score_mod<T>(N.size, N.size, opts...), detail::discard_weights{});
  return out;
}

}  // namespace cxmat
