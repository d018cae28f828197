// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The shape rules of the attention functions: each rule bound once to the error it reports
// (namespace cxmat::rule), and one rule list per attention function (namespace cxmat::rules_of),
// over the argument types themselves. Every attention function and its error overload derive
// from its list here (see core/shape_rules.hpp for the mechanism).
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// grouped-query attention: the number of key/value heads H_kv divides the number of query
/// heads H (query head i reads key/value head i / (H / H_kv)).
template <std::size_t H, std::size_t Hkv>
concept KeyValueHeadsDivideQueryHeads = (H > 0) && (Hkv > 0) && (H % Hkv == 0);

/// grouped-query attention: a query head and its key/value head have the same width d_k.
template <auto QW, std::size_t H, auto KW, std::size_t Hkv>
concept HeadWidthsMatch = (H > 0) && (Hkv > 0) && (QW.size / H == KW.size / Hkv);

/// rotary position embedding: each head's width d_k is even, since rotary() turns pairs of a
/// head's columns (a width H does not divide is left to the rule that H divides it).
template <auto Width, std::size_t H, class... O>
concept RotaryHeadWidthIsEven = (detail::rotary_count<O...> == 0) ||
                                (detail::rotary_dims<std::remove_cvref_t<O>...> != 0) || (H == 0) ||
                                (Width.size % H != 0) || ((Width.size / H) % 2 == 0);

/// partial rotary position embedding (rotary<RotaryDims>): the rotated columns are an even number,
/// at most the head width d_k.
template <auto Width, std::size_t H, class... O>
concept RotaryDimsFitHead = (detail::rotary_dims<std::remove_cvref_t<O>...> == 0) || (H == 0) ||
                            (Width.size % H != 0) ||
                            ((detail::rotary_dims<std::remove_cvref_t<O>...> % 2 == 0) &&
                             (detail::rotary_dims<std::remove_cvref_t<O>...> <= Width.size / H));

namespace shape_error {
template <class HeadWidth>
struct rotary_head_width_must_be_even;  // rotary() turns pairs of columns (i, i + d_k/2) or (2i, 2i + 1) of each head
template <std::size_t RotaryDims, class HeadWidth>
struct rotary_dims_must_be_even_and_at_most_d_k;  // rotary<RotaryDims>() turns pairs among the first RotaryDims columns
template <std::size_t H, std::size_t Hkv>
struct grouped_query_h_kv_must_divide_h;  // H query heads share H_kv key/value heads: H = g * H_kv
template <std::size_t Hkv, class KWidth>
struct grouped_query_h_kv_must_divide_k_width;  // Wk is d_kv x (H_kv·d_k): key/value head j reads column block j
template <std::size_t Hkv, class VWidth>
struct grouped_query_h_kv_must_divide_v_width;  // Wv is d_kv x (H_kv·d_v): key/value head j reads column block j
template <class QHeadWidth, class KHeadWidth>
struct grouped_query_head_widths_must_match;  // a query head and its key/value head share d_k: Wq is H·d_k, Wk H_kv·d_k
                                              // wide
template <class... Elements>
struct attention_element_types_must_match;  // every matrix of one call has the same element type: convert explicitly
template <class... Options>
struct batch_key_padding_needs_a_batch;  // batch_key_padding(keep) gives row b to item b of a batch: pass a batch<...>
template <class... Options>
struct output_bias_needs_w_o;  // output_bias(b) is added to Concat(heads)·W_o: pass W_o, or add b to the result
template <class... Options>
struct attention_options_conflict;  // at most one scale() and one bias per projection in one call
template <class Projection, class BiasWidth, class ProjectionWidth>
struct projection_bias_width_must_match_projection;  // query_bias: width of X_q·W_q, key_bias: X_kv·W_k, ...
}  // namespace shape_error

