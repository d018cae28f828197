// Batched shapes: the operations of cxmat applied to every matrix of a batch<T, B, Rows, Cols>
// (a B x n x d input, as in worksheet 003 part 1). Weights are plain matrices shared by every
// batch item; activations, attention weights and outputs are batches and carry B in their type.
// Two batches combine only when their B agree (size, and name where both are named).
//
// Each operation is the unbatched one applied item by item, so it has the same rules, the same
// names in its result and the same shape errors, plus shape_error::batch_sizes_must_match.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/attention/single_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/attention/multi_head.hpp>
#include <cxmat/core/shape_rules.hpp>
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

template <auto B1, auto B2>
using batch_check = check<BatchSizesMatch<B1, B2>, shape_error::batch_sizes_must_match<dim_of<B1>, dim_of<B2>>>;

// A per-item call that is valid, with its result (a matrix) or its shape error (decltype of an
// error overload's call names the error).
template <bool Valid, class Result>
using item_check = check<Valid, Result>;

template <class... M>
concept SdpaCallable = requires(const M&... m) { scaled_dot_product_attention(m...); };
template <class... M>
concept ScoresCallable = requires(const M&... m) { attention_scores(m...); };
template <class... M>
concept WeightsCallable = requires(const M&... m) { attention_weights(m...); };
template <class... M>
concept SelfAttentionCallable = requires(const M&... m) { self_attention(m...); };
template <std::size_t H, class... M>
concept MultiHeadCallable = requires(const M&... m) { multi_head_attention<H>(m...); };

// Per-item options: a batch_key_padding_mask gives item b the key-padding mask of its row b;
// every other option applies to all items alike.
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

}  // namespace detail

/// Transpose of every item: B x R x C -> B x C x R (names swap as for a matrix).
template <class T, extent B, extent R, extent C>
constexpr batch<T, B, C, R> transpose(const batch<T, B, R, C>& x) noexcept {
  return detail::map_items<B>([&x](std::size_t b) { return transpose(x.items[b]); });
}

/// Every item times a shared matrix: (B x R x K)·(K x C) -> B x R x C, e.g. Q = X·Wq for a batch
/// of inputs X and one projection Wq.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
  requires InnerExtentsMatch<K1, K2>
constexpr batch<T, B, R, C> matmul(const batch<T, B, R, K1>& x, const matrix<T, K2, C>& w) noexcept {
  return detail::map_items<B>([&x, &w](std::size_t b) { return matmul(x.items[b], w); });
}

/// Shape error: batch times matrix with x.cols != w.rows.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
  requires(!InnerExtentsMatch<K1, K2>)
shape_error::matmul_a_cols_must_equal_b_rows<dim_of<K1>, dim_of<K2>> matmul(const batch<T, B, R, K1>& x,
                                                                            const matrix<T, K2, C>& w) noexcept;

/// Item by item product of two batches: (B x R x K)·(B x K x C) -> B x R x C, e.g. the scores
/// Q·Kᵀ of every sequence. The two B must agree.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
  requires BatchSizesMatch<B1, B2> && InnerExtentsMatch<K1, K2>
constexpr batch<T, common_extent_v<B1, B2>, R, C> matmul(const batch<T, B1, R, K1>& a,
                                                         const batch<T, B2, K2, C>& b) noexcept {
  return detail::map_items<common_extent_v<B1, B2>>(
      [&a, &b](std::size_t i) { return matmul(a.items[i], b.items[i]); });
}

/// Shape error: item by item product with different B, or a.cols != b.rows.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
decltype(detail::first_failure<
    detail::batch_check<B1, B2>,
    detail::check<InnerExtentsMatch<K1, K2>,
                  shape_error::matmul_a_cols_must_equal_b_rows<dim_of<K1>, dim_of<K2>>>>::error())
matmul(const batch<T, B1, R, K1>& a, const batch<T, B2, K2, C>& b) noexcept;

/// x * w is matmul(x, w) for a batch x and a matrix w.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
  requires InnerExtentsMatch<K1, K2>
constexpr batch<T, B, R, C> operator*(const batch<T, B, R, K1>& x, const matrix<T, K2, C>& w) noexcept {
  return matmul(x, w);
}

/// Shape error: x * w with x.cols != w.rows.
template <class T, extent B, extent R, extent K1, extent K2, extent C>
  requires(!InnerExtentsMatch<K1, K2>)
