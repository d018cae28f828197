// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Integer layer normalisation of int8 rows (TFLite has no int8 LAYER_NORM builtin; this is
// cxmat's own, documented in docs/quantized.md): int32 sums, an int64 variance, an integer
// inverse square root, and γ and β folded into a per-channel requantizer and an int32 bias. No
// floating point at run time; the parameters come from a float nn.LayerNorm and the input and
// output quantizations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/math/sqrt.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/quantized/requantize.hpp>
#include <cxmat/transformer/norms.hpp>

namespace cxmat::q8 {

/// The widest row the integer layer norm takes: every sum below stays inside its integer type.
inline constexpr std::size_t max_layer_norm_width = 4096;

/// nn.LayerNorm(D) in int8 (x with scale s_x, zero point z_x; y with s_y, z_y). For each row,
/// with d_j = x_j + input_offset (input_offset = -z_x):
///   c_j = D·d_j - Σ_t d_t                         (int32: D times the deviation from the mean)
///   W   = 2^8·Σ_j c_j² + eps                      (int64; eps = round(2^8·ε·D³ / s_x²), at least 1)
///   k   = the integer with W·4^k in [2^60, 2^62)  (W shifted left by 2k, or right by -2k, floor)
///   r   = ⌊√(W·4^k)⌋ in [2^30, 2^31),  inv = ⌊(2^61 - 1) / r⌋  (so 2^4/√W ≈ inv·2^(k-57))
///   a_j = c_j·inv / 2^(27-k), rounded half away from zero  (c_j / √(W/2^8) in Q30, |a_j| <= 2^30;
///         0 for a constant row, where every c_j is 0)
///   y_j = clamp(RoundingDivideByPOT(requantize(a_j, scale_j) + bias_j, 8) + output_offset)
/// where scale_j = QuantizeMultiplier(γ_j·√D·2^-22 / s_y) and bias_j = round(β_j·2^8 / s_y): the
/// real normalised value (x_j - mean) / √(var + ε) is a_j·√D·2^-30 (var + ε = s_x²·W / (2^8·D³)),
/// and y is computed with 8 more fraction bits before the last rounding. The sum requantize(...) +
/// bias_j saturates to int32; an eps below 1 counts as 1.
template <std::size_t D>
struct layer_norm_module {
  static_assert(D > 0 && D <= max_layer_norm_width, "q8::layer_norm_module: D must be in [1, max_layer_norm_width]");
  static constexpr std::size_t d = D;
  std::int32_t input_offset = 0, output_offset = 0;
  std::int64_t eps = 1;
  requantizer scale[D]{};
  std::int32_t bias[D]{};

