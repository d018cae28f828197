// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The shape rules of the transformer layer (norms, linear maps, feed-forward, embeddings,
// encoder and decoder layers): each rule bound once to the shape error it reports (namespace
// cxmat::rule) and one rule list per function (namespace cxmat::rules_of), as in
// core/shape_rules.hpp and attention/rules.hpp. The layers' attention reuses the attention rule
// lists, so a mask of the wrong shape reports the attention error.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// layer_norm, rms_norm: gamma (and beta) are 1 x d for rows of width d.
template <auto WCols, auto XCols>
concept NormWeightFitsRows = compatible_extents<WCols, XCols>;

/// linear(x, w, b): x is n x d_in, w is d_in x d_out, b is 1 x d_out.
template <auto XCols, auto WRows>
concept LinearFitsInput = compatible_extents<XCols, WRows>;

/// feed_forward, swiglu: the hidden width d_ff of the first linear map is the second one's input.
template <auto W1Cols, auto W2Rows>
concept HiddenWidthsMatch = compatible_extents<W1Cols, W2Rows>;

/// An encoder or decoder layer: H heads divide d_model (each head is d_model / H wide).
template <std::size_t H, auto DModel>
concept HeadsDivideModelWidth = (H > 0) && (DModel.size % H == 0);

/// layer(x, ws, ...): ws is the workspace the call computes in, workspace_for<Layer, n> for x's n
/// rows (a decoder layer's and a cross-attention's: workspace_for<Layer, n, s>, s memory rows).
template <class W, class Expected>
concept WorkspaceFitsCall = std::is_same_v<W, Expected>;

/// embedding(table, tokens): token indices are integers (not bool, not floating point).
template <class I>
concept TokenIndex = std::is_integral_v<I> && !std::is_same_v<I, bool>;

namespace shape_error {
template <class WCols, class XCols>
struct norm_gamma_and_beta_must_be_1_by_x_cols;  // layer_norm(x, gamma, beta, eps): x is n x d, gamma and beta 1 x d
template <class XCols, class WRows, class WCols>
struct linear_x_cols_must_equal_w_rows;  // linear(x, w, b): w is d_in x d_out (nn.Linear stores d_out x d_in)
template <class BCols, class WCols>
struct linear_bias_must_be_1_by_w_cols;  // linear(x, w, b): b is 1 x d_out, one entry per column of w
template <class W1Cols, class W2Rows>
struct feed_forward_hidden_widths_must_match;  // d_model -> d_ff -> d_model: w1 is d_model x d_ff, w2 d_ff x d_model
template <class GateCols, class UpCols>
struct swiglu_gate_and_up_widths_must_match;  // silu(x·w_gate) ⊙ (x·w_up): both are d_model x d_ff
template <std::size_t H, class DModel>
struct transformer_layer_h_must_divide_d_model;  // H heads of width d_model / H: pick H dividing d_model
template <class XCols, class DModel>
struct transformer_layer_x_cols_must_equal_d_model;  // layer(x): x is n x d_model of the layer
template <class MemoryCols, class DModel>
struct decoder_layer_memory_cols_must_equal_d_model;  // layer(x, memory): memory is S x d_model (the encoder's output)
template <class Workspace, class Expected>
struct layer_workspace_must_be_workspace_for_the_call;  // layer(x, ws): ws is workspace_for<Layer, n>, n = x's rows
template <class I>
struct embedding_tokens_must_be_integers;  // embedding(table, tokens): tokens is a 1 x n row of integer indices
template <class TokenRows>
struct embedding_tokens_must_be_one_row;  // embedding(table, tokens): tokens is 1 x n (one index per position)
template <class XCols, class TableCols>
struct logits_x_cols_must_equal_table_cols;  // logits(x, table) = x·tableᵀ: table is vocab x d_model
template <class T>
struct transformer_layer_needs_matching_element_types;  // x has the layer's element type T: convert explicitly
}  // namespace shape_error