shape_error::matmul_a_cols_must_equal_b_rows<dim_of<K1>, dim_of<K2>> operator*(const batch<T, B, R, K1>& x,
                                                                               const matrix<T, K2, C>& w) noexcept;

/// a * b is matmul(a, b) for two batches.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
  requires BatchSizesMatch<B1, B2> && InnerExtentsMatch<K1, K2>
constexpr batch<T, common_extent_v<B1, B2>, R, C> operator*(const batch<T, B1, R, K1>& a,
                                                            const batch<T, B2, K2, C>& b) noexcept {
  return matmul(a, b);
}

/// Shape error: a * b for batches with different B, or a.cols != b.rows.
template <class T, extent B1, extent R, extent K1, extent B2, extent K2, extent C>
decltype(detail::first_failure<
    detail::batch_check<B1, B2>,
    detail::check<InnerExtentsMatch<K1, K2>,
                  shape_error::matmul_a_cols_must_equal_b_rows<dim_of<K1>, dim_of<K2>>>>::error())
operator*(const batch<T, B1, R, K1>& a, const batch<T, B2, K2, C>& b) noexcept;

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

/// Scores Q·Kᵀ / √d_k of every item: (B x L x d_k), (B x S x d_k) -> B x L x S.
template <class T, extent B1, extent L, extent DK1, extent B2, extent S, extent DK2, class... O>
  requires BatchSizesMatch<B1, B2> &&
           detail::ScoresCallable<matrix<T, L, DK1>, matrix<T, S, DK2>, detail::item_option_t<O>...> &&
           (detail::option_fits_batch<O, B1> && ...)
constexpr auto attention_scores(const batch<T, B1, L, DK1>& q, const batch<T, B2, S, DK2>& k,
                                const O&... opts) noexcept {
  return detail::map_items<common_extent_v<B1, B2>>(
      [&](std::size_t b) { return attention_scores(q.items[b], k.items[b], detail::item_option(opts, b)...); });
}

/// Shape error of batched attention_scores: different B, or the error of one item.
template <class T, extent B1, extent L, extent DK1, extent B2, extent S, extent DK2, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<
    detail::batch_check<B1, B2>,
    detail::item_check<detail::ScoresCallable<matrix<T, L, DK1>, matrix<T, S, DK2>, O...>,
                       decltype(attention_scores(std::declval<const matrix<T, L, DK1>&>(),
                                                 std::declval<const matrix<T, S, DK2>&>(),
                                                 std::declval<const O&>()...))>>::error())
attention_scores(const batch<T, B1, L, DK1>& q, const batch<T, B2, S, DK2>& k, const O&... opts) noexcept;

/// Attention weights softmax(Q·Kᵀ / √d_k) of every item: B x L x S.
template <class T, extent B1, extent L, extent DK1, extent B2, extent S, extent DK2, class... O>
  requires BatchSizesMatch<B1, B2> &&
           detail::WeightsCallable<matrix<T, L, DK1>, matrix<T, S, DK2>, detail::item_option_t<O>...> &&
           (detail::option_fits_batch<O, B1> && ...)
constexpr auto attention_weights(const batch<T, B1, L, DK1>& q, const batch<T, B2, S, DK2>& k,
                                 const O&... opts) noexcept {
  return detail::map_items<common_extent_v<B1, B2>>(
      [&](std::size_t b) { return attention_weights(q.items[b], k.items[b], detail::item_option(opts, b)...); });
}

/// Shape error of batched attention_weights: different B, or the error of one item.
template <class T, extent B1, extent L, extent DK1, extent B2, extent S, extent DK2, class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<
    detail::batch_check<B1, B2>,
    detail::item_check<detail::WeightsCallable<matrix<T, L, DK1>, matrix<T, S, DK2>, O...>,
                       decltype(attention_weights(std::declval<const matrix<T, L, DK1>&>(),
                                                  std::declval<const matrix<T, S, DK2>&>(),
                                                  std::declval<const O&>()...))>>::error())
attention_weights(const batch<T, B1, L, DK1>& q, const batch<T, B2, S, DK2>& k, const O&... opts) noexcept;

/// softmax(Q·Kᵀ / √d_k)·V of every item: (B x L x d_k), (B x S x d_k), (B x S x d_v) -> B x L x d_v.
/// The options (masks, bias, scale) apply to every item alike.
template <class T, extent B1, extent L, extent DK1, extent B2, extent S1, extent DK2, extent B3, extent S2, extent DV,
          class... O>
  requires BatchSizesMatch<B1, B2> && BatchSizesMatch<B1, B3> &&
           detail::SdpaCallable<matrix<T, L, DK1>, matrix<T, S1, DK2>, matrix<T, S2, DV>, detail::item_option_t<O>...> &&
           (detail::option_fits_batch<O, B1> && ...)
