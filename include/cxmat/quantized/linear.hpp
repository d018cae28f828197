// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The int8 fully-connected layer: TFLite's int8 FULLY_CONNECTED (and CMSIS-NN's
// arm_fully_connected_s8) with per-channel or per-tensor symmetric weights, an int32 bias, output
// requantization and a fused ReLU, bit for bit (the q8 product kernel of matmul.hpp); and its
// quantization from a float cxmat::linear_module, given or calibrated.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>
#include <cxmat/quantized/matmul.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/quantized/requantize.hpp>
#include <cxmat/transformer/linear.hpp>

namespace cxmat::q8 {

namespace shape_error {
template <class XCols, std::size_t In>
struct q8_linear_x_cols_must_equal_d_in;  // x is n x d_in of the int8 linear module it runs through
}  // namespace shape_error

/// nn.Linear(In, Out) in int8, TFLite's FULLY_CONNECTED: `weight` is [out, in] (TFLite's layout,
/// PyTorch's weight), symmetric (zero point 0); `bias` int32 of scale input_scale · weight_scale
/// (per channel: that channel's scale), zero point 0. `params`: lhs_offset = -input zero point,
/// rhs_offset = 0, output_offset = output zero point, `output` the per-tensor requantizer
/// input_scale · weight_scale / output_scale, and [activation_min, activation_max] the clamp (a
/// fused ReLU: activation_min = max(-128, output zero point)). PerChannel (TFLite's default for
/// fully-connected weights): `channels.values[j]` is output channel j's requantizer, used
/// instead of params.output.
template <std::size_t In, std::size_t Out, bool PerChannel = true>
struct linear_module {
  static constexpr std::size_t d_in = In, d_out = Out;
  static constexpr bool per_channel = PerChannel;
  matrix<std::int8_t, Out, In> weight{};
  matrix<std::int32_t, 1, Out> bias{};
  matmul_params params{};
  [[no_unique_address]] channel_requantizers<PerChannel, Out> channels{};

