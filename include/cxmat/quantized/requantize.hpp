// Requantization: scaling an int32 accumulator by a real factor in integer arithmetic, as
// TFLite's int8 kernels and CMSIS-NN do it (a Q31 multiplier and a power-of-two shift, gemmlowp's
// rounding). Bit-exact with TFLite's QuantizeMultiplier / MultiplyByQuantizedMultiplier (default
// double rounding) and CMSIS-NN's arm_nn_requantize (without CMSIS_NN_USE_SINGLE_ROUNDING).
#pragma once

#include <cstdint>
#include <limits>

namespace cxmat::q8 {

/// A real factor m = multiplier * 2^(shift - 31), multiplier a Q31 number in [2^30, 2^31) (or 0).
/// shift > 0 shifts left and shift <= 0 shifts right, as TFLite's `shift` / CMSIS-NN's `shift`.
struct requantizer {
  std::int32_t multiplier;
  std::int32_t shift;
  friend constexpr bool operator==(const requantizer&, const requantizer&) = default;
};

/// The rounded high half of 2·a·b (gemmlowp's SaturatingRoundingDoublingHighMul): a·b / 2^31
/// rounded to nearest with ties toward +infinity (the nudge and the truncating division round a
/// negative tie toward zero); the one overflowing case, INT32_MIN · INT32_MIN, gives INT32_MAX.
constexpr std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b) noexcept {
  // Few statements on purpose: the constant evaluator's step limit counts them (softmax calls
  // this about thirty times per entry). Division truncates toward zero; with the sign-dependent
  // nudge that is floor(a·b / 2^31 + 1/2).
  const std::int64_t ab = std::int64_t{a} * std::int64_t{b};
  return a == b && a == std::numeric_limits<std::int32_t>::min()
             ? std::numeric_limits<std::int32_t>::max()
             : static_cast<std::int32_t>((ab + (ab >= 0 ? std::int64_t{1} << 30 : 1 - (std::int64_t{1} << 30))) /
                                         (std::int64_t{1} << 31));
}

/// x / 2^exponent rounded to nearest, ties away from zero (gemmlowp's RoundingDivideByPOT).
/// exponent in [0, 31].
constexpr std::int32_t rounding_divide_by_pot(std::int32_t x, std::int32_t exponent) noexcept {
  // 32-bit arithmetic only (no 64-bit shift routine on Cortex-M0): 2^31 - 1 still fits. One
  // declaration statement, for the constant evaluator's step count.
  const auto mask = static_cast<std::int32_t>((std::uint32_t{1} << exponent) - 1U),
             threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + ((x & mask) > threshold ? 1 : 0);
}

/// x · 2^exponent in two's complement, wrapping like the `x * (1 << shift)` of TFLite and
/// CMSIS-NN on their targets (an overflow there means the multiplier was out of range anyway).
constexpr std::int32_t wrapping_shift_left(std::int32_t x, std::int32_t exponent) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << exponent);
}

/// acc · m rounded, for m = multiplier · 2^(shift - 31): TFLite's MultiplyByQuantizedMultiplier
/// and CMSIS-NN's arm_nn_requantize. Two roundings (the high multiply, then the right shift), so
/// results can differ by one from round(acc · m); that is the reference behaviour, kept on purpose.
/// shift in [-31, 30].
constexpr std::int32_t requantize(std::int32_t acc, requantizer r) noexcept {
  return rounding_divide_by_pot(
      saturating_rounding_doubling_high_mul(wrapping_shift_left(acc, r.shift > 0 ? r.shift : 0), r.multiplier),
      r.shift > 0 ? 0 : -r.shift);
}

/// The requantizer of a real factor (TFLite's QuantizeMultiplier): real = q · 2^shift with
/// |q| in [0.5, 1) (frexp, done by hand so that it is constexpr and needs no libm), multiplier =
/// round(q · 2^31) half away from zero (a rounding up to 2^31 becomes 2^30 with shift + 1).
/// Factors below 2^-32 or so (shift < -31) flush to {0, 0}, as in TFLite. real must be finite;
/// negative factors give a negative multiplier, as TFLite does.
constexpr requantizer quantize_multiplier(double real) noexcept {
  if (real == 0.0 || real != real || real > std::numeric_limits<double>::max() ||
      real < -std::numeric_limits<double>::max()) {
    return {0, 0};
  }
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

/// The real factor a requantizer stands for, multiplier · 2^(shift - 31) (for documentation and
/// tests; computed exactly in double).
constexpr double real_multiplier(requantizer r) noexcept {
  double m = static_cast<double>(r.multiplier) * 0x1p-31;
  for (std::int32_t s = r.shift; s > 0; --s) m *= 2.0;
  for (std::int32_t s = r.shift; s < 0; ++s) m *= 0.5;
  return m;
}

}  // namespace cxmat::q8