  /// Each row of x (n x D) normalised: n x D.
  template <extent N, extent C>
  requires(C.size == D) constexpr matrix<std::int8_t, N, C> operator()(
      const matrix<std::int8_t, N, C>& x) const noexcept;
};

namespace detail {

// ⌊√v⌋ of a 64-bit unsigned integer, digit by digit (two bits of v per bit of the root).
constexpr std::uint64_t isqrt64(std::uint64_t v) noexcept {
  std::uint64_t root = 0, bit = std::uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

// v / 2^s rounded to nearest, ties away from zero, s in [1, 62].
constexpr std::int64_t rounding_shift64(std::int64_t v, std::int32_t s) noexcept {
  const std::int64_t m = v < 0 ? -v : v, r = (m + (std::int64_t{1} << (s - 1))) >> s;
  return v < 0 ? -r : r;
}

template <std::size_t D>
constexpr void layer_norm_row_q8(const std::int8_t* x, std::int8_t* y, const layer_norm_module<D>& p) noexcept {
  std::int32_t c[D];
  std::int32_t sum = 0;
  for (std::size_t j = 0; j < D; ++j) sum += x[j] + p.input_offset;
  std::int64_t squares = 0;
  for (std::size_t j = 0; j < D; ++j) {
    c[j] = static_cast<std::int32_t>(D) * (x[j] + p.input_offset) - sum;
    squares += std::int64_t{c[j]} * c[j];
  }
  std::int64_t w = squares * 256 + (p.eps > 0 ? p.eps : 1);
  std::int32_t k = 0;
  for (; w < (std::int64_t{1} << 60); ++k) w <<= 2;
  for (; w >= (std::int64_t{1} << 62); --k) w >>= 2;
  const auto r = static_cast<std::int64_t>(isqrt64(static_cast<std::uint64_t>(w)));
  // r in [2^30, 2^31), so inv in (2^30, 2^31): an int32, and c_j·inv one 32 x 32-bit multiply.
  const auto inv = static_cast<std::int32_t>(((std::int64_t{1} << 61) - 1) / r);
  for (std::size_t j = 0; j < D; ++j) {
    // k <= 26 whenever some c_j is not 0 (then W >= 2^8); a constant row gives 0 at any shift.
    const auto a = static_cast<std::int32_t>(rounding_shift64(std::int64_t{c[j]} * inv, k < 27 ? 27 - k : 1));
    const std::int64_t s = std::int64_t{requantize(a, p.scale[j])} + p.bias[j];
    const std::int32_t v =
        rounding_divide_by_pot(
            static_cast<std::int32_t>(
                s > std::numeric_limits<std::int32_t>::max()
                    ? std::numeric_limits<std::int32_t>::max()
                    : (s < std::numeric_limits<std::int32_t>::min() ? std::numeric_limits<std::int32_t>::min() : s)),
            8) +
        p.output_offset;
    y[j] = static_cast<std::int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
  }
}

// The layer norm of R rows of D from x into y, which may be x (each row is read whole before it
// is written).
template <std::size_t R, std::size_t D>
constexpr void layer_norm_rows_q8(const std::int8_t (*x)[D], std::int8_t (*y)[D],
                                  const layer_norm_module<D>& p) noexcept {
  for (std::size_t i = 0; i < R; ++i) layer_norm_row_q8<D>(x[i], y[i], p);
}

}  // namespace detail

template <std::size_t D>
template <extent N, extent C>
requires(C.size == D) constexpr matrix<std::int8_t, N, C> layer_norm_module<D>::operator()(
    const matrix<std::int8_t, N, C>& x) const noexcept {
  matrix<std::int8_t, N, C> out;
  detail::layer_norm_rows_q8<N.size, D>(x.elems, out.elems, *this);
  return out;
}

/// The int8 layer norm of a float nn.LayerNorm (cxmat::layer_norm_module: weight γ, bias β, eps
/// ε) for the input quantization `input` and the output quantization `output`: eps = round(2^8·ε·D³
/// / s_x²) (at least 1, at most 2^61; a NaN ε gives 1), scale_j and bias_j as in layer_norm_module. γ, β and ε must
/// be finite (calibrate checks them).
template <class T, extent D>
constexpr layer_norm_module<D.size> quantize_layer_norm(const cxmat::layer_norm_module<T, D>& norm, quantization input,
                                                        quantization output) noexcept {
  constexpr std::size_t n = D.size;
  layer_norm_module<n> q{};
  q.input_offset = -input.zero_point, q.output_offset = output.zero_point;
  const double width = static_cast<double>(n);
  double e = static_cast<double>(norm.eps) * 256.0 * width * width * width / (input.scale * input.scale);
  e = e >= 1.0 ? (e > 0x1p61 ? 0x1p61 : e) : 1.0;  // NaN: 1
  q.eps = detail::round_half_away(e);
  const double root = cxmat::sqrt(width) * 0x1p-22 / output.scale;
  matrix<double, 1, n> beta{};
  for (std::size_t j = 0; j < n; ++j) {
    q.scale[j] = quantize_multiplier(static_cast<double>(norm.weight.elems[0][j]) * root);
    beta.elems[0][j] = static_cast<double>(norm.bias.elems[0][j]) * 256.0 / output.scale;
  }
  const auto b = quantize_bias(beta, 1.0);
  for (std::size_t j = 0; j < n; ++j) q.bias[j] = b.elems[0][j];
  return q;
}

}  // namespace cxmat::q8
