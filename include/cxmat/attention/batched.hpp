// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Batched shapes: the operations of cxmat applied to every matrix of a batch<T, B, Rows, Cols>
// (a B x n x d input, as in worksheet 003 part 1). Weights are plain matrices shared by every
// batch item; activations, attention weights and outputs are batches and carry B in their type.
// Two batches combine only when their B agree (size, and name where both are named).
//
// Each operation is the unbatched one applied item by item, so its rule list is the unbatched
// one's (over one item's types) after the batch rules, and it reports the same shape errors plus
// shape_error::batch_sizes_must_match. Options apply to every item alike, except
// batch_key_padding(keep), whose row b is item b's key padding.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cxmat/attention/grouped.hpp>
#include <cxmat/attention/multi_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/attention/single_head.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/ops/softmax.hpp>

namespace cxmat {
namespace detail {

// A batch of B matrices of type M.
template <extent B, class M>
using batch_of_t = batch<typename M::value_type, B, M::row_extent, M::col_extent>;

// out[b] = item(b) for every b: the result type is the type `item` returns, batched by B.
template <extent B, class Item>
constexpr batch_of_t<B, decltype(std::declval<const Item&>()(std::size_t{0}))> map_items(const Item& item) noexcept {
  batch_of_t<B, decltype(item(std::size_t{0}))> out{};
  for (std::size_t b = 0; b < B.size; ++b) out.items[b] = item(b);
  return out;
}

// The option one item sees: a batch_key_padding_mask gives item b the key-padding mask of its
// row b; every other option applies to all items alike.
template <class O>
struct item_option_of {
  using type = O;
};
template <extent B, extent S>
struct item_option_of<batch_key_padding_mask<B, S>> {
  using type = key_padding_mask<S>;
};
template <class O>
using item_option_t = typename item_option_of<O>::type;

template <class O>
constexpr const O& item_option(const O& option, std::size_t /*item*/) noexcept {
  return option;
}
template <extent B, extent S>
constexpr key_padding_mask<S> item_option(const batch_key_padding_mask<B, S>& option, std::size_t item) noexcept {
  key_padding_mask<S> out{};
  for (std::size_t j = 0; j < S.size; ++j) out.keep.elems[0][j] = option.keep.elems[item][j];
  return out;
}

// A per-item option holds one row per batch item: its B agrees with the batch's.
template <class O, auto B>
inline constexpr bool option_fits_batch = true;
template <extent OB, extent S, auto B>
inline constexpr bool option_fits_batch<batch_key_padding_mask<OB, S>, B> = BatchSizesMatch<OB, B>;

template <class A>
using item_t = typename std::remove_cvref_t<A>::matrix_type;

}  // namespace detail

namespace shape_error {
template <class B, class... Options>
struct batch_key_padding_must_have_one_row_per_item;  // batch_key_padding(keep): keep is B x S, row b for item b
}  // namespace shape_error

namespace rule {
template <auto B, class... O>
using options_fit_batch = detail::check<(detail::option_fits_batch<std::remove_cvref_t<O>, B> && ...),
                                        shape_error::batch_key_padding_must_have_one_row_per_item<dim_of<B>, O...>>;
}  // namespace rule

namespace rules_of {
// The batch rules of a call with batches Bs... (all of one B) and options O...
template <class B0, class... Bs>
using batches = detail::rule_list<rule::batch_sizes<B0::batch_extent, Bs::batch_extent>...>;
template <class B0, class... O>
using batch_options = detail::rule_list<rule::options_fit_batch<B0::batch_extent, O...>>;
}  // namespace rules_of

/// Transpose of every item: B x R x C -> B x C x R (names swap as for a matrix).
template <class T, extent B, extent R, extent C>
constexpr batch<T, B, C, R> transpose(const batch<T, B, R, C>& x) noexcept {
  return detail::map_items<B>([&x](std::size_t b) { return transpose(x.items[b]); });
}

/// Every item times a shared matrix: (B x R x K)·(K x C) -> B x R x C, e.g. Q = X·Wq for a batch
/// of inputs X and one projection Wq.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
requires rules_hold<rules_of::matmul<T, R, K1, K2, C>>
constexpr auto matmul(const batch<T, B, R, K1>& x, const matrix<T, K2, C>& w) noexcept {
  return detail::map_items<B>([&x, &w](std::size_t b) { return matmul(x.items[b], w); });
}

/// Shape error: batch times matrix with x.cols != w.rows.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
decltype(detail::first_failure<rules_of::matmul<T, R, K1, K2, C>>::error()) matmul(const batch<T, B, R, K1>& x,
                                                                                   const matrix<T, K2, C>& w) noexcept;

namespace rules_of {
template <class T, auto B1, auto R, auto K1, auto B2, auto K2, auto C>
using batch_matmul = detail::join_t<detail::rule_list<rule::batch_sizes<B1, B2>>, matmul<T, R, K1, K2, C>>;
}  // namespace rules_of

/// Item by item product of two batches: (B x R x K)·(B x K x C) -> B x R x C, e.g. the scores
/// Q·Kᵀ of every sequence. The two B must agree.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
requires rules_hold<rules_of::batch_matmul<T, B1, R, K1, B2, K2, C>>
constexpr auto matmul(const batch<T, B1, R, K1>& a, const batch<T, B2, K2, C>& b) noexcept {
  return detail::map_items<common_extent_v<B1, B2>>([&a, &b](std::size_t i) { return matmul(a.items[i], b.items[i]); });
}

/// Shape error: item by item product with different B, or a.cols != b.rows.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
decltype(detail::first_failure<rules_of::batch_matmul<T, B1, R, K1, B2, K2, C>>::error()) matmul(
    const batch<T, B1, R, K1>& a, const batch<T, B2, K2, C>& b) noexcept;

/// x * w is matmul(x, w) for a batch x and a matrix w.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
requires rules_hold<rules_of::matmul<T, R, K1, K2, C>>
constexpr auto operator*(const batch<T, B, R, K1>& x, const matrix<T, K2, C>& w) noexcept { return matmul(x, w); }

/// Shape error: x * w with x.cols != w.rows.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
decltype(detail::first_failure<rules_of::matmul<T, R, K1, K2, C>>::error()) operator*(
    const batch<T, B, R, K1>& x, const matrix<T, K2, C>& w) noexcept;

/// a * b is matmul(a, b) for two batches.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
requires rules_hold<rules_of::batch_matmul<T, B1, R, K1, B2, K2, C>>
constexpr auto operator*(const batch<T, B1, R, K1>& a, const batch<T, B2, K2, C>& b) noexcept { return matmul(a, b); }

/// Shape error: a * b for batches with different B, or a.cols != b.rows.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
decltype(detail::first_failure<rules_of::batch_matmul<T, B1, R, K1, B2, K2, C>>::error()) operator*(
    const batch<T, B1, R, K1>& a, const batch<T, B2, K2, C>& b) noexcept;

/// Every element times the scalar s.
template <class T, extent B, extent R, extent C>
constexpr batch<T, B, R, C> operator*(const batch<T, B, R, C>& x, const std::type_identity_t<T>& s) noexcept {
  return detail::map_items<B>([&x, &s](std::size_t b) { return x.items[b] * s; });
}

/// Every element divided by the scalar s, e.g. the scaled scores Q·Kᵀ / √d.
template <class T, extent B, extent R, extent C>
constexpr batch<T, B, R, C> operator/(const batch<T, B, R, C>& x, const std::type_identity_t<T>& s) noexcept {
  return detail::map_items<B>([&x, &s](std::size_t b) { return x.items[b] / s; });
}

/// Softmax of each row of each item (see softmax_rows): B x R x C -> B x R x C.
template <class T, extent B, extent R, extent C>
constexpr batch<T, B, R, C> softmax_rows(const batch<T, B, R, C>& x) noexcept {
  return detail::map_items<B>([&x](std::size_t b) { return softmax_rows(x.items[b]); });
}

namespace rules_of {
template <class Q, class K, class... O>
using batch_attention_scores =
    detail::join_t<batches<Q, K>, batch_options<Q, O...>,
                   attention_scores<detail::item_t<Q>, detail::item_t<K>, detail::item_option_t<O>...>>;
template <class Q, class K, class V, class... O>
using batch_scaled_dot_product_attention = detail::join_t<
    batches<Q, K, V>, batch_options<Q, O...>,
    scaled_dot_product_attention<detail::item_t<Q>, detail::item_t<K>, detail::item_t<V>, detail::item_option_t<O>...>>;
template <class X, class Wq, class Wk, class Wv, class... O>
using batch_self_attention =
    detail::join_t<batch_options<X, O...>, self_attention<detail::item_t<X>, Wq, Wk, Wv, detail::item_option_t<O>...>>;
template <std::size_t H, class X, class Wq, class Wk, class Wv, class... O>
using batch_multi_head_attention =
    detail::join_t<batch_options<X, O...>,
                   multi_head_attention<H, detail::item_t<X>, Wq, Wk, Wv, detail::item_option_t<O>...>>;
template <std::size_t H, class X, class Wq, class Wk, class Wv, class Wo, class... O>
using batch_multi_head_attention_wo =
    detail::join_t<batch_options<X, O...>,
                   multi_head_attention_wo<H, detail::item_t<X>, Wq, Wk, Wv, Wo, detail::item_option_t<O>...>>;
template <std::size_t H, std::size_t Hkv, class Xq, class Xkv, class Wq, class Wk, class Wv, class... O>
using batch_grouped_query_attention = detail::join_t<
    batches<Xq, Xkv>, batch_options<Xq, O...>,
    grouped_query_attention<H, Hkv, detail::item_t<Xq>, detail::item_t<Xkv>, Wq, Wk, Wv, detail::item_option_t<O>...>>;
template <std::size_t H, std::size_t Hkv, class Xq, class Xkv, class Wq, class Wk, class Wv, class Wo, class... O>
using batch_grouped_query_attention_wo =
    detail::join_t<batches<Xq, Xkv>, batch_options<Xq, O...>,
                   grouped_query_attention_wo<H, Hkv, detail::item_t<Xq>, detail::item_t<Xkv>, Wq, Wk, Wv, Wo,
                                              detail::item_option_t<O>...>>;
}  // namespace rules_of

/// Scores Q·Kᵀ / √d_k of every item: (B x L x d_k), (B x S x d_k) -> B x L x S.
template <Batch Q, Batch K, AttentionOption... O>
requires rules_hold<rules_of::batch_attention_scores<Q, K, O...>>
constexpr auto attention_scores(const Q& q, const K& k, const O&... opts) noexcept {
  return detail::map_items<Q::batch_extent>(
      [&](std::size_t b) { return attention_scores(q.items[b], k.items[b], detail::item_option(opts, b)...); });
}

/// Shape error of batched attention_scores: different B, or the error of one item.
template <Batch Q, Batch K, AttentionOption... O>
decltype(detail::first_failure<rules_of::batch_attention_scores<Q, K, O...>>::error()) attention_scores(
    const Q& q, const K& k, const O&... opts) noexcept;

/// Attention weights softmax(Q·Kᵀ / √d_k) of every item: B x L x S.
template <Batch Q, Batch K, AttentionOption... O>
requires rules_hold<rules_of::batch_attention_scores<Q, K, O...>>
constexpr auto attention_weights(const Q& q, const K& k, const O&... opts) noexcept {
  return detail::map_items<Q::batch_extent>(
      [&](std::size_t b) { return attention_weights(q.items[b], k.items[b], detail::item_option(opts, b)...); });
}

/// Shape error of batched attention_weights: different B, or the error of one item.
template <Batch Q, Batch K, AttentionOption... O>
decltype(detail::first_failure<rules_of::batch_attention_scores<Q, K, O...>>::error()) attention_weights(
    const Q& q, const K& k, const O&... opts) noexcept;

/// softmax(Q·Kᵀ / √d_k)·V of every item: (B x L x d_k), (B x S x d_k), (B x S x d_v) -> B x L x d_v.
template <Batch Q, Batch K, Batch V, AttentionOption... O>
requires rules_hold<rules_of::batch_scaled_dot_product_attention<Q, K, V, O...>>
constexpr auto scaled_dot_product_attention(const Q& q, const K& k, const V& v, const O&... opts) noexcept {
  return detail::map_items<Q::batch_extent>([&](std::size_t b) {
    return scaled_dot_product_attention(q.items[b], k.items[b], v.items[b], detail::item_option(opts, b)...);
  });
}

/// Shape error of batched scaled_dot_product_attention: different B, or the error of one item.
template <Batch Q, Batch K, Batch V, AttentionOption... O>
decltype(detail::first_failure<rules_of::batch_scaled_dot_product_attention<Q, K, V, O...>>::error())
scaled_dot_product_attention(const Q& q, const K& k, const V& v, const O&... opts) noexcept;

/// Self-attention of every item of X (B x n x d_model) with shared projections Wq, Wk, Wv:
/// B x n x d_v.
template <Batch X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
requires rules_hold<rules_of::batch_self_attention<X, Wq, Wk, Wv, O...>>
constexpr auto self_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept {
  return detail::map_items<X::batch_extent>(
      [&](std::size_t b) { return self_attention(x.items[b], wq, wk, wv, detail::item_option(opts, b)...); });
}

/// Shape error of batched self_attention: the error of one item.
template <Batch X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
decltype(detail::first_failure<rules_of::batch_self_attention<X, Wq, Wk, Wv, O...>>::error()) self_attention(
    const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

/// Multi-head self-attention (block form) of every item of X (B x n x d_model), with shared
/// weights: B x n x (H·d_v).
template <std::size_t H, Batch X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
requires rules_hold<rules_of::batch_multi_head_attention<H, X, Wq, Wk, Wv, O...>>
constexpr auto multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept {
  return detail::map_items<X::batch_extent>(
      [&](std::size_t b) { return multi_head_attention<H>(x.items[b], wq, wk, wv, detail::item_option(opts, b)...); });
}

/// Shape error of batched multi_head_attention<H> (no W_o): the error of one item.
template <std::size_t H, Batch X, Matrix Wq, Matrix Wk, Matrix Wv, AttentionOption... O>
decltype(detail::first_failure<rules_of::batch_multi_head_attention<H, X, Wq, Wk, Wv, O...>>::error())
multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

/// Multi-head self-attention with W_o of every item of X: B x n x d_out.
template <std::size_t H, Batch X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
requires rules_hold<rules_of::batch_multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>
constexpr auto multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                                    const O&... opts) noexcept {
  return detail::map_items<X::batch_extent>([&](std::size_t b) {
    return multi_head_attention<H>(x.items[b], wq, wk, wv, wo, detail::item_option(opts, b)...);
  });
}

/// Shape error of batched multi_head_attention<H> with W_o: the error of one item.
template <std::size_t H, Batch X, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
decltype(detail::first_failure<rules_of::batch_multi_head_attention_wo<H, X, Wq, Wk, Wv, Wo, O...>>::error())
multi_head_attention(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo, const O&... opts) noexcept;

/// Grouped-query cross-attention of every item pair (X_q[b], X_kv[b]), without W_o:
/// B x L x (H·d_v).
template <std::size_t H, std::size_t Hkv = H, Batch Xq, Batch Xkv, Matrix Wq, Matrix Wk, Matrix Wv,
          AttentionOption... O>
requires rules_hold<rules_of::batch_grouped_query_attention<H, Hkv, Xq, Xkv, Wq, Wk, Wv, O...>>
constexpr auto grouped_query_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv,
                                       const O&... opts) noexcept {
  return detail::map_items<Xq::batch_extent>([&](std::size_t b) {
    return grouped_query_attention<H, Hkv>(xq.items[b], xkv.items[b], wq, wk, wv, detail::item_option(opts, b)...);
  });
}

