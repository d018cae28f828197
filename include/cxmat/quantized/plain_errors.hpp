// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Shape errors of the int8 layer (cxmat::q8) in plain words: in plain mode (CXMAT_PLAIN_ERRORS,
// core/config.hpp) each q8 shape error (quantized/matmul.hpp, attention.hpp, linear.hpp, encoder_layer.hpp,
// decoder_layer.hpp) is defined
// here as a static_assert whose message is one sentence built at compile time. Outside plain
// mode this header defines nothing and the errors stay incomplete types.
#pragma once

#include <cstddef>

#include <cxmat/core/config.hpp>
#include <cxmat/core/plain_errors.hpp>

#if CXMAT_PLAIN_ERRORS
namespace cxmat::detail::plain {

template <class ACols, class BtCols>
constexpr sentence q8_transposed_depths() noexcept {
  return must_equal_sentence<ACols, BtCols>(
      "q8::matmul_transposed(a, bt): ", "a's columns", "bt's columns",
      ": bt is the right operand stored transposed, C x K like TFLite's fully-connected weights."
      " Given as K x C? Pass transpose(b).");
}

template <class BtRows, class BiasCols>
constexpr sentence q8_bias_width() noexcept {
  return must_equal_sentence<BiasCols, BtRows>(
      "q8::matmul_transposed(a, bt, bias): the bias has one int32 per output column: ", "its columns", "bt's rows",
      " (bias is 1 x C, bt is C x K).");
}

// "<call>: <operand>'s columns (<dim>) must equal the <owner>'s <name> = <width><tail>": the
// input width of an int8 module.
template <class XCols, std::size_t Width>
constexpr sentence q8_input_width(const char* call, const char* width_name, const char* tail,
                                  const char* operand = "x") noexcept {
  sentence s;
  s.put(call).put(": ").put(operand).put("'s columns ");
  put_dim<XCols>(s);
  s.put(" must equal the ").put(width_name).put(" = ").put(Width).put(tail);
  return s;
}

template <class Rows, class Cols>
constexpr sentence q8_uint8_input() noexcept {
  sentence s;
  s.put("q8::multi_head_attention(x, layer): x is uint8 ");
  put_shape<Rows, Cols>(s);
  s.put(
      ", the int8 layer takes int8 (as TFLite's int8 kernels): uint8 q with zero point z is int8 q - 128 with"
      " zero point z - 128, same scale.");
  return s;
}

}  // namespace cxmat::detail::plain

namespace cxmat::q8::shape_error {
template <class ACols, class BtCols>
struct matmul_transposed_a_cols_must_equal_bt_cols {
  static_assert(false, cxmat::detail::plain::q8_transposed_depths<ACols, BtCols>());
};
template <class BtRows, class BiasCols>
struct matmul_transposed_bias_must_be_1_by_bt_rows {
  static_assert(false, cxmat::detail::plain::q8_bias_width<BtRows, BiasCols>());
};
template <class XCols, std::size_t DModel>
struct q8_attention_x_cols_must_equal_layer_d_model {
  static_assert(false, cxmat::detail::plain::q8_input_width<XCols, DModel>("q8::multi_head_attention(x, layer)",
                                                                           "layer's d_model", " (x is n x d_model)."));
};
template <class MemoryCols, std::size_t DModel>
struct q8_cross_attention_memory_cols_must_equal_layer_d_model {
  static_assert(false, cxmat::detail::plain::q8_input_width<MemoryCols, DModel>(
                           "q8::cross_attention(x, memory, layer)", "layer's d_model",
                           " (the memory is s x d_model, as x is n x d_model).", "memory"));
};
template <class XCols, std::size_t In>
struct q8_linear_x_cols_must_equal_d_in {
  static_assert(false, cxmat::detail::plain::q8_input_width<XCols, In>("q8::linear_module(x)", "module's d_in",
                                                                       " (x is n x d_in, the weight [d_out, d_in])."));
};
template <class XCols, std::size_t DModel>
struct q8_encoder_x_cols_must_equal_d_model {
  static_assert(false, cxmat::detail::plain::q8_input_width<XCols, DModel>("q8::encoder_layer(x)", "layer's d_model",
                                                                           " (x is n x d_model)."));
};
template <class XCols, std::size_t DModel>
struct q8_decoder_x_cols_must_equal_d_model {
  static_assert(false, cxmat::detail::plain::q8_input_width<XCols, DModel>("q8::decoder_layer(x, memory)",
                                                                           "layer's d_model", " (x is n x d_model)."));
};
template <class MemoryCols, std::size_t DModel>
struct q8_decoder_memory_cols_must_equal_d_model {
  static_assert(false, cxmat::detail::plain::q8_input_width<MemoryCols, DModel>(
                           "q8::decoder_layer(x, memory)", "layer's d_model",
                           " (the memory is s x d_model, as x is n x d_model).", "memory"));
};
template <class Rows, class Cols>
struct q8_input_must_be_int8_not_uint8 {
  static_assert(false, cxmat::detail::plain::q8_uint8_input<Rows, Cols>());
};
}  // namespace cxmat::q8::shape_error
#endif
