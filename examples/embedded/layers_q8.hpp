// The int8 layers the firmware runs (cxmat::q8, TFLite / CMSIS-NN arithmetic), calibrated by
// the compiler from the float layers of layers.hpp: only integers reach the image. Shared by the
// firmware and the host check, which must agree to the bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>
#include <cxmat/quantized/group_linear.hpp>
#include <cxmat/quantized/quantize.hpp>

#include "layers.hpp"

namespace layers {

/// m with double elements (calibration works in double, in the compiler).
template <class M>
constexpr cxmat::matrix<double, M::rows, M::cols> in_double(const M& m) noexcept {
  cxmat::matrix<double, M::rows, M::cols> d{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) d(i, j) = static_cast<double>(m(i, j));
  }
  return d;
}

/// Calibration of the int8 self-attention layer on four frames other than the one it is run on
/// (seeds 11-14; its own input has seed 1).
constexpr auto calibrate_self_attention() noexcept {
  cxmat::batch<double, 4, model::tokens, model::width> xs{};
  for (std::uint32_t b = 0; b < 4; ++b) xs[b] = in_double(hashed_input<model::frame>(11 + b));
  return cxmat::q8::calibrate<model::heads>(xs, in_double(model::wq), in_double(model::wk), in_double(model::wv),
                                            in_double(model::wo));
}

/// Calibration of the int8 worksheet 004 layer on the worksheet's X and X with its tokens reversed.
constexpr auto calibrate_worksheet_004() noexcept {
  constexpr auto x = in_double(worksheet_004::make_input());
  cxmat::batch<double, 2, 5, 6> xs{};
  xs[0] = x;
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 6; ++j) xs[1](i, j) = x(4 - i, j);
  }
  return cxmat::q8::calibrate<3>(xs, in_double(worksheet_004::wq), in_double(worksheet_004::wk),
                                 in_double(worksheet_004::wv));
}

/// The int8 version of self_attention (n = 8, d_model = 16, H = 2, W_o).
struct q8_self_attention {
  static constexpr const char* name = "q8_self_attention";
  using input = cxmat::matrix<std::int8_t, model::tokens, model::width>;
  using output = cxmat::matrix<std::int8_t, model::tokens, model::width>;
  /// Weights, biases and parameters: all the image holds of the layer.
  static constexpr auto layer = calibrate_self_attention().layer;
  static constexpr input make_input() noexcept {
    return cxmat::q8::quantize(in_double(hashed_input<model::frame>(1)), calibrate_self_attention().input);
  }
  /// The scratch memory of a call, a compile-time constant (K and V, kept on the stack).
  static constexpr std::size_t scratch = cxmat::q8::scratch_bytes<std::remove_cvref_t<decltype(layer)>, model::tokens>;
  static output run(const input& x) noexcept { return cxmat::q8::multi_head_attention(x, layer); }
};

/// The same layer computing K and V in a workspace of the program's (.bss) instead of the stack.
struct q8_self_attention_workspace : q8_self_attention {
  static constexpr const char* name = "q8_self_attention_workspace";
  static output run(const input& x) noexcept {
    static cxmat::q8::workspace_for<std::remove_cvref_t<decltype(layer)>, model::tokens> ws;
    return cxmat::q8::multi_head_attention(x, layer, ws);
  }
};

/// The int8 version of worksheet 004's layer (5 x 6, H = 3, no W_o).
struct q8_worksheet_004 {
  static constexpr const char* name = "q8_worksheet_004";
  using input = cxmat::matrix<std::int8_t, 5, 6>;
  using output = cxmat::matrix<std::int8_t, 5, 6>;
  static constexpr auto layer = calibrate_worksheet_004().layer;
  static constexpr input make_input() noexcept {
    return cxmat::q8::quantize(in_double(worksheet_004::make_input()), calibrate_worksheet_004().input);
  }
  static output run(const input& x) noexcept { return cxmat::q8::multi_head_attention(x, layer); }
};

/// int8 values spread over the whole range, -128 included: input_value(seed, i, j) · 128, truncated.
template <class M>
constexpr M hashed_int8(std::uint32_t seed) noexcept {
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = static_cast<std::int8_t>(input_value(seed, i, j) * 128.0f);
  }
  return m;
}

