// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Multi-head attention in per-head form: each head carries its own W^Q, W^K, W^V (worksheets
// 000 and 001 are written this way). Heads are a Boost.Hana tuple, so they may differ in width.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/hana/transform.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <cxmat/attention/detail/grouped_heads.hpp>
#include <cxmat/attention/multi_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/attention/single_head.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/ops/blocks.hpp>

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
inline constexpr bool is_head_tuple_v<boost::hana::tuple<H...>> = (sizeof...(H) > 0) && (is_attention_head_v<H> && ...);
}  // namespace detail

/// A Boost.Hana tuple of attention_head values (one or more).
template <class Heads>
concept HeadTuple = detail::is_head_tuple_v<std::remove_cvref_t<Heads>>;

/// Gathers heads into the tuple the per-head functions take: `make_heads(head0, head1)`.
template <class... Heads>
requires(sizeof...(Heads) > 0 &&
         (detail::is_attention_head_v<Heads> &&
          ...)) constexpr boost::hana::tuple<Heads...> make_heads(const Heads&... heads) noexcept {
  return boost::hana::tuple<Heads...>{heads...};
}

namespace detail {
// The options of a per-head call, as one type (a call has two packs: the heads and the options).
template <class... O>
struct option_list {};

// The rules of one head over X with the call's options: those of the block form with one head,
// whose output bias (if any) belongs to W_o and is checked there.
template <class X, class Head, class Options>
struct head_rules;
template <class X, class Wq, class Wk, class Wv, class... O>
struct head_rules<X, attention_head<Wq, Wk, Wv>, option_list<O...>> {
  using type = rules_of::multi_head_heads<1, X, Wq, Wk, Wv, O...>;
};
template <class Head>
struct head_value_width;
template <class Wq, class Wk, class Wv>
struct head_value_width<attention_head<Wq, Wk, Wv>> {
  static constexpr auto value = Wv::col_extent;
};

// One head's output over x with the options (query/key/value biases, masks, bias, scale).
template <class X, class Head, class... O>
constexpr auto head_output(const X& x, const Head& head, const O&... opts) noexcept {
  using T = element_of<X>;
  return grouped_attention<1, 1>(x, x, head.wq, head.wk, head.wv,
                                 static_cast<batch<T, 1, X::row_extent, X::row_extent>*>(nullptr), opts...);
}
}  // namespace detail

namespace rules_of {
/// Per-head form: every head's rules with the call's options, head by head.
template <class X, class Options, class... Heads>
using per_head_heads = detail::join_t<typename detail::head_rules<X, Heads, Options>::type...>;
template <class X, class Options, class... Heads>
struct per_head_attention_of;
template <class X, class... O, class... Heads>
struct per_head_attention_of<X, detail::option_list<O...>, Heads...> {
  using type = detail::join_t<per_head_heads<X, detail::option_list<O...>, Heads...>,
                              detail::rule_list<rule::no_output_bias<O...>>>;
};
/// Per-head form without W_o (the options' output bias has nowhere to go).
template <class X, class Options, class... Heads>
using per_head_attention = typename per_head_attention_of<X, Options, Heads...>::type;
// For a third argument that is not a matrix (an option: the form without W_o) there is no list
// (the overload is not viable for that reason alone), and forming one must not be an error.
template <class X, class Wo, class Options, class... Heads>
struct per_head_attention_wo_of {
  using type = detail::rule_list<>;
};
template <class X, Matrix Wo, class... O, class... Heads>
struct per_head_attention_wo_of<X, Wo, detail::option_list<O...>, Heads...> {
  using type =
      detail::join_t<per_head_heads<X, detail::option_list<O...>, Heads...>,
                     detail::rule_list<rule::same_elements<X, Wo>>,
                     output_projection<detail::joined_extent<detail::head_value_width<Heads>::value...>(), Wo, O...>>;
};
/// Per-head form with W_o: the heads' rules, then W_o against the concatenated value widths.
template <class X, class Wo, class Options, class... Heads>
using per_head_attention_wo = typename per_head_attention_wo_of<X, Wo, Options, Heads...>::type;
}  // namespace rules_of

/// A head fits the input X when self-attention of X with its projections does.
template <class X, class Head>
concept HeadFitsInput = rules_hold<typename detail::head_rules<X, Head, detail::option_list<>>::type>;

