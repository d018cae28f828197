// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Requantization: scaling an int32 accumulator by a real factor in integer arithmetic, as
// TFLite's int8 kernels and CMSIS-NN do it (a Q31 multiplier and a power-of-two shift, gemmlowp's
// rounding). Bit-exact with TFLite's QuantizeMultiplier / MultiplyByQuantizedMultiplier (default
// double rounding) and CMSIS-NN's arm_nn_requantize (without CMSIS_NN_USE_SINGLE_ROUNDING).
#pragma once

#include <cstdint>
#include <limits>

#include <cxmat/kernels/runtime_dsp.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat::q8 {

namespace detail {
// Named errors of constant evaluation (cxmat::detail::refuse_in_constant_evaluation): each is
// deliberately not constexpr, so reaching one stops the constant expression and the compiler
// names it (its first line quotes the function).
inline void requantizer_shift_must_be_in_minus_31_to_30() noexcept {}
inline void requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude() noexcept {}
inline void quantize_multiplier_of_nan_or_infinity() noexcept {}

// Whether m is a multiplier quantize_multiplier can make: 0, or |m| in [2^30, 2^31) (a Q31
// number in [0.5, 1), negative for a negative factor). INT32_MIN (|m| = 2^31) is outside.
CXMAT_DETAIL_DSP_INLINE constexpr bool normalized_multiplier(std::int32_t m) noexcept {
  return m == 0 || m >= (std::int32_t{1} << 30) ||
         (m <= -(std::int32_t{1} << 30) && m != std::numeric_limits<std::int32_t>::min());
}
}  // namespace detail

/// A real factor m = multiplier * 2^(shift - 31), multiplier a Q31 number with |multiplier| in
/// [2^30, 2^31) (or 0; negative for a negative factor, as TFLite's QuantizeMultiplier makes it),
/// shift in [-31, 30]. shift > 0 shifts left and shift <= 0 shifts right, as TFLite's `shift` /
/// CMSIS-NN's `shift`. Made by quantize_multiplier (from a real factor) or make_requantizer (from
/// hand-written numbers, checked); q8::check(module) checks the requantizers of a whole module.
struct requantizer {
  std::int32_t multiplier;
  std::int32_t shift;
  friend constexpr bool operator==(const requantizer&, const requantizer&) = default;
};

/// What is wrong with a requantizer, if anything (the multiplier is checked first).
enum class requantizer_status : std::uint8_t {
  ok,
  multiplier_not_normalized,  // neither 0 nor in [2^30, 2^31) in magnitude (e.g. round(0.1 · 2^31))
  shift_out_of_range,         // outside [-31, 30]
};

/// The status of r: ok when quantize_multiplier could have made it.
constexpr requantizer_status status_of(requantizer r) noexcept {
  if (!detail::normalized_multiplier(r.multiplier)) return requantizer_status::multiplier_not_normalized;
  if (r.shift < -31 || r.shift > 30) return requantizer_status::shift_out_of_range;
  return requantizer_status::ok;
}

/// Whether r is a requantizer quantize_multiplier can make: multiplier 0 or |multiplier| in
/// [2^30, 2^31), and shift in [-31, 30].
constexpr bool valid_requantizer(requantizer r) noexcept { return status_of(r) == requantizer_status::ok; }

namespace detail {
// A broken requantizer in a constant expression: its named error (nothing at run time).
constexpr void refuse(requantizer_status s) noexcept {
  if (s == requantizer_status::multiplier_not_normalized) {
    cxmat::detail::refuse_in_constant_evaluation<
        requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude>();
  } else if (s == requantizer_status::shift_out_of_range) {
    cxmat::detail::refuse_in_constant_evaluation<requantizer_shift_must_be_in_minus_31_to_30>();
  }
}
}  // namespace detail

/// A requantizer made from hand-written numbers (a TFLite model's, a CMSIS-NN call's), and what
/// is wrong with it: `value` is usable when ok(), and is {0, 0} (the factor 0) otherwise.
struct checked_requantizer {
  requantizer value;
  requantizer_status status;
  constexpr bool ok() const noexcept { return status == requantizer_status::ok; }
};

