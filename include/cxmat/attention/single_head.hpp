// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Scaled dot-product attention for one head: scores, weights, output, and self-attention.
// Each function takes attention options after the matrices (attention/options.hpp):
//   scaled_dot_product_attention(Q, K, V, cxmat::causal, cxmat::mask(allowed))
// and comes with an error overload derived from its rule list (attention/rules.hpp), so a call
// that breaks a rule names it.
#pragma once

#include <cstddef>

#include <cxmat/attention/detail/apply_options.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/kernels/attention.hpp>

namespace cxmat {

/// Scores Q·Kᵀ / √d_k: Q is L x d_k, K is S x d_k, the result is L x S. With options, the
/// scores after scale, bias and masks (masked entries are -inf). With rotary(), Q and K are
/// rotated first.
template <Matrix Q, Matrix K, AttentionOption... O>
requires rules_hold<rules_of::attention_scores<Q, K, O...>>
constexpr matrix<detail::element_of<Q>, Q::row_extent, K::row_extent> attention_scores(const Q& q, const K& k,
                                                                                       const O&... opts) noexcept {
  using T = detail::element_of<Q>;
  const T divisor = detail::score_divisor<T, O...>(Q::cols);
  const auto& qr = detail::rotated_queries<1>(q, K::rows, opts...);
  const auto& kr = detail::rotated_keys<1>(k, opts...);
  detail::check_scores(qr.elems, kr.elems, Q::cols, divisor, opts...);
  matrix<T, Q::row_extent, K::row_extent> out{};
  detail::scores<Q::cols>(qr.elems, 0, kr.elems, 0, out.elems, divisor,
                          detail::make_score_mod<T>(Q::rows, K::rows, opts...));
  return out;
}

/// Shape error of attention_scores(q, k, opts...): the first rule of its list that is broken.
template <Matrix Q, Matrix K, AttentionOption... O>
decltype(detail::first_failure<rules_of::attention_scores<Q, K, O...>>::error()) attention_scores(
    const Q& q, const K& k, const O&... opts) noexcept;

/// Attention weights softmax(Q·Kᵀ / √d_k), row by row: L x S, each row sums to 1, except that a
/// fully masked row is all zeros (see softmax_rows for non-finite scores).
template <Matrix Q, Matrix K, AttentionOption... O>
requires rules_hold<rules_of::attention_scores<Q, K, O...>>
constexpr matrix<detail::element_of<Q>, Q::row_extent, K::row_extent> attention_weights(const Q& q, const K& k,
                                                                                        const O&... opts) noexcept {
  auto out = attention_scores(q, k, opts...);
  for (std::size_t i = 0; i < Q::rows; ++i) detail::softmax_row(out.elems[i], detail::fixed_length<K::rows>{});
  return out;
}

/// Shape error of attention_weights(q, k, opts...) (the rules of attention_scores).
template <Matrix Q, Matrix K, AttentionOption... O>
decltype(detail::first_failure<rules_of::attention_scores<Q, K, O...>>::error()) attention_weights(
    const Q& q, const K& k, const O&... opts) noexcept;

/// softmax(Q·Kᵀ / √d_k)·V: Q is L x d_k, K is S x d_k, V is S x d_v; the result is L x d_v.
/// Queries and keys may differ in number (L ≠ S, cross-attention) and d_k may differ from d_v.
/// A query whose keys are all masked gets a zero output row.
template <Matrix Q, Matrix K, Matrix V, AttentionOption... O>
requires rules_hold<rules_of::scaled_dot_product_attention<Q, K, V, O...>>
constexpr matrix<detail::element_of<Q>, Q::row_extent, V::col_extent> scaled_dot_product_attention(
    const Q& q, const K& k, const V& v, const O&... opts) noexcept {
  using T = detail::element_of<Q>;
  const T divisor = detail::score_divisor<T, O...>(Q::cols);
  const auto& qr = detail::rotated_queries<1>(q, K::rows, opts...);
  const auto& kr = detail::rotated_keys<1>(k, opts...);
  detail::check_scores(qr.elems, kr.elems, Q::cols, divisor, opts...);
  const auto score_mod = detail::make_score_mod<T>(Q::rows, K::rows, opts...);
  detail::check_values(v.elems, detail::key_visibility<T, decltype(score_mod)>{score_mod, Q::rows});
  matrix<T, Q::row_extent, V::col_extent> out{};
  detail::attend<Q::cols, V::cols>(qr.elems, 0, kr.elems, 0, v.elems, 0, out.elems, 0, divisor, score_mod,
                                   detail::discard_weights{});
  return out;
}

/// Shape error of scaled_dot_product_attention(q, k, v, opts...).
template <Matrix Q, Matrix K, Matrix V, AttentionOption... O>
decltype(detail::first_failure<rules_of::scaled_dot_product_attention<Q, K, V, O...>>::error())
scaled_dot_product_attention(const Q& q, const K& k, const V& v, const O&... opts) noexcept;

/// Self-attention of the rows of X (n x d_model): Q = X·Wq, K = X·Wk, V = X·Wv, then
/// scaled_dot_product_attention(Q, K, V). Wq and Wk are d_model x d_k, Wv is d_model x d_v;
/// the result is n x d_v. Takes the options above and query/key/value_bias (rotary() rotates Q
/// and K after their biases).
template <Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
requires rules_hold<rules_of::self_attention<X, Wq, Wk, Wv, O...>>
constexpr matrix<detail::element_of<X>, X::row_extent, Wv::col_extent> self_attention(const X& x, const Wq& wq,
                                                                                      const Wk& wk, const Wv& wv,
                                                                                      const O&... opts) noexcept {
  using T = detail::element_of<X>;
  matrix<T, X::row_extent, Wv::col_extent> out{};
  auto q = detail::project<projection::query>(x, wq, opts...);
  auto k = detail::project<projection::key>(x, wk, opts...);
  const auto v = detail::project<projection::value>(x, wv, opts...);
  detail::rotate_queries<1>(q, X::rows, opts...);
  detail::rotate_keys<1>(k, opts...);
  const T divisor = detail::score_divisor<T, O...>(Wq::cols);
  detail::check_scores(q.elems, k.elems, Wq::cols, divisor, opts...);
  detail::attend<Wq::cols, Wv::cols>(q.elems, 0, k.elems, 0, v.elems, 0, out.elems, 0, divisor,
                                     detail::make_score_mod<T>(X::rows, X::rows, opts...), detail::discard_weights{});
  return out;
}

/// Shape error of self_attention(x, wq, wk, wv, opts...).
template <Matrix X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
decltype(detail::first_failure<rules_of::self_attention<X, Wq, Wk, Wv, O...>>::error()) self_attention(
    const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

}  // namespace cxmat