namespace detail {

template <class M>
using element_of = typename std::remove_cvref_t<M>::value_type;
template <class M>
inline constexpr auto rows_of = std::remove_cvref_t<M>::row_extent;
template <class M>
inline constexpr auto cols_of = std::remove_cvref_t<M>::col_extent;

// The width of the projection bias of P among the options, or `Width` itself when there is none
// (no bias fits any projection).
template <projection P, auto Width, class... O>
struct bias_width {
  static constexpr auto value = Width;
};
template <projection P, auto Width, class O, class... Rest>
struct bias_width<P, Width, O, Rest...> : bias_width<P, Width, Rest...> {};
template <projection P, auto Width, class U, extent W, class... Rest>
struct bias_width<P, Width, projection_bias<P, U, W>, Rest...> {
  static constexpr auto value = W;
};

// The width of H heads of width VW / H_kv side by side (named H*(VW/H_kv) when VW is named, which
// simplifies back to VW's name when H = H_kv).
// Only formed where H_kv divides VW; elsewhere (a call that breaks that rule) an unnamed
// placeholder, so that the rule list can still be formed and report the broken rule.
template <std::size_t H, std::size_t Hkv, auto VW>
constexpr auto concat_width_of() noexcept {
  if constexpr (Hkv > 0 && VW.size % Hkv == 0) {
    return times_v<H, divided_v<VW, Hkv>>;
  } else {
    return extent<anonymous>{H};
  }
}
template <std::size_t H, std::size_t Hkv, auto VW>
inline constexpr auto concat_width = concat_width_of<H, Hkv, VW>();

}  // namespace detail

