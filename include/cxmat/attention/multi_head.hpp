// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Multi-head self-attention in block form: one large projection per Q, K, V, head h reading
// column block h (worksheet 003 part 4), the heads' outputs side by side, then W_o.
// Every function takes attention options after the matrices (attention_options.hpp).
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
#include <cxmat/ops/arithmetic.hpp>

namespace cxmat {

/// Multi-head attention of projected queries, keys and values, without output projection.
/// Q is L x (H·d_k), K is S x (H·d_k), V is S x (H·d_v); head h uses column block h of each;
/// the result is the heads' outputs side by side, L x (H·d_v) (worksheet 003 part 5).
template <std::size_t H, Matrix Q, Matrix K, Matrix V, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention_qkv<H, Q, K, V, O...>>
constexpr matrix<detail::element_of<Q>, Q::row_extent, V::col_extent> multi_head_attention_qkv(
    const Q& q, const K& k, const V& v, const O&... opts) noexcept {
  using T = detail::element_of<Q>;
  return detail::heads_of_projections<H, H>(q, k, v, static_cast<batch<T, H, Q::row_extent, K::row_extent>*>(nullptr),
                                            opts...);
}

/// Shape error of multi_head_attention_qkv<H>(q, k, v, opts...).
template <std::size_t H, Matrix Q, Matrix K, Matrix V, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention_qkv<H, Q, K, V, O...>>::error()) multi_head_attention_qkv(
    const Q& q, const K& k, const V& v, const O&... opts) noexcept;

/// Multi-head self-attention in block form, without output projection (worksheet 004):
/// X is n x d_model; Wq and Wk are d_model x (H·d_k), Wv is d_model x (H·d_v). Head h uses
/// column block h of X·Wq, X·Wk, X·Wv; the result is the concatenated heads, n x (H·d_v).
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention<H, X, Wq, Wk, Wv, O...>>
constexpr matrix<detail::element_of<X>, X::row_extent, Wv::col_extent> multi_head_attention(const X& x, const Wq& wq,
                                                                                            const Wk& wk, const Wv& wv,
                                                                                            const O&... opts) noexcept {
  using T = detail::element_of<X>;
  return detail::grouped_attention<H, H>(x, x, wq, wk, wv,
                                         static_cast<batch<T, H, X::row_extent, X::row_extent>*>(nullptr), opts...);
}

/// Shape error of multi_head_attention<H>(x, wq, wk, wv, opts...).
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention<H, X, Wq, Wk, Wv, O...>>::error()) multi_head_attention(
    const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

/// Multi-head self-attention in block form with output projection (worksheets 000, 001, 003):
/// as above, then the concatenated heads (n x H·d_v) times Wo ((H·d_v) x d_out): n x d_out.
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>
constexpr matrix<detail::element_of<X>, X::row_extent, Wo::col_extent> multi_head_attention(const X& x, const Wq& wq,
                                                                                            const Wk& wk, const Wv& wv,
                                                                                            const Wo& wo,
                                                                                            const O&... opts) noexcept {
  using T = detail::element_of<X>;
  const auto heads = detail::grouped_attention<H, H>(
      x, x, wq, wk, wv, static_cast<batch<T, H, X::row_extent, X::row_extent>*>(nullptr), opts...);
  return detail::project<projection::output>(heads, wo, opts...);
}

/// Shape error of multi_head_attention<H>(x, wq, wk, wv, wo, opts...).
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>::error())
multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo, const O&... opts) noexcept;

/// The attention weights of every head, H x n x n: head h's softmax(Q_h·K_hᵀ / √d_k), with the
/// same options as multi_head_attention.
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention_weights<H, X, Wq, Wk, O...>>
constexpr batch<detail::element_of<X>, H, X::row_extent, X::row_extent> multi_head_attention_weights(
    const X& x, const Wq& wq, const Wk& wk, const O&... opts) noexcept {
  using T = detail::element_of<X>;
  constexpr std::size_t n = X::rows;
  auto q = detail::project<projection::query>(x, wq, opts...);
  auto k = detail::project<projection::key>(x, wk, opts...);
  detail::rotate_queries<H>(q, n, opts...);
  detail::rotate_keys<H>(k, opts...);
  constexpr std::size_t dk = Wq::cols / H;
  const T divisor = detail::score_divisor<T, O...>(dk);
  detail::check_scores(q.elems, k.elems, dk, divisor, opts...);
  const auto score_mod = detail::make_score_mod<T>(n, n, opts...);
  batch<T, H, X::row_extent, X::row_extent> out{};
  for (std::size_t h = 0; h < H; ++h) {
    detail::scores<dk>(q.elems, h * dk, k.elems, h * dk, out.items[h].elems, divisor, score_mod);
    for (std::size_t i = 0; i < n; ++i) detail::softmax_row(out.items[h].elems[i], detail::fixed_length<n>{});
  }
  return out;
}

/// Shape error of multi_head_attention_weights<H>(x, wq, wk, opts...).
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention_weights<H, X, Wq, Wk, O...>>::error())
multi_head_attention_weights(const X& x, const Wq& wq, const Wk& wk, const O&... opts) noexcept;

/// Multi-head self-attention (block form, no W_o) and every head's weights, in one pass:
/// `.output` is n x (H·d_v), `.weights` is H x n x n.
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention<H, X, Wq, Wk, Wv, O...>>
constexpr auto multi_head_attention_with_weights(const X& x, const Wq& wq, const Wk& wk, const Wv& wv,
                                                 const O&... opts) noexcept {
  using T = detail::element_of<X>;
  attention_result<matrix<T, X::row_extent, Wv::col_extent>, batch<T, H, X::row_extent, X::row_extent>> result{};
  result.output = detail::grouped_attention<H, H>(x, x, wq, wk, wv, &result.weights, opts...);
  return result;
}

/// Shape error of multi_head_attention_with_weights<H>(x, wq, wk, wv, opts...).
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention<H, X, Wq, Wk, Wv, O...>>::error())
multi_head_attention_with_weights(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

/// As above, with the output projection: `.output` is n x d_out, `.weights` is H x n x n.
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
requires rules_hold<rules_of::multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>
constexpr auto multi_head_attention_with_weights(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                                                 const O&... opts) noexcept {
  using T = detail::element_of<X>;
  attention_result<matrix<T, X::row_extent, Wo::col_extent>, batch<T, H, X::row_extent, X::row_extent>> result{};
  const auto heads = detail::grouped_attention<H, H>(x, x, wq, wk, wv, &result.weights, opts...);
  result.output = detail::project<projection::output>(heads, wo, opts...);
  return result;
}

/// Shape error of multi_head_attention_with_weights<H>(x, wq, wk, wv, wo, opts...).
template <std::size_t H, Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
decltype(detail::first_failure<rules_of::multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>::error())
multi_head_attention_with_weights(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                                  const O&... opts) noexcept;

namespace shape_error {
template <class DModel>
struct multi_head_attention_needs_h_as_template_argument;  // write multi_head_attention<H>(X, Wq, Wk, Wv, Wo): H heads
}  // namespace shape_error

/// Usage error: the block form called without its number of heads, multi_head_attention(X, ...)
/// instead of multi_head_attention<H>(X, ...): H cannot be deduced from the matrices. The error
/// names X's width, which H must divide.
template <Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, class... Rest>
shape_error::multi_head_attention_needs_h_as_template_argument<dim_of<detail::cols_of<X>>> multi_head_attention(
    const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Rest&... rest) noexcept;

}  // namespace cxmat
