// Multi-head attention as frameworks offer it: queries from X_q and keys/values from X_kv
// (cross-attention), H query heads sharing H_kv key/value heads (grouped-query attention; H_kv =
// 1 is multi-query attention, H_kv = H is plain multi-head attention), options for masks,
// causal attention, score bias, scale and projection biases, and the weights on request.
#pragma once

#include <cstddef>

#include <cxmat/attention/options.hpp>
#include <cxmat/attention/result.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/attention/detail/apply_options.hpp>
#include <cxmat/attention/detail/grouped_heads.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// grouped-query attention: the number of key/value heads H_kv divides the number of query
/// heads H (query head i reads key/value head i / (H / H_kv)).
template <std::size_t H, std::size_t Hkv>
concept KeyValueHeadsDivideQueryHeads = (H > 0) && (Hkv > 0) && (H % Hkv == 0);

/// grouped-query attention: a query head and its key/value head have the same width d_k.
template <auto QW, std::size_t H, auto KW, std::size_t Hkv>
concept HeadWidthsMatch = (QW.size / H == KW.size / Hkv);


/// Grouped-query cross-attention without output projection.
/// X_q is L x d_q, X_kv is S x d_kv; W_q is d_q x (H·d_k), W_k is d_kv x (H_kv·d_k), W_v is
/// d_kv x (H_kv·d_v). Query head i uses column block i of X_q·W_q and key/value head
/// i / (H / H_kv). Options: mask, key_padding, causal, bias, scale, query/key/value_bias.
/// Result: the H heads side by side, L x (H·d_v).
template <std::size_t H, std::size_t Hkv = H, class T, extent L, extent DQ, extent S, extent DKV, extent DQq,
          extent QW, extent DKk, extent KW, extent DKv, extent VW, class... O>
  requires ProjectionFitsInput<DQ, DQq> && ProjectionFitsInput<DKV, DKk> && ProjectionFitsInput<DKV, DKv> &&
           KeyValueHeadsDivideQueryHeads<H, Hkv> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<KW, Hkv> &&
           HeadsDivideWidth<VW, Hkv> && HeadWidthsMatch<QW, H, KW, Hkv> && (OptionFitsScores<O, T, L, S> && ...) &&
           OptionsAreConsistent<O...>
constexpr auto grouped_query_attention(const matrix<T, L, DQ>& xq, const matrix<T, S, DKV>& xkv,
                                       const matrix<T, DQq, QW>& wq, const matrix<T, DKk, KW>& wk,
                                       const matrix<T, DKv, VW>& wv, const O&... opts) noexcept {
  return detail::grouped_attention<H, Hkv>(xq, xkv, wq, wk, wv, static_cast<batch<T, H, L, S>*>(nullptr), opts...);
}

/// Grouped-query cross-attention with output projection W_o ((H·d_v) x d_out): L x d_out.
/// Takes output_bias as well as the options above.
template <std::size_t H, std::size_t Hkv = H, class T, extent L, extent DQ, extent S, extent DKV, extent DQq,
          extent QW, extent DKk, extent KW, extent DKv, extent VW, extent WoR, extent DO, class... O>
  requires ProjectionFitsInput<DQ, DQq> && ProjectionFitsInput<DKV, DKk> && ProjectionFitsInput<DKV, DKv> &&
           KeyValueHeadsDivideQueryHeads<H, Hkv> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<KW, Hkv> &&
           HeadsDivideWidth<VW, Hkv> && HeadWidthsMatch<QW, H, KW, Hkv> &&
           OutputProjectionFitsHeads<detail::concat_width<H, Hkv, VW>, WoR> && (OptionFitsScores<O, T, L, S> && ...) &&
           OptionsAreConsistent<O...>
constexpr matrix<T, L, DO> grouped_query_attention(const matrix<T, L, DQ>& xq, const matrix<T, S, DKV>& xkv,
                                                   const matrix<T, DQq, QW>& wq, const matrix<T, DKk, KW>& wk,
                                                   const matrix<T, DKv, VW>& wv, const matrix<T, WoR, DO>& wo,
                                                   const O&... opts) noexcept {
  const auto heads = grouped_query_attention<H, Hkv>(xq, xkv, wq, wk, wv, opts...);
  return detail::project<projection::output>(heads, wo, opts...);
}

/// As grouped_query_attention (with W_o), and every query head's weights: `.output` is
/// L x d_out, `.weights` is H x L x S (cxmat::mean(result.weights) averages over heads, as
/// PyTorch's average_attn_weights).
template <std::size_t H, std::size_t Hkv = H, class T, extent L, extent DQ, extent S, extent DKV, extent DQq,
          extent QW, extent DKk, extent KW, extent DKv, extent VW, extent WoR, extent DO, class... O>
  requires ProjectionFitsInput<DQ, DQq> && ProjectionFitsInput<DKV, DKk> && ProjectionFitsInput<DKV, DKv> &&
           KeyValueHeadsDivideQueryHeads<H, Hkv> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<KW, Hkv> &&
           HeadsDivideWidth<VW, Hkv> && HeadWidthsMatch<QW, H, KW, Hkv> &&
           OutputProjectionFitsHeads<detail::concat_width<H, Hkv, VW>, WoR> && (OptionFitsScores<O, T, L, S> && ...) &&
           OptionsAreConsistent<O...>
constexpr attention_result<matrix<T, L, DO>, batch<T, H, L, S>> grouped_query_attention_with_weights(
    const matrix<T, L, DQ>& xq, const matrix<T, S, DKV>& xkv, const matrix<T, DQq, QW>& wq,
    const matrix<T, DKk, KW>& wk, const matrix<T, DKv, VW>& wv, const matrix<T, WoR, DO>& wo,
    const O&... opts) noexcept {
  attention_result<matrix<T, L, DO>, batch<T, H, L, S>> result{};
  const auto heads = detail::grouped_attention<H, Hkv>(xq, xkv, wq, wk, wv, &result.weights, opts...);
  result.output = detail::project<projection::output>(heads, wo, opts...);
  return result;
}

/// Multi-head cross-attention (H_kv = H): queries from X_q (L x d_q), keys and values from X_kv
/// (S x d_kv), with W_o; the options as above. L x d_out.
template <std::size_t H, class T, extent L, extent DQ, extent S, extent DKV, class Wq, class Wk, class Wv, class Wo,
          class... O>
constexpr auto cross_attention(const matrix<T, L, DQ>& xq, const matrix<T, S, DKV>& xkv, const Wq& wq, const Wk& wk,
                               const Wv& wv, const Wo& wo, const O&... opts) noexcept
    -> decltype(grouped_query_attention<H, H>(xq, xkv, wq, wk, wv, wo, opts...)) {
  return grouped_query_attention<H, H>(xq, xkv, wq, wk, wv, wo, opts...);
}

}  // namespace cxmat
