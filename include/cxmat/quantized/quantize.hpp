// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Per-tensor affine quantization of int8 tensors (TFLite's scheme): real = scale · (q - zero_point).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat::q8 {

/// The quantization of one tensor, TFLite's `scale` and `zero_point`: real = scale · (q - zero_point).
struct quantization {
  double scale;
  std::int32_t zero_point;
  friend constexpr bool operator==(const quantization&, const quantization&) = default;
};

/// Whether q is a quantization TFLite can use: a finite positive scale and an int8 zero point.
constexpr bool valid(quantization q) noexcept {
  return q.scale > 0 && q.scale <= std::numeric_limits<double>::max() && q.zero_point >= -128 && q.zero_point <= 127;
}

namespace detail {
// Named errors of constant evaluation (see requantize.hpp).
inline void nan_has_no_integer_value() noexcept {}
inline void quantization_range_must_be_finite() noexcept {}

// round(v), halves away from zero (TFLite's TfLiteRound), saturated to ±2^62. NaN has no integer:
// a named error in a constant expression, 0 at run time (never a cast of NaN).
constexpr std::int64_t round_half_away(double v) noexcept {
  if (v != v) {
    cxmat::detail::refuse_in_constant_evaluation<nan_has_no_integer_value>();
    return 0;
  }
  double a = v < 0 ? -v : v;
  a = a > 0x1p62 ? 0x1p62 : a;
  auto r = static_cast<std::int64_t>(a);
  if (a - static_cast<double>(r) >= 0.5) ++r;
  return v < 0 ? -r : r;
}
constexpr std::int32_t clamp_to(std::int64_t v, std::int32_t lo, std::int32_t hi) noexcept {
  return static_cast<std::int32_t>(v < lo ? lo : (v > hi ? hi : v));
}
}  // namespace detail

/// Asymmetric int8 quantization of the real range [rmin, rmax] (TFLite's ChooseQuantizationParams
/// with qmin = -128, qmax = 127): the range is widened to contain 0 (so that 0 is exact), scale =
/// (rmax - rmin) / 255, and the zero point is rounded and clamped to [-128, 127]. An empty range
/// {0} gets scale 1 (any scale represents it). rmin and rmax must be finite, and so must their
/// difference: otherwise a constant expression stops with quantization_range_must_be_finite, and
/// at run time the result is {NaN, 0}, which valid() rejects (quantize maps every value to the
/// zero point with it, quantize_multiplier of its products gives {0, 0}).
constexpr quantization choose_quantization(double rmin, double rmax) noexcept {
  constexpr double max = std::numeric_limits<double>::max();
  if (!(rmin >= -max && rmin <= max && rmax >= -max && rmax <= max && rmax - rmin <= max)) {
    cxmat::detail::refuse_in_constant_evaluation<detail::quantization_range_must_be_finite>();
    return {std::numeric_limits<double>::quiet_NaN(), 0};
  }
  if (rmin > 0) rmin = 0;
  if (rmax < 0) rmax = 0;
  if (rmax == rmin) return {1.0, 0};
  const double scale = (rmax - rmin) / 255.0;
  const double zp_from_min = -128.0 - rmin / scale;
  const double zp_from_max = 127.0 - rmax / scale;
  const double err_min = 128.0 + (rmin < 0 ? -rmin : rmin) / scale;
  const double err_max = 127.0 + (rmax < 0 ? -rmax : rmax) / scale;
  const double zp = err_min < err_max ? zp_from_min : zp_from_max;
  if (zp < -128.0) return {scale, -128};
  if (zp > 127.0) return {scale, 127};
  return {scale, static_cast<std::int32_t>(detail::round_half_away(zp))};
}

/// Symmetric int8 quantization of [-max_abs, max_abs] (TFLite's int8 weights): scale =
/// max_abs / 127, zero point 0. max_abs = 0 gets scale 1. A NaN or infinite max_abs is refused as
/// by choose_quantization (a named error in a constant expression, {NaN, 0} at run time).
constexpr quantization choose_symmetric_quantization(double max_abs) noexcept {
  if (!(max_abs >= -std::numeric_limits<double>::max() && max_abs <= std::numeric_limits<double>::max())) {
    cxmat::detail::refuse_in_constant_evaluation<detail::quantization_range_must_be_finite>();
    return {std::numeric_limits<double>::quiet_NaN(), 0};
  }
  if (max_abs < 0) max_abs = -max_abs;
  return {max_abs == 0 ? 1.0 : max_abs / 127.0, 0};
}

/// q = clamp(round(real / scale) + zero_point, -128, 127), halves away from zero (TFLite's Quantize
/// with a double scale). Any shape. A NaN value (or a NaN scale) is a named error in a constant
/// expression (nan_has_no_integer_value) and quantizes to the zero point at run time.
template <class T, extent R, extent C>
constexpr matrix<std::int8_t, R, C> quantize(const matrix<T, R, C>& m, quantization q) noexcept {
  matrix<std::int8_t, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) {
      double v = static_cast<double>(m.elems[i][j]) / q.scale;
      v = v < -1e9 ? -1e9 : (v > 1e9 ? 1e9 : v);  // keeps the cast defined; clamped below anyway
      out.elems[i][j] =
          static_cast<std::int8_t>(detail::clamp_to(detail::round_half_away(v) + q.zero_point, -128, 127));
    }
  }
  return out;
}

/// An int32 tensor (a bias) quantized with zero point 0: round(real / scale), saturated to int32;
/// NaN as in quantize (an error in a constant expression, 0 at run time).
template <class T, extent R, extent C>
constexpr matrix<std::int32_t, R, C> quantize_bias(const matrix<T, R, C>& m, double scale) noexcept {
  matrix<std::int32_t, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) {
      double v = static_cast<double>(m.elems[i][j]) / scale;
      v = v < -4e18 ? -4e18 : (v > 4e18 ? 4e18 : v);
      out.elems[i][j] = detail::clamp_to(detail::round_half_away(v), std::numeric_limits<std::int32_t>::min(),
                                         std::numeric_limits<std::int32_t>::max());
    }
  }
  return out;
}

/// real = scale · (q - zero_point), in double. Any shape.
template <extent R, extent C>
constexpr matrix<double, R, C> dequantize(const matrix<std::int8_t, R, C>& m, quantization q) noexcept {
  matrix<double, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = q.scale * (m.elems[i][j] - q.zero_point);
  }
  return out;
}

}  // namespace cxmat::q8