/// Integer-valued weights in [-127, 127] for q8::group_linear, d_in = 40 (groups of 16, 16 and 8),
/// each group's first value ±127: every group's scale is exactly 1, so the quantization is exact.
constexpr cxmat::matrix<float, 40, 5> integer_weights() noexcept {
  const auto h = hashed_int8<cxmat::matrix<std::int8_t, 40, 5>>(44);
  cxmat::matrix<float, 40, 5> w{};
  for (std::size_t k = 0; k < 40; ++k) {
    for (std::size_t o = 0; o < 5; ++o) {
      w(k, o) = k % 16 == 0 ? (o % 2 == 0 ? 127.0f : -127.0f) : static_cast<float>(h(k, o) < -127 ? -127 : h(k, o));
    }
  }
  return w;
}

/// The int8 products on their own, at the shapes a vector kernel must get right: depth 48 (whole
/// blocks of 16 only), 33 (two blocks and a rest of 1) and 7 (a rest only), with 5, 7 and 3 output
/// columns (groups of four and a rest), negative and positive zero points on both sides, with
/// and without a bias: the three results side by side in rows 0 to 4 (5 x 15). Row 5: int8
/// groups, q8::group_linear of a 1 x 40 row (groups of 16, 16 and 8) and 5 outputs, built so that
/// every scale is 1 and each output is its integer sum of products exactly; each output's int32
/// in three bytes (low first), so that any change of a group's sum changes a byte.
struct q8_products {
  static constexpr const char* name = "q8_products";
  using input = cxmat::matrix<std::int8_t, 5, 48>;
  using output = cxmat::matrix<std::int8_t, 6, 15>;
  static constexpr auto groups = cxmat::q8::quantize_groups<16>(integer_weights());
  static constexpr auto w48 = hashed_int8<cxmat::matrix<std::int8_t, 5, 48>>(41);
  static constexpr auto w33 = hashed_int8<cxmat::matrix<std::int8_t, 7, 33>>(42);
  static constexpr auto w7 = hashed_int8<cxmat::matrix<std::int8_t, 3, 7>>(43);
  static constexpr cxmat::matrix<std::int32_t, 1, 7> b33{{{-20000, 7, 15000, -3, 0, 40000, -91}}};
  // lhs_offset and rhs_offset are the negated zero points (an input zero point of -93, weight
  // zero points of -7, 12 and 0), then the output's, the requantizer and the clamp.
  static constexpr cxmat::q8::matmul_params p48{93, 7, -5, {1518500250, -11}, -128, 127};
  static constexpr cxmat::q8::matmul_params p33{-17, -12, 9, {1200000000, -11}, -100, 120};
  static constexpr cxmat::q8::matmul_params p7{128, 0, 0, {2000000000, -8}, -128, 127};
  static constexpr input make_input() noexcept { return hashed_int8<input>(1); }
  static output run(const input& x) noexcept {
    cxmat::matrix<std::int8_t, 5, 33> x33;
    cxmat::matrix<std::int8_t, 5, 7> x7;
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t k = 0; k < 33; ++k) x33(i, k) = x(i, k + 11);
      for (std::size_t k = 0; k < 7; ++k) x7(i, k) = x(i, k);
    }
    const auto y48 = cxmat::q8::matmul_transposed(x, w48, p48);
    const auto y33 = cxmat::q8::matmul_transposed(x33, w33, b33, p33);
    const auto y7 = cxmat::q8::matmul_transposed(x7, w7, p7);
    output y;
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t j = 0; j < 5; ++j) y(i, j) = y48(i, j);
      for (std::size_t j = 0; j < 7; ++j) y(i, 5 + j) = y33(i, j);
      for (std::size_t j = 0; j < 3; ++j) y(i, 12 + j) = y7(i, j);
    }
    cxmat::matrix<float, 1, 40> r;
    for (std::size_t k = 0; k < 40; ++k) {
      // The choice made in integers and converted once: GCC 12 for the M55 would otherwise
      // emit a conditional VCVT in an IT block, which the assembler refuses with MVE enabled.
      const int v = k % 16 == 0 ? 127 : (x(1, k) < -127 ? -127 : x(1, k));
      r(0, k) = static_cast<float>(v);
    }
    const auto g = cxmat::q8::group_linear(r, groups);
    for (std::size_t o = 0; o < 5; ++o) {
      const auto v = static_cast<std::uint32_t>(static_cast<std::int32_t>(g(0, o)));
      for (std::size_t b = 0; b < 3; ++b) y(5, 3 * o + b) = static_cast<std::int8_t>((v >> (8 * b)) & 0xFFu);
    }
    return y;
  }
};

}  // namespace layers