  /// x (n x In, int8 with the module's input quantization) to n x Out: out(i, j) =
  /// clamp(requantize(Σ_k (x(i,k) + lhs_offset)·weight(j,k) + bias(j)) + output_offset).
  template <extent N, extent K>
  requires InputFitsLayer<K, In>
  constexpr matrix<std::int8_t, N, Out> operator()(const matrix<std::int8_t, N, K>& x) const noexcept {
    matrix<std::int8_t, N, Out> out;
    rows<N.size>(x.elems, out.elems);
    return out;
  }
  /// The same on N rows of In from x into out (N rows of Out, not overlapping x).
  template <std::size_t N>
  constexpr void rows(const std::int8_t (*x)[In], std::int8_t (*out)[Out]) const noexcept {
    static_assert(In <= max_matmul_depth, "q8::linear_module: d_in above max_matmul_depth may overflow int32");
    detail::matmul_transposed_kernel(detail::rows_of<In>{x, 0}, detail::rows_of<In>{weight.elems, 0}, N, Out, In,
                                     bias.elems[0], params, out, 0, channels.get());
  }
  /// Shape error: x's width is not the module's d_in.
  template <extent N, extent K>
  requires(!InputFitsLayer<K, In>) shape_error::q8_linear_x_cols_must_equal_d_in<dim_of<K>, In>
  operator()(const matrix<std::int8_t, N, K>& x) const noexcept;
};

namespace detail {
template <std::size_t W, class M>
constexpr void double_row(const M& m, double (&out)[W]) noexcept {
  for (std::size_t j = 0; j < W; ++j) out[j] = static_cast<double>(m.elems[0][j]);
}
}  // namespace detail

/// The int8 module of a float cxmat::linear_module (weight In x Out, bias 1 x Out) for the given
/// input and output quantizations: weights symmetric, per channel (max|w| / 127 over each output
/// channel) or per tensor, the bias quantized with scale input_scale · weight_scale, every
/// multiplier TFLite's QuantizeMultiplier of input_scale · weight_scale / output_scale; relu
/// fuses a ReLU (the clamp from the output zero point). Weights must be finite (calibrate checks
/// them; here a NaN is the quantize functions' named error in a constant expression).
template <bool PerChannel = true, class T, extent In, extent Out>
constexpr linear_module<In.size, Out.size, PerChannel> quantize_linear(const cxmat::linear_module<T, In, Out>& lin,
                                                                       quantization input, quantization output,
                                                                       bool relu = false) noexcept {
  constexpr std::size_t in = In.size, out = Out.size;
  linear_module<in, out, PerChannel> q{};
  const quantization tensor = detail::symmetric_of(lin.weight);
  matrix<double, 1, out> scales{};
  detail::channel_scales(lin.weight, tensor, PerChannel, scales);
  q.weight = detail::quantize_channels<out, in, PerChannel>(lin.weight, scales);
  double b[out]{};
  detail::double_row(lin.bias, b);
  q.bias = detail::quantized_bias(b, input.scale, scales);
  q.params = detail::product_params(input, tensor, output);
  if (relu) q.params.activation_min = output.zero_point > -128 ? output.zero_point : -128;
  if constexpr (PerChannel) {
    for (std::size_t j = 0; j < out; ++j) {
      q.channels.values[j] = detail::product_params(input, {scales.elems[0][j], 0}, output).output;
    }
  }
  return q;
}

namespace detail {
template <bool PerChannel, class TX, extent B, extent N, extent DM, class T, extent In, extent Out>
constexpr module_calibration<linear_module<In.size, Out.size, PerChannel>> calibrate_linear(
    const batch<TX, B, N, DM>& xs, const cxmat::linear_module<T, In, Out>& lin) noexcept {
  using result = module_calibration<linear_module<In.size, Out.size, PerChannel>>;
  refusal bad{};
  for (std::size_t b = 0; b < B.size; ++b) {
    check_finite<calibration_tensor::input>(xs[b], b, calibration_status::non_finite_input, bad);
  }
  check_finite<calibration_tensor::linear_weight>(lin.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::linear_bias>(lin.bias, 0, calibration_status::non_finite_weight, bad);
  if (bad.status == calibration_status::ok) check_weight<calibration_tensor::linear_weight>(lin.weight, bad);
  range rx{}, ry{};
  for (std::size_t b = 0; bad.status == calibration_status::ok && b < B.size; ++b) {
    for (std::size_t i = 0; i < N.size; ++i) {
      double y[Out.size]{};
      for (std::size_t t = 0; t < In.size; ++t) {
        const double xit = static_cast<double>(xs(b, i, t));
        rx.add(xit);
        for (std::size_t j = 0; j < Out.size; ++j) y[j] += xit * static_cast<double>(lin.weight.elems[t][j]);
      }
      for (std::size_t j = 0; j < Out.size; ++j) ry.add(y[j] + static_cast<double>(lin.bias.elems[0][j]));
    }
  }
  if (bad.status == calibration_status::ok) {
    check_range<calibration_tensor::input>(rx, bad);
    check_range<calibration_tensor::output>(ry, bad);
  }
  result r{};
  if (bad.status != calibration_status::ok) {
    r.status = bad.status, r.tensor = bad.tensor, r.item = bad.item, r.row = bad.row, r.col = bad.col;
    return r;
  }
  r.input = rx.asymmetric(), r.output = ry.asymmetric();
  r.module = quantize_linear<PerChannel>(lin, r.input, r.output);
  const range rw = weight_range(lin.weight);
  r.report.add(calibration_tensor::input, rx.lo, rx.hi, r.input);
  r.report.add(calibration_tensor::linear_weight, rw.lo, rw.hi, symmetric_of(lin.weight));
  r.report.add(calibration_tensor::output, ry.lo, ry.hi, r.output);
  return r;
}
}  // namespace detail

/// Calibrates nn.Linear on the representative inputs xs (B x n x d_in, float or double): min/max
/// of the input and of the output over the set (asymmetric int8), then quantize_linear with
/// per-channel weights (pass per_tensor_weights for one scale per tensor). NaN or infinite
/// inputs or weights, an input or output range of zero width, and a range or weight tensor that
/// one value dominates (CXMAT_Q8_CALIBRATION_DOMINANCE) are refused as by the attention
/// calibration: a named error in a constant expression, the result's status and tensor at run
/// time. `report` holds the input's, the weight's and the output's tensor_report.
template <class TX, extent B, extent N, extent DM, class T, extent In, extent Out, class... O>
requires CalibrationElement<TX> && CalibrationElement<T> && InputFitsLayer<DM, In.size> &&(sizeof...(O) <= 1) &&
    (std::same_as<O, per_tensor_weights_t> && ...) constexpr module_calibration<
        linear_module<In.size, Out.size, sizeof...(O) == 0>> calibrate(const batch<TX, B, N, DM>& xs,
                                                                       const cxmat::linear_module<T, In, Out>& lin,
                                                                       const O&... /*per_tensor*/) noexcept {
  return detail::calibrate_linear<sizeof...(O) == 0>(xs, lin);
}

}  // namespace cxmat::q8

#include <cxmat/quantized/plain_errors.hpp>
