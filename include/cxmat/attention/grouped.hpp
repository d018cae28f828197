// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Multi-head attention as frameworks offer it: queries from X_q and keys/values from X_kv
// (cross-attention), H query heads sharing H_kv key/value heads (grouped-query attention; H_kv =
// 1 is multi-query attention, H_kv = H is plain multi-head attention), options for masks,
// causal attention, score bias, scale and projection biases, and the weights on request.
#pragma once

#include <cstddef>

#include <cxmat/attention/detail/apply_options.hpp>
#include <cxmat/attention/detail/grouped_heads.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/result.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// Grouped-query cross-attention without output projection.
/// X_q is L x d_q, X_kv is S x d_kv; W_q is d_q x (H·d_k), W_k is d_kv x (H_kv·d_k), W_v is
/// d_kv x (H_kv·d_v). Query head i uses column block i of X_q·W_q and key/value head
/// i / (H / H_kv). Options: mask, key_padding, causal, bias, scale, query/key/value_bias.
/// Result: the H heads side by side, L x (H·d_v).
template <std::size_t H, std::size_t Hkv = H, Matrix Xq, Matrix Xkv, Matrix Wq, Matrix Wk, Matrix Wv,
          AttentionOption... O>
requires rules_hold<rules_of::grouped_query_attention<H, Hkv, Xq, Xkv, Wq, Wk, Wv, O...>>
constexpr auto grouped_query_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv,
                                       const O&... opts) noexcept {
  using T = detail::element_of<Xq>;
  return detail::grouped_attention<H, Hkv>(
      xq, xkv, wq, wk, wv, static_cast<batch<T, H, Xq::row_extent, Xkv::row_extent>*>(nullptr), opts...);
}

/// Shape error of grouped_query_attention<H, H_kv>(xq, xkv, wq, wk, wv, opts...).
template <std::size_t H, std::size_t Hkv = H, Matrix Xq, Matrix Xkv, Matrix Wq, Matrix Wk, Matrix Wv,
          AttentionOption... O>
decltype(detail::first_failure<rules_of::grouped_query_attention<H, Hkv, Xq, Xkv, Wq, Wk, Wv, O...>>::error())
grouped_query_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv,
                        const O&... opts) noexcept;

/// Grouped-query cross-attention with output projection W_o ((H·d_v) x d_out): L x d_out.
/// Takes output_bias as well as the options above.
template <std::size_t H, std::size_t Hkv = H, Matrix Xq, Matrix Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo,
          AttentionOption... O>
requires rules_hold<rules_of::grouped_query_attention_wo<H, Hkv, Xq, Xkv, Wq, Wk, Wv, Wo, O...>>
constexpr matrix<detail::element_of<Xq>, Xq::row_extent, Wo::col_extent> grouped_query_attention(
    const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo, const O&... opts) noexcept {
  using T = detail::element_of<Xq>;
  const auto heads = detail::grouped_attention<H, Hkv>(
      xq, xkv, wq, wk, wv, static_cast<batch<T, H, Xq::row_extent, Xkv::row_extent>*>(nullptr), opts...);
  return detail::project<projection::output>(heads, wo, opts...);
}

/// Shape error of grouped_query_attention<H, H_kv>(xq, xkv, wq, wk, wv, wo, opts...).
template <std::size_t H, std::size_t Hkv = H, Matrix Xq, Matrix Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo,
          AttentionOption... O>
decltype(detail::first_failure<rules_of::grouped_query_attention_wo<H, Hkv, Xq, Xkv, Wq, Wk, Wv, Wo, O...>>::error())
grouped_query_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                        const O&... opts) noexcept;

/// As grouped_query_attention (with W_o), and every query head's weights: `.output` is
/// L x d_out, `.weights` is H x L x S (cxmat::mean(result.weights) averages over heads, as
/// PyTorch's average_attn_weights).
template <std::size_t H, std::size_t Hkv = H, Matrix Xq, Matrix Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo,
          AttentionOption... O>
requires rules_hold<rules_of::grouped_query_attention_wo<H, Hkv, Xq, Xkv, Wq, Wk, Wv, Wo, O...>>
constexpr auto grouped_query_attention_with_weights(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk,
                                                    const Wv& wv, const Wo& wo, const O&... opts) noexcept {
  using T = detail::element_of<Xq>;
  attention_result<matrix<T, Xq::row_extent, Wo::col_extent>, batch<T, H, Xq::row_extent, Xkv::row_extent>> result{};
  const auto heads = detail::grouped_attention<H, Hkv>(xq, xkv, wq, wk, wv, &result.weights, opts...);
  result.output = detail::project<projection::output>(heads, wo, opts...);
  return result;
}

/// Shape error of grouped_query_attention_with_weights<H, H_kv>(xq, xkv, wq, wk, wv, wo, opts...).
template <std::size_t H, std::size_t Hkv = H, Matrix Xq, Matrix Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo,
          AttentionOption... O>
decltype(detail::first_failure<rules_of::grouped_query_attention_wo<H, Hkv, Xq, Xkv, Wq, Wk, Wv, Wo, O...>>::error())
grouped_query_attention_with_weights(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv,
                                     const Wo& wo, const O&... opts) noexcept;

/// Multi-head cross-attention (H_kv = H): queries from X_q (L x d_q), keys and values from X_kv
/// (S x d_kv), with W_o; the options as above. L x d_out. Its rules and errors are those of
/// grouped_query_attention<H, H>.
template <std::size_t H, Matrix Xq, Matrix Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
constexpr auto cross_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                               const O&... opts) noexcept
    -> decltype(grouped_query_attention<H, H>(xq, xkv, wq, wk, wv, wo, opts...)) {
  return grouped_query_attention<H, H>(xq, xkv, wq, wk, wv, wo, opts...);
}

}  // namespace cxmat