constexpr auto scaled_dot_product_attention(const batch<T, B1, L, DK1>& q, const batch<T, B2, S1, DK2>& k,
                                            const batch<T, B3, S2, DV>& v, const O&... opts) noexcept {
  return detail::map_items<common_extent_v<B1, B2>>(
      [&](std::size_t b) { return scaled_dot_product_attention(q.items[b], k.items[b], v.items[b], detail::item_option(opts, b)...); });
}

/// Shape error of batched scaled_dot_product_attention: different B, or the error of one item.
template <class T, extent B1, extent L, extent DK1, extent B2, extent S1, extent DK2, extent B3, extent S2, extent DV,
          class... O>
  requires(AttentionOption<O> && ...)
decltype(detail::first_failure<
    detail::batch_check<B1, B2>, detail::batch_check<B1, B3>,
    detail::item_check<detail::SdpaCallable<matrix<T, L, DK1>, matrix<T, S1, DK2>, matrix<T, S2, DV>, O...>,
                       decltype(scaled_dot_product_attention(
                           std::declval<const matrix<T, L, DK1>&>(), std::declval<const matrix<T, S1, DK2>&>(),
                           std::declval<const matrix<T, S2, DV>&>(), std::declval<const O&>()...))>>::error())
scaled_dot_product_attention(const batch<T, B1, L, DK1>& q, const batch<T, B2, S1, DK2>& k,
                             const batch<T, B3, S2, DV>& v, const O&... opts) noexcept;

/// Self-attention of every item of X (B x n x d_model) with shared projections Wq, Wk, Wv:
/// B x n x d_v.
template <class T, extent B, extent N, extent DM, class Wq, class Wk, class Wv, class... O>
  requires detail::SelfAttentionCallable<matrix<T, N, DM>, Wq, Wk, Wv, detail::item_option_t<O>...> && (detail::option_fits_batch<O, B> && ...)
constexpr auto self_attention(const batch<T, B, N, DM>& x, const Wq& wq, const Wk& wk, const Wv& wv,
                              const O&... opts) noexcept {
  return detail::map_items<B>([&](std::size_t b) { return self_attention(x.items[b], wq, wk, wv, detail::item_option(opts, b)...); });
}

/// Shape error of batched self_attention: the error of one item.
template <class T, extent B, extent N, extent DM, class Wq, class Wk, class Wv, class... O>
  requires Matrix<Wq> && Matrix<Wk> && Matrix<Wv> && (AttentionOption<O> && ...)
decltype(detail::first_failure<
    detail::item_check<detail::SelfAttentionCallable<matrix<T, N, DM>, Wq, Wk, Wv, O...>,
                       decltype(self_attention(std::declval<const matrix<T, N, DM>&>(), std::declval<const Wq&>(),
                                               std::declval<const Wk&>(), std::declval<const Wv&>(),
                                               std::declval<const O&>()...))>>::error())
self_attention(const batch<T, B, N, DM>& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) noexcept;

/// Multi-head self-attention (block form) of every item of X (B x n x d_model), with shared
/// weights and optional W_o as for the unbatched multi_head_attention<H>: B x n x (H·d_v), or
/// B x n x d_out with W_o.
template <std::size_t H, class T, extent B, extent N, extent DM, class... Rest>
  requires detail::MultiHeadCallable<H, matrix<T, N, DM>, Rest...>
constexpr auto multi_head_attention(const batch<T, B, N, DM>& x, const Rest&... rest) noexcept {
  return detail::map_items<B>([&](std::size_t b) { return multi_head_attention<H>(x.items[b], rest...); });
}

/// Shape error of batched multi_head_attention<H>: the error of one item.
template <std::size_t H, class T, extent B, extent N, extent DM, class... Rest>
  requires(Matrix<Rest> || ...)
decltype(detail::first_failure<
    detail::item_check<detail::MultiHeadCallable<H, matrix<T, N, DM>, Rest...>,
                       decltype(multi_head_attention<H>(std::declval<const matrix<T, N, DM>&>(),
                                                        std::declval<const Rest&>()...))>>::error())
multi_head_attention(const batch<T, B, N, DM>& x, const Rest&... rest) noexcept;

}  // namespace cxmat