/// The requantizer {multiplier, shift}, checked where it is made: in a constant expression a
/// multiplier that is neither 0 nor in [2^30, 2^31) in magnitude stops with
/// requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude and a shift outside
/// [-31, 30] with requantizer_shift_must_be_in_minus_31_to_30; at run time the result's status
/// says which (and its value is {0, 0}). Nothing is clamped.
constexpr checked_requantizer make_requantizer(std::int32_t multiplier, std::int32_t shift) noexcept {
  const requantizer r{multiplier, shift};
  const requantizer_status s = status_of(r);
  detail::refuse(s);
  return {s == requantizer_status::ok ? r : requantizer{0, 0}, s};
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
// A requantizer as the kernels apply it, split once per tensor or channel: `left` in [0, 31] and
// `right` >= 0. With left 0, right is TFLite's right shift (at most 31); with left in [1, 30],
// right is 0. Left 31 stands for a shift above 30 (which q8 refuses but still computes exactly, see
// split), and right then holds shift - 31.
struct split_requantizer {
  std::int32_t multiplier, left, right;
};

CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t saturate_to_int32(std::int64_t v) noexcept {
  constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  return static_cast<std::int32_t>(v < lo ? lo : (v > hi ? hi : v));
}

// requantize_by with a left shift: SaturatingRoundingDoublingHighMul(acc · 2^left, multiplier) with
// acc · 2^left never formed (TFLite's `x * (1 << left_shift)` overflows int32 there, undefined
// behaviour in C++ that wraps on the targets): (acc·multiplier + 2^(30 - left)) / 2^(31 - left),
// the same value wherever acc · 2^left fits int32 and the exact one, saturated to int32, where it
// does not. Left 31 (a shift of 31 + right): acc·multiplier·2^right saturated, the product first
// clamped to ±2^31 and the shift to 31, which changes no saturated result and keeps it in int64.
// Out of line: factors of 1 or more are rare (an int8 product's or sum's factor is below 1), and
// the common path stays a few instructions where it is inlined.
[[gnu::noinline]] constexpr std::int32_t requantize_left(std::int32_t acc, const split_requantizer& r) noexcept {
  const std::int64_t p = std::int64_t{acc} * r.multiplier, bound = std::int64_t{1} << 31;
  return saturate_to_int32(r.left < 31 ? (p + ((std::int64_t{1} << 30) >> r.left)) >> (31 - r.left)
                                       : (p < -bound ? -bound : (p > bound ? bound : p)) *
                                             (std::int64_t{1} << (r.right < 31 ? r.right : 31)));
}

// requantize by a split requantizer: without left shift TFLite's arithmetic as written,
// RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(acc, multiplier), right); with one,
// requantize_left. One return statement: the constant evaluator's step limit counts statements.
CXMAT_DETAIL_DSP_INLINE constexpr std::int32_t requantize_by(std::int32_t acc, const split_requantizer& r) noexcept {
  return r.left == 0 ? rounding_divide_by_pot(saturating_rounding_doubling_high_mul(acc, r.multiplier), r.right)
                     : requantize_left(acc, r);
}

// r split for requantize_by, refused in a constant expression when not valid_requantizer(r)
// (its named error). At run time every requantizer gives the exact value of TFLite's formula,
// saturated: any multiplier is used as it is (TFLite's arithmetic does not need it normalized); a
// shift above 30 gives acc · multiplier · 2^(shift - 31) saturated; a shift below -31 gives 0, the
// exact value (|SaturatingRoundingDoublingHighMul| < 2^31, divided by at least 2^32 and rounded).
constexpr split_requantizer split(requantizer r) noexcept {
  refuse(status_of(r));
  if (r.shift < -31) return {0, 0, 0};
  if (r.shift > 30) return {r.multiplier, 31, r.shift - 31};
  return {r.multiplier, r.shift > 0 ? r.shift : 0, r.shift > 0 ? 0 : -r.shift};
}
}  // namespace detail

/// acc · m rounded, for m = multiplier · 2^(shift - 31): TFLite's MultiplyByQuantizedMultiplier
/// and CMSIS-NN's arm_nn_requantize. Two roundings (the high multiply, then the right shift), so
/// results can differ by one from round(acc · m); that is the reference behaviour, kept on purpose.
/// Results saturate to int32 for every shift in [-31, 30]: where a left shift makes acc · 2^shift
/// overflow int32 (the references' `x * (1 << shift)`, undefined behaviour), the result is the
/// exact high multiply of the unoverflowed product, saturated (a shift of 30 with acc = 4 gives
/// INT32_MAX, never the wrapped 0). r must be valid_requantizer(r), as quantize_multiplier and
/// make_requantizer make it: otherwise a constant expression stops with its named error
/// (requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude,
/// requantizer_shift_must_be_in_minus_31_to_30), and at run time the result is still the exact,
/// saturated value of the formula (see detail::split): never undefined behaviour, never a clamp.
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
    cxmat::detail::refuse_in_constant_evaluation<detail::quantize_multiplier_of_nan_or_infinity>();
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
