// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Shape errors of the transformer layer in plain words: in plain mode (CXMAT_PLAIN_ERRORS,
// core/config.hpp) each shape error of transformer/rules.hpp is defined here as a static_assert
// whose message is one sentence built at compile time. Outside plain mode this header defines
// nothing and the errors stay incomplete types.
#pragma once

#include <cstddef>

#include <cxmat/core/config.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/plain_errors.hpp>

#if CXMAT_PLAIN_ERRORS
namespace cxmat::detail::plain {

template <class WCols, class XCols>
constexpr sentence norm_weight_width() noexcept {
  return must_equal_sentence<WCols, XCols>(
      "layer_norm(x, gamma, beta, eps) / rms_norm(x, gamma, eps): ", "gamma's (or beta's) columns", "x's columns",
      ": the norm scales each of the d entries of a row (x is n x d, gamma and "
      "beta are 1 x d).");
}

// A transpose is mentioned only where the shapes single it out: w's columns fitting x's width
// mean w is stored d_out x d_in (PyTorch's layout; where to transpose it is the caller's to
// decide: where w is made, if it is used again); otherwise a width differs between two steps, and
// a transpose would not fit.
template <class XCols, class WRows, class WCols>
constexpr sentence linear_input() noexcept {
  sentence s = must_equal_sentence<XCols, WRows>("linear(x, w, b): ", "x's columns", "w's rows",
                                                 " (x is n x d_in, w is d_in x d_out).");
  if constexpr (fits<XCols, WCols>) {
    s.put(
        " w's columns fit x: w looks stored d_out x d_in, as PyTorch's nn.Linear stores its weight (cxmat's w is its "
        "transpose).");
  } else {
    s.put(
        " Neither w nor transpose(w) fits x: x's width or w's comes from a size chosen elsewhere (d_in, or d_ff "
        "of the map before).");
  }
  return s;
}

template <class BCols, class WCols>
constexpr sentence linear_bias() noexcept {
  return must_equal_sentence<BCols, WCols>("linear(x, w, b): ", "b's columns", "w's columns",
                                           ": b is 1 x d_out, one entry per output column.");
}

template <class W1Cols, class W2Rows>
constexpr sentence hidden_widths() noexcept {
  return must_equal_sentence<W1Cols, W2Rows>("feed-forward d_model -> d_ff -> d_model: ", "w1's columns", "w2's rows",
                                             " (w1 is d_model x d_ff, w2 is d_ff x d_model).");
}

template <class GateCols, class UpCols>
constexpr sentence gate_up_widths() noexcept {
  return must_equal_sentence<GateCols, UpCols>("swiglu(x, w_gate, w_up, w_down): ", "w_gate's columns",
                                               "w_up's columns",
                                               ": silu(x·w_gate) and x·w_up are multiplied entry by entry.");
}

template <std::size_t H, class DModel>
constexpr sentence heads_divide_model() noexcept {
  sentence s;
  s.put("encoder_layer / decoder_layer with H = ").put(H).put(" heads: H must divide d_model ");
  put_dim<DModel>(s);
  s.put(", each head is d_model / H wide, but ").put(DModel::size).put(" = ").put(H).put(" * ");
  s.put(H > 0 ? DModel::size / H : 0).put(" + ").put(H > 0 ? DModel::size % H : DModel::size).put(".");
  return s;
}

template <class XCols, class DModel>
constexpr sentence layer_input() noexcept {
  return must_equal_sentence<XCols, DModel>("layer(x, ...): ", "x's columns", "the layer's d_model",
                                            " (x is n x d_model).");
}

template <class MCols, class DModel>
constexpr sentence memory_width() noexcept {
  return must_equal_sentence<MCols, DModel>("layer(x, memory, ...): ", "memory's columns", "the layer's d_model",
                                            " (memory is S x d_model, the encoder's output).");
}

template <class W, class Expected>
constexpr sentence layer_workspace() noexcept {
  sentence s;
  s.put(
      "layer(x, ws, ...): ws must be the call's workspace_for<Layer, n> (n = x's rows; a decoder layer's and a "
      "cross-attention's: workspace_for<Layer, n, s>, s = the memory's rows), a workspace for ");
  s.put(Expected::rows).put(" rows and ").put(Expected::key_rows).put(" keys; ws is one for ");
  s.put(W::rows).put(" rows and ").put(W::key_rows).put(" keys");
  if constexpr (W::rows == Expected::rows && W::key_rows == Expected::key_rows) {
    s.put(", of another kind of layer, width, d_ff or element type");
  }
  s.put(".");
  return s;
}

template <class I>
constexpr sentence token_index() noexcept {
  sentence s;
  s.put("embedding(table, tokens): token indices are integers, not ").put(type_name<I>());
  s.put(" (tokens is a 1 x n row of row numbers of the vocab x d_model table).");
  return s;
}

template <class Rows>
constexpr sentence token_row() noexcept {
  sentence s;
  s.put("embedding(table, tokens): tokens is one row of indices (1 x n), but it has ");
  put_dim<Rows>(s);
  s.put(" rows. Look up each row separately, or transpose a column of indices.");
  return s;
}

template <class XCols, class TableCols>
constexpr sentence logits_width() noexcept {
  return must_equal_sentence<XCols, TableCols>("logits(x, table) = x·tableᵀ: ", "x's columns", "the table's columns",
                                               " (x is n x d_model, the table vocab x d_model).");
}

template <class U>
constexpr sentence layer_element() noexcept {
  sentence s;
  s.put("layer(x, ...): x's elements (").put(type_name<U>());
  s.put(") must be the layer's element type; convert x explicitly.");
  return s;
}

}  // namespace cxmat::detail::plain

