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

}  // namespace layers
