// Multi-head attention in per-head form: each head carries its own W^Q, W^K, W^V (worksheets
// 000 and 001 are written this way). Heads are a Boost.Hana tuple, so they may differ in width.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/hana/tuple.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/unpack.hpp>

#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/attention/single_head.hpp>
#include <cxmat/ops/blocks.hpp>
#include <cxmat/core/matrix.hpp>

namespace cxmat {

/// One attention head's projections: Q = X·wq, K = X·wk, V = X·wv.
/// `attention_head{Wq, Wk, Wv}` deduces the three matrix types.
template <class Wq, class Wk, class Wv>
struct attention_head {
  Wq wq;
  Wk wk;
  Wv wv;
};

template <class Wq, class Wk, class Wv>
attention_head(Wq, Wk, Wv) -> attention_head<Wq, Wk, Wv>;

namespace detail {
template <class T>
inline constexpr bool is_attention_head_v = false;
template <class Wq, class Wk, class Wv>
inline constexpr bool is_attention_head_v<attention_head<Wq, Wk, Wv>> = true;

template <class T>
inline constexpr bool is_head_tuple_v = false;
template <class... H>
inline constexpr bool is_head_tuple_v<boost::hana::tuple<H...>> =
    (sizeof...(H) > 0) && (is_attention_head_v<H> && ...);
}  // namespace detail

/// A Boost.Hana tuple of attention_head values (one or more).
template <class Heads>
concept HeadTuple = detail::is_head_tuple_v<std::remove_cvref_t<Heads>>;

/// Gathers heads into the tuple the per-head functions take: `make_heads(head0, head1)`.
template <class... Heads>
  requires(sizeof...(Heads) > 0 && (detail::is_attention_head_v<Heads> && ...))
constexpr boost::hana::tuple<Heads...> make_heads(const Heads&... heads) noexcept {
  return boost::hana::tuple<Heads...>{heads...};
}

/// A head can attend over X: its projections fit X's width and its queries and keys agree.
template <class X, class Head>
concept HeadFitsInput = requires(const X& x, const Head& head) {
  self_attention(x, head.wq, head.wk, head.wv);
};

/// Each head's output Z_i = self_attention(X, W_i^Q, W_i^K, W_i^V), as a Hana tuple.
template <class T, extent N, extent DM, class... Heads>
  requires(HeadFitsInput<matrix<T, N, DM>, Heads> && ...)
constexpr auto head_outputs(const matrix<T, N, DM>& x, const boost::hana::tuple<Heads...>& heads) noexcept {
  return boost::hana::transform(heads, [&x](const auto& head) {
    return self_attention(x, head.wq, head.wk, head.wv);
  });
}

/// Each head's attention weights softmax(Q_i·K_iᵀ / √d_k) (n x n), as a Hana tuple.
template <class T, extent N, extent DM, class... Heads>
  requires(HeadFitsInput<matrix<T, N, DM>, Heads> && ...)
constexpr auto head_weights(const matrix<T, N, DM>& x, const boost::hana::tuple<Heads...>& heads) noexcept {
  return boost::hana::transform(heads, [&x](const auto& head) {
    return attention_weights(matmul(x, head.wq), matmul(x, head.wk));
  });
}

/// Multi-head self-attention, per-head form, without output projection: the heads' outputs
/// side by side, n x (d_v0 + d_v1 + ...).
template <class T, extent N, extent DM, class... Heads>
  requires(HeadFitsInput<matrix<T, N, DM>, Heads> && ...)
constexpr auto multi_head_attention(const matrix<T, N, DM>& x, const boost::hana::tuple<Heads...>& heads) noexcept {
  return boost::hana::unpack(head_outputs(x, heads),
                             [](const auto&... z) { return hconcat(z...); });
}

/// Multi-head self-attention, per-head form: Concat(Z_0, Z_1, ...)·W_o. W_o has one row per
/// concatenated column; the result is n x d_out.
template <class T, extent N, extent DM, class... Heads, extent WoR, extent DO>
  requires(HeadFitsInput<matrix<T, N, DM>, Heads> && ...) &&
          OutputProjectionFitsHeads<std::remove_cvref_t<decltype(multi_head_attention(
                                        std::declval<const matrix<T, N, DM>&>(),
                                        std::declval<const boost::hana::tuple<Heads...>&>()))>::col_extent,
                                    WoR>
constexpr matrix<T, N, DO> multi_head_attention(const matrix<T, N, DM>& x,
                                                const boost::hana::tuple<Heads...>& heads,
                                                const matrix<T, WoR, DO>& wo) noexcept {
  return matmul(multi_head_attention(x, heads), wo);
}

}  // namespace cxmat