namespace cxmat::shape_error {
template <class WCols, class XCols>
struct norm_gamma_and_beta_must_be_1_by_x_cols {
  static_assert(false, detail::plain::norm_weight_width<WCols, XCols>());
};
template <class XCols, class WRows, class WCols>
struct linear_x_cols_must_equal_w_rows {
  static_assert(false, detail::plain::linear_input<XCols, WRows, WCols>());
};
template <class BCols, class WCols>
struct linear_bias_must_be_1_by_w_cols {
  static_assert(false, detail::plain::linear_bias<BCols, WCols>());
};
template <class W1Cols, class W2Rows>
struct feed_forward_hidden_widths_must_match {
  static_assert(false, detail::plain::hidden_widths<W1Cols, W2Rows>());
};
template <class GateCols, class UpCols>
struct swiglu_gate_and_up_widths_must_match {
  static_assert(false, detail::plain::gate_up_widths<GateCols, UpCols>());
};
template <std::size_t H, class DModel>
struct transformer_layer_h_must_divide_d_model {
  static_assert(false, detail::plain::heads_divide_model<H, DModel>());
};
template <class XCols, class DModel>
struct transformer_layer_x_cols_must_equal_d_model {
  static_assert(false, detail::plain::layer_input<XCols, DModel>());
};
template <class MCols, class DModel>
struct decoder_layer_memory_cols_must_equal_d_model {
  static_assert(false, detail::plain::memory_width<MCols, DModel>());
};
template <class W, class Expected>
struct layer_workspace_must_be_workspace_for_the_call {
  static_assert(false, detail::plain::layer_workspace<W, Expected>());
};
template <class I>
struct embedding_tokens_must_be_integers {
  static_assert(false, detail::plain::token_index<I>());
};
template <class Rows>
struct embedding_tokens_must_be_one_row {
  static_assert(false, detail::plain::token_row<Rows>());
};
template <class XCols, class TableCols>
struct logits_x_cols_must_equal_table_cols {
  static_assert(false, detail::plain::logits_width<XCols, TableCols>());
};
template <class U>
struct transformer_layer_needs_matching_element_types {
  static_assert(false, detail::plain::layer_element<U>());
};
}  // namespace cxmat::shape_error
#endif
