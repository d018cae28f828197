// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Requantization: scaling an int32 accumulator by a real factor in integer arithmetic, as
// TFLite's int8 kernels and CMSIS-NN do it (a Q31 multiplier and a power-of-two shift, gemmlowp's
// rounding). Bit-exact with TFLite's QuantizeMultiplier / MultiplyByQuantizedMultiplier (default
// double rounding) and CMSIS-NN's arm_nn_requantize (without CMSIS_NN_USE_SINGLE_ROUNDING).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include <cxmat/kernels/runtime_dsp.hpp>

namespace cxmat::q8 {

namespace detail {
// Named errors of constant evaluation: each is deliberately not constexpr, so reaching one stops
// the constant expression and the compiler names it (its first line quotes the function).
inline void requantizer_shift_must_be_in_minus_31_to_30() noexcept {}
inline void requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude() noexcept {}
inline void quantize_multiplier_of_nan_or_infinity() noexcept {}

// Whether m is a multiplier quantize_multiplier can make: 0, or |m| in [2^30, 2^31) (a Q31
// number in [0.5, 1), negative for a negative factor). INT32_MIN (|m| = 2^31) is outside.
CXMAT_DETAIL_DSP_INLINE constexpr bool normalized_multiplier(std::int32_t m) noexcept {
  return m == 0 || m >= (std::int32_t{1} << 30) ||
         (m <= -(std::int32_t{1} << 30) && m != std::numeric_limits<std::int32_t>::min());
}

// The multiplier of a requantizer checked: outside normalized_multiplier's range a constant
// expression stops with a named error, and at run time the factor is 0 (the requantizer that
// quantize_multiplier gives a NaN), a documented, defined result instead of a silent one.
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t checked_multiplier(std::int32_t m) noexcept {
  if (normalized_multiplier(m)) return m;
  if (std::is_constant_evaluated()) requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude();
  return 0;
}

// The shift of a requantizer clamped to [-31, 30]: outside that range the shifts of requantize
// would be undefined, so a constant expression stops with a named error, and at run time the
// nearest shift of the range is used (a documented, defined result instead of undefined behaviour).
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t checked_shift(std::int32_t shift) noexcept {
  if (shift >= -31 && shift <= 30) return shift;
  if (std::is_constant_evaluated()) requantizer_shift_must_be_in_minus_31_to_30();
  return shift > 30 ? 30 : -31;
}
}  // namespace detail

/// A real factor m = multiplier * 2^(shift - 31), multiplier a Q31 number with |multiplier| in
/// [2^30, 2^31) (or 0; negative for a negative factor, as TFLite's QuantizeMultiplier makes it),
/// shift in [-31, 30]. shift > 0 shifts left and shift <= 0 shifts right, as TFLite's `shift` /
/// CMSIS-NN's `shift`. A requantizer written by hand outside those ranges is refused where it is
/// used (requantize, the products): see requantize.
struct requantizer {
  std::int32_t multiplier;
  std::int32_t shift;
  friend constexpr bool operator==(const requantizer&, const requantizer&) = default;
};

/// Whether r is a requantizer quantize_multiplier can make: multiplier 0 or |multiplier| in
/// [2^30, 2^31), and shift in [-31, 30].
constexpr bool valid_requantizer(requantizer r) noexcept {
  return detail::normalized_multiplier(r.multiplier) && r.shift >= -31 && r.shift <= 30;
}

/// The rounded high half of 2·a·b (gemmlowp's SaturatingRoundingDoublingHighMul): a·b / 2^31
/// rounded to nearest with ties toward +infinity; the one overflowing case, INT32_MIN · INT32_MIN,
/// gives INT32_MAX.
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a,
                                                                                     std::int32_t b) noexcept {
  // gemmlowp adds a sign-dependent nudge (2^30, or 1 - 2^30 below zero) and divides truncating
  // toward zero; that equals floor((a·b + 2^30) / 2^31) for every a·b, an arithmetic shift: one
  // multiply-add and a shift on a 32-bit core. Few statements on purpose: the constant
  // evaluator's step limit counts them (softmax calls this about thirty times per entry).
  const std::int64_t ab = std::int64_t{a} * std::int64_t{b};
  return a == b && a == std::numeric_limits<std::int32_t>::min()
             ? std::numeric_limits<std::int32_t>::max()
             : static_cast<std::int32_t>((ab + (std::int64_t{1} << 30)) >> 31);
}

/// x / 2^exponent rounded to nearest, ties away from zero (gemmlowp's RoundingDivideByPOT).
/// exponent in [0, 31].
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t rounding_divide_by_pot(std::int32_t x, std::int32_t exponent) noexcept {
  // 32-bit arithmetic only (no 64-bit shift routine on Cortex-M0): 2^31 - 1 still fits. One
  // declaration statement, for the constant evaluator's step count.
  const auto mask = static_cast<std::int32_t>((std::uint32_t{1} << exponent) - 1U),
             threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + ((x & mask) > threshold ? 1 : 0);
}

/// x · 2^exponent in two's complement, wrapping like the `x * (1 << shift)` of TFLite and
/// CMSIS-NN on their targets (an overflow there means the multiplier was out of range anyway).
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t wrapping_shift_left(std::int32_t x, std::int32_t exponent) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << exponent);
}