/// Shape error of batched grouped_query_attention<H, H_kv> (no W_o).
template <std::size_t H, std::size_t Hkv = H, Batch Xq, Batch Xkv, Matrix Wq, Matrix Wk, Matrix Wv,
          AttentionOption... O>
decltype(detail::first_failure<rules_of::batch_grouped_query_attention<H, Hkv, Xq, Xkv, Wq, Wk, Wv, O...>>::error())
grouped_query_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv,
                        const O&... opts) noexcept;

/// Grouped-query cross-attention with W_o of every item pair: B x L x d_out.
template <std::size_t H, std::size_t Hkv = H, Batch Xq, Batch Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo,
          AttentionOption... O>
requires rules_hold<rules_of::batch_grouped_query_attention_wo<H, Hkv, Xq, Xkv, Wq, Wk, Wv, Wo, O...>>
constexpr auto grouped_query_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv,
                                       const Wo& wo, const O&... opts) noexcept {
  return detail::map_items<Xq::batch_extent>([&](std::size_t b) {
    return grouped_query_attention<H, Hkv>(xq.items[b], xkv.items[b], wq, wk, wv, wo, detail::item_option(opts, b)...);
  });
}

/// Shape error of batched grouped_query_attention<H, H_kv> with W_o.
template <std::size_t H, std::size_t Hkv = H, Batch Xq, Batch Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo,
          AttentionOption... O>
decltype(detail::first_failure<
         rules_of::batch_grouped_query_attention_wo<H, Hkv, Xq, Xkv, Wq, Wk, Wv, Wo, O...>>::error())
grouped_query_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                        const O&... opts) noexcept;

/// Multi-head cross-attention with W_o of every item pair (H_kv = H): B x L x d_out.
template <std::size_t H, Batch Xq, Batch Xkv, Matrix Wq, Matrix Wk, Matrix Wv, Matrix Wo, AttentionOption... O>
constexpr auto cross_attention(const Xq& xq, const Xkv& xkv, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                               const O&... opts) noexcept
    -> decltype(grouped_query_attention<H, H>(xq, xkv, wq, wk, wv, wo, opts...)) {
  return grouped_query_attention<H, H>(xq, xkv, wq, wk, wv, wo, opts...);
}

}  // namespace cxmat