/// The attention rules, each bound once to its shape error.
namespace rule {
template <auto QCols, auto KCols>
using query_key_widths = detail::check<QueryKeyWidthsMatch<QCols, KCols>,
                                       shape_error::attention_q_and_k_widths_must_match<dim_of<QCols>, dim_of<KCols>>>;
template <auto KRows, auto VRows>
using key_value_lengths =
    detail::check<KeyValueLengthsMatch<KRows, VRows>,
                  shape_error::attention_k_and_v_lengths_must_match<dim_of<KRows>, dim_of<VRows>>>;
template <auto XCols, auto WRows>
using wq_fits_x = detail::check<ProjectionFitsInput<XCols, WRows>,
                                shape_error::projection_x_cols_must_equal_wq_rows<dim_of<XCols>, dim_of<WRows>>>;
template <auto XCols, auto WRows>
using wk_fits_x = detail::check<ProjectionFitsInput<XCols, WRows>,
                                shape_error::projection_x_cols_must_equal_wk_rows<dim_of<XCols>, dim_of<WRows>>>;
template <auto XCols, auto WRows>
using wv_fits_x = detail::check<ProjectionFitsInput<XCols, WRows>,
                                shape_error::projection_x_cols_must_equal_wv_rows<dim_of<XCols>, dim_of<WRows>>>;
template <auto WqCols, auto WkCols>
using wq_wk_widths = detail::check<QueryKeyWidthsMatch<WqCols, WkCols>,
                                   shape_error::projection_wq_and_wk_widths_must_match<dim_of<WqCols>, dim_of<WkCols>>>;
template <auto Width, std::size_t H>
using heads_divide_q_width =
    detail::check<HeadsDivideWidth<Width, H>, shape_error::multi_head_h_must_divide_q_width<H, dim_of<Width>>>;
template <auto Width, std::size_t H>
using heads_divide_v_width =
    detail::check<HeadsDivideWidth<Width, H>, shape_error::multi_head_h_must_divide_v_width<H, dim_of<Width>>>;
template <auto ConcatCols, auto WoRows>
using wo_fits_heads =
    detail::check<OutputProjectionFitsHeads<ConcatCols, WoRows>,
                  shape_error::output_projection_wo_rows_must_equal_h_times_d_v<dim_of<ConcatCols>, dim_of<WoRows>>>;
template <std::size_t H, std::size_t Hkv>
using kv_heads_divide_heads =
    detail::check<KeyValueHeadsDivideQueryHeads<H, Hkv>, shape_error::grouped_query_h_kv_must_divide_h<H, Hkv>>;
template <auto Width, std::size_t Hkv>
using kv_heads_divide_k_width = detail::check<HeadsDivideWidth<Width, Hkv>,
                                              shape_error::grouped_query_h_kv_must_divide_k_width<Hkv, dim_of<Width>>>;
template <auto Width, std::size_t Hkv>
using kv_heads_divide_v_width = detail::check<HeadsDivideWidth<Width, Hkv>,
                                              shape_error::grouped_query_h_kv_must_divide_v_width<Hkv, dim_of<Width>>>;
template <auto QW, std::size_t H, auto KW, std::size_t Hkv>
using head_widths =
    detail::check<HeadWidthsMatch<QW, H, KW, Hkv>,
                  shape_error::grouped_query_head_widths_must_match<dim<(H > 0 ? QW.size / H : 0), anonymous>,
                                                                    dim<(Hkv > 0 ? KW.size / Hkv : 0), anonymous>>>;
template <class M0, class... Ms>
using same_elements =
    detail::check<(std::is_same_v<detail::element_of<M0>, detail::element_of<Ms>> && ...),
                  shape_error::attention_element_types_must_match<detail::element_of<M0>, detail::element_of<Ms>...>>;
template <class M>
using real_matrix_elements = real_elements<detail::element_of<M>>;
// Options that act on the L x S scores (attention on given Q, K, V: no projection biases).
template <class T, auto L, auto S, class... O>
using score_options_fit =
    detail::check<(ScoreOptionFits<O, T, L, S> && ...),
                  shape_error::attention_options_must_fit_l_by_s_scores<dim_of<L>, dim_of<S>, O...>>;
// Options of attention with projections: the score options and projection biases.
template <class T, auto L, auto S, class... O>
using options_fit = detail::check<(OptionFitsScores<O, T, L, S> && ...),
                                  shape_error::attention_options_must_fit_l_by_s_scores<dim_of<L>, dim_of<S>, O...>>;
template <class... O>
using no_batch_options = detail::check<!(detail::is_batch_option_v<std::remove_cvref_t<O>> || ...),
                                       shape_error::batch_key_padding_needs_a_batch<O...>>;
template <class... O>
using no_output_bias = detail::check<detail::projection_bias_count<projection::output, O...> == 0,
                                     shape_error::output_bias_needs_w_o<O...>>;
template <class... O>
using options_consistent = detail::check<OptionsAreConsistent<O...>, shape_error::attention_options_conflict<O...>>;
// The head width of H heads in Width columns: Width itself (with its name) for one head.
template <auto Width, std::size_t H>
using head_width_dim = std::conditional_t<H == 1, dim_of<Width>, dim<(H > 0 ? Width.size / H : 0), anonymous>>;
template <auto Width, std::size_t H, class... O>
using rotary_even_head_width = detail::check<RotaryHeadWidthIsEven<Width, H, O...>,
                                             shape_error::rotary_head_width_must_be_even<head_width_dim<Width, H>>>;
template <auto Width, std::size_t H, class... O>
using rotary_dims_fit_head =
    detail::check<RotaryDimsFitHead<Width, H, O...>,
                  shape_error::rotary_dims_must_be_even_and_at_most_d_k<detail::rotary_dims<std::remove_cvref_t<O>...>,
                                                                        head_width_dim<Width, H>>>;
template <projection P, auto Width, class... O>
using bias_width = detail::check<
    compatible_extents<detail::bias_width<P, Width, O...>::value, Width>,
    shape_error::projection_bias_width_must_match_projection<
        std::integral_constant<projection, P>, dim_of<detail::bias_width<P, Width, O...>::value>, dim_of<Width>>>;
}  // namespace rule

