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
#include <cxmat/attention/rules.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

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
namespace detail {
template <class X, class Head>
struct head_rules;
template <class X, class Wq, class Wk, class Wv>
struct head_rules<X, attention_head<Wq, Wk, Wv>> {
  using type = rules_of::self_attention<X, Wq, Wk, Wv>;
};
template <class Head>
struct head_value_width;
template <class Wq, class Wk, class Wv>
struct head_value_width<attention_head<Wq, Wk, Wv>> {
  static constexpr auto value = Wv::col_extent;
};
}  // namespace detail

namespace rules_of {
/// Per-head form: every head's self-attention rules, head by head.
template <class X, class... Heads>
using per_head_attention = detail::join_t<typename detail::head_rules<X, Heads>::type...>;
/// Per-head form with W_o: the heads' rules, then W_o against the concatenated value widths.
template <class X, class Wo, class... Heads>
using per_head_attention_wo = detail::join_t<
    per_head_attention<X, Heads...>, detail::rule_list<rule::same_elements<X, Wo>>,
    output_projection<detail::joined_extent<detail::head_value_width<Heads>::value...>(), Wo>>;
}  // namespace rules_of

/// A head fits the input X when self_attention(X, Wq, Wk, Wv) does.
template <class X, class Head>
concept HeadFitsInput = rules_hold<typename detail::head_rules<X, Head>::type>;

/// Each head's output Z_i = self_attention(X, W_i^Q, W_i^K, W_i^V), as a Hana tuple.
template <Matrix X, class... Heads>
  requires rules_hold<rules_of::per_head_attention<X, Heads...>>
constexpr auto head_outputs(const X& x, const boost::hana::tuple<Heads...>& heads) noexcept {
  return boost::hana::transform(heads, [&x](const auto& head) {
    return self_attention(x, head.wq, head.wk, head.wv);
  });
}

/// Shape error of head_outputs(x, heads): the first broken rule of the first head that breaks one.
template <Matrix X, class... Heads>
decltype(detail::first_failure<rules_of::per_head_attention<X, Heads...>>::error()) head_outputs(
    const X& x, const boost::hana::tuple<Heads...>& heads) noexcept;

/// Each head's attention weights softmax(Q_i·K_iᵀ / √d_k) (n x n), as a Hana tuple.
template <Matrix X, class... Heads>
  requires rules_hold<rules_of::per_head_attention<X, Heads...>>
constexpr auto head_weights(const X& x, const boost::hana::tuple<Heads...>& heads) noexcept {
  return boost::hana::transform(heads, [&x](const auto& head) {
    return attention_weights(matmul(x, head.wq), matmul(x, head.wk));
  });
}

/// Shape error of head_weights(x, heads).
template <Matrix X, class... Heads>
decltype(detail::first_failure<rules_of::per_head_attention<X, Heads...>>::error()) head_weights(
    const X& x, const boost::hana::tuple<Heads...>& heads) noexcept;

/// Multi-head self-attention, per-head form, without output projection: the heads' outputs
/// side by side, n x (d_v0 + d_v1 + ...).
template <Matrix X, class... Heads>
  requires rules_hold<rules_of::per_head_attention<X, Heads...>>
constexpr auto multi_head_attention(const X& x, const boost::hana::tuple<Heads...>& heads) noexcept {
  return boost::hana::unpack(head_outputs(x, heads), [](const auto&... z) { return hconcat(z...); });
}

/// Shape error of multi_head_attention(x, heads).
template <Matrix X, class... Heads>
decltype(detail::first_failure<rules_of::per_head_attention<X, Heads...>>::error()) multi_head_attention(
    const X& x, const boost::hana::tuple<Heads...>& heads) noexcept;

/// Multi-head self-attention, per-head form: Concat(Z_0, Z_1, ...)·W_o. W_o has one row per
/// concatenated column; the result is n x d_out.
template <Matrix X, class... Heads, Matrix Wo>
  requires rules_hold<rules_of::per_head_attention_wo<X, Wo, Heads...>>
constexpr matrix<detail::element_of<X>, X::row_extent, Wo::col_extent> multi_head_attention(
    const X& x, const boost::hana::tuple<Heads...>& heads, const Wo& wo) noexcept {
  return matmul(multi_head_attention(x, heads), wo);
}

/// Shape error of multi_head_attention(x, heads, wo).
template <Matrix X, class... Heads, Matrix Wo>
decltype(detail::first_failure<rules_of::per_head_attention_wo<X, Wo, Heads...>>::error()) multi_head_attention(
    const X& x, const boost::hana::tuple<Heads...>& heads, const Wo& wo) noexcept;

}  // namespace cxmat
