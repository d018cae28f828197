// Multi-head self-attention in block form: one large projection per Q, K, V, head h reading
// column block h (worksheet 003 part 4), the heads' outputs side by side, then W_o.
// Every function takes attention options after the matrices (attention_options.hpp).
#pragma once

#include <cstddef>

#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/attention/detail/diagnostics.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/result.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/attention/detail/apply_options.hpp>
#include <cxmat/attention/detail/grouped_heads.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// Multi-head attention of projected queries, keys and values, without output projection.
/// Q is L x (H·d_k), K is S x (H·d_k), V is S x (H·d_v); head h uses column block h of each;
/// the result is the heads' outputs side by side, L x (H·d_v) (worksheet 003 part 5).
template <std::size_t H, class T, extent L, extent QW, extent S1, extent KW, extent S2, extent VW, class... O>
  requires HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> && QueryKeyWidthsMatch<QW, KW> &&
           KeyValueLengthsMatch<S1, S2> && (ScoreOptionFits<O, T, L, S1> && ...) && OptionsAreConsistent<O...>
constexpr matrix<T, L, VW> multi_head_attention_qkv(const matrix<T, L, QW>& q, const matrix<T, S1, KW>& k,
                                                    const matrix<T, S2, VW>& v, const O&... opts) noexcept {
  return detail::heads_of_projections<H, H>(q, k, v, static_cast<batch<T, H, L, S1>*>(nullptr), opts...);
}

/// Multi-head self-attention in block form, without output projection (worksheet 004):
/// X is n x d_model; Wq and Wk are d_model x (H·d_k), Wv is d_model x (H·d_v). Head h uses
/// column block h of X·Wq, X·Wk, X·Wv; the result is the concatenated heads, n x (H·d_v).
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, class... O>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> &&
           (OptionFitsScores<O, T, N, N> && ...) && OptionsAreConsistent<O...>
constexpr matrix<T, N, VW> multi_head_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                                const matrix<T, DMk, KW>& wk, const matrix<T, DMv, VW>& wv,
                                                const O&... opts) noexcept {
  return detail::grouped_attention<H, H>(x, x, wq, wk, wv, static_cast<batch<T, H, N, N>*>(nullptr), opts...);
}

/// Multi-head self-attention in block form with output projection (worksheets 000, 001, 003):
/// as above, then the concatenated heads (n x H·d_v) times Wo ((H·d_v) x d_out): n x d_out.
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, extent VWo, extent DO, class... O>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> &&
           OutputProjectionFitsHeads<VW, VWo> && (OptionFitsScores<O, T, N, N> && ...) && OptionsAreConsistent<O...>
constexpr matrix<T, N, DO> multi_head_attention(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                                const matrix<T, DMk, KW>& wk, const matrix<T, DMv, VW>& wv,
                                                const matrix<T, VWo, DO>& wo, const O&... opts) noexcept {
  return detail::project<projection::output>(multi_head_attention<H>(x, wq, wk, wv, opts...), wo, opts...);
}

/// The attention weights of every head, H x n x n: head h's softmax(Q_h·K_hᵀ / √d_k), with the
/// same options as multi_head_attention.
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, class... O>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && QueryKeyWidthsMatch<QW, KW> &&
           HeadsDivideWidth<QW, H> && (OptionFitsScores<O, T, N, N> && ...) && OptionsAreConsistent<O...>
constexpr batch<T, H, N, N> multi_head_attention_weights(const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq,
                                                         const matrix<T, DMk, KW>& wk, const O&... opts) noexcept {
  const auto q = detail::project<projection::query>(x, wq, opts...);
  const auto k = detail::project<projection::key>(x, wk, opts...);
  constexpr std::size_t dk = QW.size / H;
  const T divisor = detail::score_divisor<T, O...>(dk);
  const auto score_mod = detail::make_score_mod<T>(N.size, N.size, opts...);
  batch<T, H, N, N> out{};
  for (std::size_t h = 0; h < H; ++h) {
    detail::scores<dk>(q.elems, h * dk, k.elems, h * dk, out.items[h].elems, divisor, score_mod);
    for (std::size_t i = 0; i < N.size; ++i) detail::softmax_row(out.items[h].elems[i], detail::fixed_length<N.size>{});
  }
  return out;
}

/// Multi-head self-attention (block form, no W_o) and every head's weights, in one pass:
/// `.output` is n x (H·d_v), `.weights` is H x n x n.
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, class... O>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> &&
           (OptionFitsScores<O, T, N, N> && ...) && OptionsAreConsistent<O...>
constexpr attention_result<matrix<T, N, VW>, batch<T, H, N, N>> multi_head_attention_with_weights(
    const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq, const matrix<T, DMk, KW>& wk,
    const matrix<T, DMv, VW>& wv, const O&... opts) noexcept {
  attention_result<matrix<T, N, VW>, batch<T, H, N, N>> result{};
  result.output = detail::grouped_attention<H, H>(x, x, wq, wk, wv, &result.weights, opts...);
  return result;
}

/// As above, with the output projection: `.output` is n x d_out, `.weights` is H x n x n.
template <std::size_t H, class T, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, extent VWo, extent DO, class... O>
  requires ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> && ProjectionFitsInput<DM, DMv> &&
           QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H> &&
           OutputProjectionFitsHeads<VW, VWo> && (OptionFitsScores<O, T, N, N> && ...) && OptionsAreConsistent<O...>
constexpr attention_result<matrix<T, N, DO>, batch<T, H, N, N>> multi_head_attention_with_weights(
    const matrix<T, N, DM>& x, const matrix<T, DMq, QW>& wq, const matrix<T, DMk, KW>& wk,
    const matrix<T, DMv, VW>& wv, const matrix<T, VWo, DO>& wo, const O&... opts) noexcept {
  const auto heads = multi_head_attention_with_weights<H>(x, wq, wk, wv, opts...);
  return {detail::project<projection::output>(heads.output, wo, opts...), heads.weights};
}

}  // namespace cxmat