/// One rule list per attention function, over its argument types (matrices, then options).
namespace rules_of {

template <class Q, class K, class... O>
using attention_scores =
    detail::rule_list<rule::same_elements<Q, K>, rule::real_matrix_elements<Q>,
                      rule::query_key_widths<detail::cols_of<Q>, detail::cols_of<K>>, rule::no_batch_options<O...>,
                      rule::score_options_fit<detail::element_of<Q>, detail::rows_of<Q>, detail::rows_of<K>, O...>,
                      rule::options_consistent<O...>, rule::rotary_even_head_width<detail::cols_of<Q>, 1, O...>,
                      rule::rotary_dims_fit_head<detail::cols_of<Q>, 1, O...>>;

template <class Q, class K, class V, class... O>
using scaled_dot_product_attention =
    detail::rule_list<rule::same_elements<Q, K, V>, rule::real_matrix_elements<Q>,
                      rule::query_key_widths<detail::cols_of<Q>, detail::cols_of<K>>,
                      rule::key_value_lengths<detail::rows_of<K>, detail::rows_of<V>>, rule::no_batch_options<O...>,
                      rule::score_options_fit<detail::element_of<Q>, detail::rows_of<Q>, detail::rows_of<K>, O...>,
                      rule::options_consistent<O...>, rule::rotary_even_head_width<detail::cols_of<Q>, 1, O...>,
                      rule::rotary_dims_fit_head<detail::cols_of<Q>, 1, O...>>;

// Projections of X_q (queries) and X_kv (keys, values) by Wq, Wk, Wv, and the options' fit.
template <class Xq, class Xkv, class Wq, class Wk, class Wv, class... O>
using projections =
    detail::rule_list<rule::same_elements<Xq, Xkv, Wq, Wk, Wv>, rule::real_matrix_elements<Xq>,
                      rule::wq_fits_x<detail::cols_of<Xq>, detail::rows_of<Wq>>,
                      rule::wk_fits_x<detail::cols_of<Xkv>, detail::rows_of<Wk>>,
                      rule::wv_fits_x<detail::cols_of<Xkv>, detail::rows_of<Wv>>, rule::no_batch_options<O...>,
                      rule::options_fit<detail::element_of<Xq>, detail::rows_of<Xq>, detail::rows_of<Xkv>, O...>,
                      rule::options_consistent<O...>, rule::bias_width<projection::query, detail::cols_of<Wq>, O...>,
                      rule::bias_width<projection::key, detail::cols_of<Wk>, O...>,
                      rule::bias_width<projection::value, detail::cols_of<Wv>, O...>>;

template <class X, class Wq, class Wk, class Wv, class... O>
using self_attention = detail::join_t<
    projections<X, X, Wq, Wk, Wv, O...>,
    detail::rule_list<rule::wq_wk_widths<detail::cols_of<Wq>, detail::cols_of<Wk>>,
                      rule::rotary_even_head_width<detail::cols_of<Wq>, 1, O...>,
                      rule::rotary_dims_fit_head<detail::cols_of<Wq>, 1, O...>, rule::no_output_bias<O...>>>;

template <std::size_t H, class Q, class K, class V, class... O>
using multi_head_attention_qkv =
    detail::join_t<scaled_dot_product_attention<Q, K, V, O...>,
                   detail::rule_list<rule::heads_divide_q_width<detail::cols_of<Q>, H>,
                                     rule::heads_divide_v_width<detail::cols_of<V>, H>,
                                     rule::rotary_even_head_width<detail::cols_of<Q>, H, O...>,
                                     rule::rotary_dims_fit_head<detail::cols_of<Q>, H, O...>>>;

// The heads of the block form, before W_o (shared by the forms with and without W_o).
template <std::size_t H, class X, class Wq, class Wk, class Wv, class... O>
using multi_head_heads = detail::join_t<projections<X, X, Wq, Wk, Wv, O...>,
                                        detail::rule_list<rule::wq_wk_widths<detail::cols_of<Wq>, detail::cols_of<Wk>>,
                                                          rule::heads_divide_q_width<detail::cols_of<Wq>, H>,
                                                          rule::heads_divide_v_width<detail::cols_of<Wv>, H>,
                                                          rule::rotary_even_head_width<detail::cols_of<Wq>, H, O...>,
                                                          rule::rotary_dims_fit_head<detail::cols_of<Wq>, H, O...>>>;

template <std::size_t H, class X, class Wq, class Wk, class Wv, class... O>
using multi_head_attention =
    detail::join_t<multi_head_heads<H, X, Wq, Wk, Wv, O...>, detail::rule_list<rule::no_output_bias<O...>>>;

// The output projection W_o of the heads' concatenation (concat_width wide), and its bias.
template <auto ConcatWidth, class Wo, class... O>
using output_projection = detail::rule_list<rule::wo_fits_heads<ConcatWidth, detail::rows_of<Wo>>,
                                            rule::bias_width<projection::output, detail::cols_of<Wo>, O...>>;

template <std::size_t H, class X, class Wq, class Wk, class Wv, class Wo, class... O>
using multi_head_attention_wo =
    detail::join_t<multi_head_heads<H, X, Wq, Wk, Wv, O...>, detail::rule_list<rule::same_elements<X, Wo>>,
                   output_projection<detail::cols_of<Wv>, Wo, O...>>;

template <std::size_t H, class X, class Wq, class Wk, class... O>
using multi_head_attention_weights = detail::join_t<
    projections<X, X, Wq, Wk, Wk, O...>,
    detail::rule_list<rule::wq_wk_widths<detail::cols_of<Wq>, detail::cols_of<Wk>>,
                      rule::heads_divide_q_width<detail::cols_of<Wq>, H>,
                      rule::rotary_even_head_width<detail::cols_of<Wq>, H, O...>,
                      rule::rotary_dims_fit_head<detail::cols_of<Wq>, H, O...>, rule::no_output_bias<O...>>>;

// The heads of grouped-query attention, before W_o.
template <std::size_t H, std::size_t Hkv, class Xq, class Xkv, class Wq, class Wk, class Wv, class... O>
using grouped_query_heads = detail::join_t<
    projections<Xq, Xkv, Wq, Wk, Wv, O...>,
    detail::rule_list<rule::kv_heads_divide_heads<H, Hkv>, rule::heads_divide_q_width<detail::cols_of<Wq>, H>,
                      rule::kv_heads_divide_k_width<detail::cols_of<Wk>, Hkv>,
                      rule::kv_heads_divide_v_width<detail::cols_of<Wv>, Hkv>,
                      rule::head_widths<detail::cols_of<Wq>, H, detail::cols_of<Wk>, Hkv>,
                      rule::rotary_even_head_width<detail::cols_of<Wq>, H, O...>,
                      rule::rotary_dims_fit_head<detail::cols_of<Wq>, H, O...>>>;

template <std::size_t H, std::size_t Hkv, class Xq, class Xkv, class Wq, class Wk, class Wv, class... O>
using grouped_query_attention = detail::join_t<grouped_query_heads<H, Hkv, Xq, Xkv, Wq, Wk, Wv, O...>,
                                               detail::rule_list<rule::no_output_bias<O...>>>;

template <std::size_t H, std::size_t Hkv, class Xq, class Xkv, class Wq, class Wk, class Wv, class Wo, class... O>
using grouped_query_attention_wo =
    detail::join_t<grouped_query_heads<H, Hkv, Xq, Xkv, Wq, Wk, Wv, O...>,
                   detail::rule_list<rule::same_elements<Xq, Wo>>,
                   output_projection<detail::concat_width<H, Hkv, detail::cols_of<Wv>>, Wo, O...>>;

}  // namespace rules_of

}  // namespace cxmat

#include <cxmat/attention/plain_errors.hpp>