/// Each head's output Z_i = self_attention(X, W_i^Q, W_i^K, W_i^V, opts...), as a Hana tuple.
/// Takes the options of self_attention (masks, causal, bias, scale, query/key/value biases).
template <Matrix X, class... Heads, AttentionOption... O>
requires rules_hold<rules_of::per_head_attention<X, detail::option_list<O...>, Heads...>>
constexpr auto head_outputs(const X& x, const boost::hana::tuple<Heads...>& heads, const O&... opts) noexcept {
  return boost::hana::transform(heads, [&](const auto& head) { return detail::head_output(x, head, opts...); });
}

/// Shape error of head_outputs(x, heads, opts...): the first broken rule of the first head that breaks one.
template <Matrix X, class... Heads, AttentionOption... O>
decltype(detail::first_failure<rules_of::per_head_attention<X, detail::option_list<O...>, Heads...>>::error())
head_outputs(const X& x, const boost::hana::tuple<Heads...>& heads, const O&... opts) noexcept;

/// Each head's attention weights softmax(Q_i·K_iᵀ / √d_k) (n x n), as a Hana tuple, with the
/// same options.
template <Matrix X, class... Heads, AttentionOption... O>
requires rules_hold<rules_of::per_head_attention<X, detail::option_list<O...>, Heads...>>
constexpr auto head_weights(const X& x, const boost::hana::tuple<Heads...>& heads, const O&... opts) noexcept {
  return boost::hana::transform(
      heads, [&](const auto& head) { return multi_head_attention_weights<1>(x, head.wq, head.wk, opts...).items[0]; });
}

/// Shape error of head_weights(x, heads, opts...).
template <Matrix X, class... Heads, AttentionOption... O>
decltype(detail::first_failure<rules_of::per_head_attention<X, detail::option_list<O...>, Heads...>>::error())
head_weights(const X& x, const boost::hana::tuple<Heads...>& heads, const O&... opts) noexcept;

/// Multi-head self-attention, per-head form, without output projection: the heads' outputs
/// side by side, n x (d_v0 + d_v1 + ...). Options as for head_outputs.
template <Matrix X, class... Heads, AttentionOption... O>
requires rules_hold<rules_of::per_head_attention<X, detail::option_list<O...>, Heads...>>
constexpr auto multi_head_attention(const X& x, const boost::hana::tuple<Heads...>& heads, const O&... opts) noexcept {
  return boost::hana::unpack(heads,
                             [&](const auto&... head) { return hconcat(detail::head_output(x, head, opts...)...); });
}

/// Shape error of multi_head_attention(x, heads, opts...).
template <Matrix X, class... Heads, AttentionOption... O>
decltype(detail::first_failure<rules_of::per_head_attention<X, detail::option_list<O...>, Heads...>>::error())
multi_head_attention(const X& x, const boost::hana::tuple<Heads...>& heads, const O&... opts) noexcept;

/// Multi-head self-attention, per-head form: Concat(Z_0, Z_1, ...)·W_o (+ output_bias). W_o has
/// one row per concatenated column; the result is n x d_out.
template <Matrix X, class... Heads, Matrix Wo, AttentionOption... O>
requires rules_hold<rules_of::per_head_attention_wo<X, Wo, detail::option_list<O...>, Heads...>>
constexpr matrix<detail::element_of<X>, X::row_extent, Wo::col_extent> multi_head_attention(
    const X& x, const boost::hana::tuple<Heads...>& heads, const Wo& wo, const O&... opts) noexcept {
  const auto concat = boost::hana::unpack(
      heads, [&](const auto&... head) { return hconcat(detail::head_output(x, head, opts...)...); });
  return detail::project<projection::output>(concat, wo, opts...);
}

/// Shape error of multi_head_attention(x, heads, wo, opts...).
template <Matrix X, class... Heads, Matrix Wo, AttentionOption... O>
decltype(detail::first_failure<rules_of::per_head_attention_wo<X, Wo, detail::option_list<O...>, Heads...>>::error())
multi_head_attention(const X& x, const boost::hana::tuple<Heads...>& heads, const Wo& wo, const O&... opts) noexcept;

}  // namespace cxmat