namespace detail {
// requantize with its shift already checked and split (left in [0, 30], right in [0, 31]): the
// kernels split it once per product instead of once per element.
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t requantize_by(std::int32_t acc, std::int32_t multiplier,
                                                             std::int32_t left, std::int32_t right) noexcept {
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(wrapping_shift_left(acc, left), multiplier),
                                right);
}

// A requantizer checked (checked_multiplier, checked_shift) and its shift split, as requantize_by
// takes it: what a kernel computes once per tensor or channel instead of once per element.
struct split_requantizer {
  std::int32_t multiplier, left, right;
};
constexpr split_requantizer split(requantizer r) noexcept {
  const std::int32_t shift = checked_shift(r.shift);
  return {checked_multiplier(r.multiplier), shift > 0 ? shift : 0, shift > 0 ? 0 : -shift};
}
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t requantize_by(std::int32_t acc, const split_requantizer& r) noexcept {
  return requantize_by(acc, r.multiplier, r.left, r.right);
}
}  // namespace detail

/// acc · m rounded, for m = multiplier · 2^(shift - 31): TFLite's MultiplyByQuantizedMultiplier
/// and CMSIS-NN's arm_nn_requantize. Two roundings (the high multiply, then the right shift), so
/// results can differ by one from round(acc · m); that is the reference behaviour, kept on purpose.
/// r must be valid_requantizer(r), as quantize_multiplier makes it. A multiplier that is neither 0 nor in
/// [2^30, 2^31) in magnitude stops a constant expression with
/// requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude, and at run time
/// counts as 0 (the result is 0). A shift outside [-31, 30] stops a constant expression with
/// requantizer_shift_must_be_in_minus_31_to_30, and at run time is clamped to that range. Never
/// undefined behaviour.
constexpr std::int32_t requantize(std::int32_t acc, requantizer r) noexcept {
  return detail::requantize_by(acc, detail::split(r));
}

namespace detail {
// TFLite's QuantizeMultiplier before its saturation of large shifts: real = q · 2^shift with |q|
// in [0.5, 1) (frexp, done by hand so that it is constexpr and needs no libm), multiplier =
// round(q · 2^31) half away from zero (a rounding up to 2^31 becomes 2^30 with shift + 1), shifts
// below -31 flushed to {0, 0}. The softmax's left shift (up to 31) comes from here unsaturated,
// as in TFLite. real must be finite (the callers check).
constexpr requantizer frexp_multiplier(double real) noexcept {
  if (real == 0.0) return {0, 0};
  const bool negative = real < 0;
  double q = negative ? -real : real;
  std::int32_t shift = 0;
  // Scaling by powers of two is exact, so q ends with the significand frexp would return.
  while (q >= 0x1p32) {
    q *= 0x1p-32;
    shift += 32;
  }
  while (q >= 1.0) {
    q *= 0.5;
    ++shift;
  }
  while (q < 0x1p-32) {
    q *= 0x1p32;
    shift -= 32;
  }
  while (q < 0.5) {
    q *= 2.0;
    --shift;
  }
  const double scaled = q * 0x1p31;  // exact: in [2^30, 2^31)
  auto fixed = static_cast<std::int64_t>(scaled);
  if (scaled - static_cast<double>(fixed) >= 0.5) ++fixed;
  if (fixed == (std::int64_t{1} << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {0, 0};
  return {static_cast<std::int32_t>(negative ? -fixed : fixed), shift};
}
}  // namespace detail

/// The requantizer of a real factor, TFLite's QuantizeMultiplier bit for bit: real = q · 2^shift
/// with |q| in [0.5, 1), multiplier = round(q · 2^31) half away from zero (a rounding up to 2^31
/// becomes 2^30 with shift + 1). The shift always lies in [-31, 30], the range requantize takes:
/// factors below about 2^-32 (shift < -31) flush to {0, 0}, and factors of 2^30 or more (shift
/// > 30) saturate to {2^31 - 1, 30}, about 2^30, as TFLite's QuantizeMultiplier does (its
/// single-rounding build; the double-rounding build leaves such shifts to fail later). Negative
/// factors give a negative multiplier, as TFLite does (saturated to -(2^31 - 1)). NaN and
/// infinities have no requantizer: a constant expression stops with
/// quantize_multiplier_of_nan_or_infinity, and at run time the result is {0, 0} (the factor 0).
constexpr requantizer quantize_multiplier(double real) noexcept {
  if (real != real || real > std::numeric_limits<double>::max() || real < -std::numeric_limits<double>::max()) {
    if (std::is_constant_evaluated()) detail::quantize_multiplier_of_nan_or_infinity();
    return {0, 0};
  }
  const requantizer r = detail::frexp_multiplier(real);
  if (r.shift <= 30) return r;
  constexpr std::int32_t max = std::numeric_limits<std::int32_t>::max();
  return {r.multiplier < 0 ? -max : max, 30};
}

/// The real factor a requantizer stands for, multiplier · 2^(shift - 31) (for documentation and
/// tests; computed exactly in double).
constexpr double real_multiplier(requantizer r) noexcept {
  double m = static_cast<double>(r.multiplier) * 0x1p-31;
  for (std::int32_t s = r.shift; s > 0; --s) m *= 2.0;
  for (std::int32_t s = r.shift; s < 0; ++s) m *= 0.5;
  return m;
}

}  // namespace cxmat::q8