namespace rule {
template <auto WCols, auto XCols>
using norm_weight_width =
    detail::check<NormWeightFitsRows<WCols, XCols>,
                  shape_error::norm_gamma_and_beta_must_be_1_by_x_cols<dim_of<WCols>, dim_of<XCols>>>;
template <auto XCols, auto WRows, auto WCols>
using linear_input =
    detail::check<LinearFitsInput<XCols, WRows>,
                  shape_error::linear_x_cols_must_equal_w_rows<dim_of<XCols>, dim_of<WRows>, dim_of<WCols>>>;
template <auto BCols, auto WCols>
using linear_bias = detail::check<compatible_extents<BCols, WCols>,
                                  shape_error::linear_bias_must_be_1_by_w_cols<dim_of<BCols>, dim_of<WCols>>>;
template <auto W1Cols, auto W2Rows>
using hidden_widths = detail::check<HiddenWidthsMatch<W1Cols, W2Rows>,
                                    shape_error::feed_forward_hidden_widths_must_match<dim_of<W1Cols>, dim_of<W2Rows>>>;
template <auto GateCols, auto UpCols>
using gate_up_widths =
    detail::check<compatible_extents<GateCols, UpCols>,
                  shape_error::swiglu_gate_and_up_widths_must_match<dim_of<GateCols>, dim_of<UpCols>>>;
template <std::size_t H, auto DModel>
using heads_divide_model = detail::check<HeadsDivideModelWidth<H, DModel>,
                                         shape_error::transformer_layer_h_must_divide_d_model<H, dim_of<DModel>>>;
template <auto XCols, auto DModel>
using layer_input =
    detail::check<compatible_extents<XCols, DModel>,
                  shape_error::transformer_layer_x_cols_must_equal_d_model<dim_of<XCols>, dim_of<DModel>>>;
template <auto MCols, auto DModel>
using memory_width =
    detail::check<compatible_extents<MCols, DModel>,
                  shape_error::decoder_layer_memory_cols_must_equal_d_model<dim_of<MCols>, dim_of<DModel>>>;
template <class W, class Expected>
using layer_workspace = detail::check<WorkspaceFitsCall<W, Expected>,
                                      shape_error::layer_workspace_must_be_workspace_for_the_call<W, Expected>>;
template <class I>
using token_index = detail::check<TokenIndex<I>, shape_error::embedding_tokens_must_be_integers<I>>;
template <auto Rows>
using token_row = detail::check<Rows.size == 1, shape_error::embedding_tokens_must_be_one_row<dim_of<Rows>>>;
template <auto XCols, auto TableCols>
using logits_width = detail::check<compatible_extents<XCols, TableCols>,
                                   shape_error::logits_x_cols_must_equal_table_cols<dim_of<XCols>, dim_of<TableCols>>>;
template <class T, class U>
using layer_element =
    detail::check<std::is_same_v<T, U>, shape_error::transformer_layer_needs_matching_element_types<U>>;
}  // namespace rule

namespace rules_of {
template <class T>
using activation = detail::rule_list<rule::real_elements<T>>;
template <class T, auto XCols, auto GammaCols, auto BetaCols>
using layer_norm = detail::rule_list<rule::real_elements<T>, rule::norm_weight_width<GammaCols, XCols>,
                                     rule::norm_weight_width<BetaCols, XCols>>;
template <class T, auto XCols, auto GammaCols>
using rms_norm = detail::rule_list<rule::real_elements<T>, rule::norm_weight_width<GammaCols, XCols>>;
template <class T, auto XCols, auto WRows, auto WCols, auto BCols>
using linear =
    detail::rule_list<rule::real_elements<T>, rule::linear_input<XCols, WRows, WCols>, rule::linear_bias<BCols, WCols>>;
template <class T, auto XCols, auto W1Rows, auto W1Cols, auto B1Cols, auto W2Rows, auto W2Cols, auto B2Cols>
using feed_forward = detail::rule_list<rule::real_elements<T>, rule::linear_input<XCols, W1Rows, W1Cols>,
                                       rule::linear_bias<B1Cols, W1Cols>, rule::hidden_widths<W1Cols, W2Rows>,
                                       rule::linear_bias<B2Cols, W2Cols>>;
template <class T, auto XCols, auto GRows, auto GCols, auto URows, auto UCols, auto DRows>
using swiglu = detail::rule_list<rule::real_elements<T>, rule::linear_input<XCols, GRows, GCols>,
                                 rule::linear_input<XCols, URows, UCols>, rule::gate_up_widths<GCols, UCols>,
                                 rule::hidden_widths<GCols, DRows>>;
template <class I, auto TokenRows>
using embedding = detail::rule_list<rule::token_index<I>, rule::token_row<TokenRows>>;
template <class T, auto XCols, auto TableCols>
using logits = detail::rule_list<rule::numeric_elements<T>, rule::logits_width<XCols, TableCols>>;
// A call in the caller's workspace ws (of type W): the call's rules List, then ws's type.
template <class List, class W, class Expected>
using in_workspace = detail::join_t<List, detail::rule_list<rule::layer_workspace<W, Expected>>>;
// A layer's own type: its heads divide its width.
template <std::size_t H, auto DModel>
using transformer_layer_type = detail::rule_list<rule::heads_divide_model<H, DModel>>;
// A call layer(x, ...) of a layer of element type T and width d_model: x's element type and width.
template <class T, auto DModel, class X>
using transformer_layer_input =
    detail::rule_list<rule::layer_element<T, detail::element_of<X>>, rule::layer_input<detail::cols_of<X>, DModel>>;
}  // namespace rules_of

namespace detail {
// Checks a rule list where no overload can drop out (the body of a class template):
// `static_assert(require_rules<List>::value)` is one compile error naming the shape error of the
// first broken rule (the incomplete base, as an error overload's return type would; in plain mode
// its sentence), and nothing when every rule holds.
template <class List, bool = holds_v<List>>
struct require_rules {
  static constexpr bool value = true;
};
template <class List>
struct require_rules<List, false> : decltype(first_failure<List>::error()) {
  static constexpr bool value = true;
};
}  // namespace detail

}  // namespace cxmat

#include <cxmat/transformer/plain_errors.hpp>
