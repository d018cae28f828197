// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// int8 softmax in fixed point: TFLite's int8 reference Softmax (gemmlowp's exp_on_negative_values
// and one_over_one_plus_x_for_x_in_0_1, 5 integer bits for the scaled differences, 12 for the sum)
// and CMSIS-NN's arm_softmax_s8, bit for bit. Output scale 1/256, zero point -128.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/math/fp.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/quantized/requantize.hpp>

namespace cxmat::q8 {

namespace detail {
// Named errors (requantize.hpp).
inline void softmax_scale_and_beta_must_be_positive() noexcept {}
inline void softmax_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31() noexcept {}
inline void softmax_left_shift_must_be_in_0_to_31() noexcept {}
}  // namespace detail

/// The parameters of arm_softmax_s8 (TFLite's SoftmaxParams input_multiplier, input_left_shift,
/// diff_min): a difference d = x - max(row) (in input steps) becomes the Q5.26 number
/// d · input_scale · beta through `multiplier` and `left_shift`, and entries with d < diff_min
/// get probability 0 (their exp is below what the output can show). As make_softmax_params makes
/// them: multiplier 0 or in [2^30, 2^31), left_shift in [0, 31]. Written by hand outside those
/// ranges, they are refused where they are checked (q8::check of a module, or softmax itself in
/// a constant expression: a named error); at run time softmax computes with them as
/// checked_softmax_params says (never undefined behaviour).
struct softmax_params {
  std::int32_t multiplier, left_shift, diff_min;
  friend constexpr bool operator==(const softmax_params&, const softmax_params&) = default;
};

/// Whether p is what make_softmax_params can make: multiplier 0 or in [2^30, 2^31), left_shift
/// in [0, 31], diff_min <= 0.
constexpr bool valid_softmax_params(softmax_params p) noexcept {
  return (p.multiplier == 0 || p.multiplier >= (std::int32_t{1} << 30)) && p.left_shift >= 0 && p.left_shift <= 31 &&
         p.diff_min <= 0;
}

/// The quantization of every int8 softmax output: scale 1/256, zero point -128.
inline constexpr quantization softmax_output_quantization{1.0 / 256.0, -128};

/// The longest row softmax_rows takes: beyond 511 entries the final shift of the reference
/// arithmetic exceeds 31 bits.
inline constexpr std::size_t max_softmax_row = 511;

/// TFLite's PreprocessSoftmaxScaling with 5 integer bits and CalculateInputRadius: the real factor
/// min(beta · input_scale · 2^26, 2^31 - 1) as a requantizer (its shift is the left_shift, >= 0
/// for any input_scale above about 2^-26 / beta), and diff_min = -floor(31 · 2^26 / 2^left_shift).
/// input_scale and beta must be positive (not NaN): otherwise a constant expression stops with
/// softmax_scale_and_beta_must_be_positive, and at run time the result is {0, 0, 0} (each row's
/// probability shared by its largest entries).
constexpr softmax_params make_softmax_params(double input_scale, double beta = 1.0) noexcept {
  if (!(input_scale > 0) || !(beta > 0)) {
    cxmat::detail::refuse_in_constant_evaluation<detail::softmax_scale_and_beta_must_be_positive>();
    return {0, 0, 0};
  }
  double real = beta * input_scale * 0x1p26;
  if (real > 0x1p31 - 1.0) real = 0x1p31 - 1.0;
  const requantizer r = detail::frexp_multiplier(real);
  const std::int64_t radius = r.shift >= 0 ? ((std::int64_t{31} << 26) >> (r.shift > 62 ? 62 : r.shift)) : 0;
  return {r.multiplier, r.shift, static_cast<std::int32_t>(-radius)};
}

namespace detail {

// Saturating x · 2^e (gemmlowp's SaturatingRoundingMultiplyByPOT for e > 0).
constexpr std::int32_t saturating_shift_left(std::int32_t x, std::int32_t e) noexcept {
  const std::int32_t threshold = static_cast<std::int32_t>((std::int64_t{1} << (31 - e)) - 1);
  if (x > threshold) return std::numeric_limits<std::int32_t>::max();
  if (x < -threshold) return std::numeric_limits<std::int32_t>::min();
  return wrapping_shift_left(x, e);
}

/// exp(a) for a Q5.26 number a <= 0, as a Q0.31 number (gemmlowp's exp_on_negative_values with 5
/// integer bits): a Taylor polynomial around -1/8 on a mod 1/4, times exp(-2^k) for each set bit
/// k of the rest. exp(0) is INT32_MAX.
constexpr std::int32_t exp_on_negative_values(std::int32_t a) noexcept {
  constexpr std::int32_t quarter = 1 << 24;  // 1/4 in Q5.26
  const std::int32_t a_mod_quarter_minus_quarter = (a & (quarter - 1)) - quarter;
  // In Q0.31 (shift by the 5 integer bits, exact here), then x = that + 1/8.
  const std::int32_t x = a_mod_quarter_minus_quarter * 32 + (1 << 28);
  const std::int32_t x2 = saturating_rounding_doubling_high_mul(x, x);
  const std::int32_t x3 = saturating_rounding_doubling_high_mul(x2, x);
  const std::int32_t x4 = saturating_rounding_doubling_high_mul(x2, x2);
  const std::int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
  // x²/2 + x³/6 + x⁴/24, with 1/3 = 715827883 · 2^-31
  const std::int32_t tail =
      rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x4_over_4 + x3, 715827883) + x2, 1);
  constexpr std::int32_t exp_minus_one_eighth = 1895147668;
  std::int32_t result = exp_minus_one_eighth + saturating_rounding_doubling_high_mul(exp_minus_one_eighth, x + tail);
  // exp(-1/4), exp(-1/2), exp(-1), exp(-2), exp(-4), exp(-8), exp(-16) in Q0.31.
  constexpr std::int32_t factors[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  const std::int32_t rest = a_mod_quarter_minus_quarter - a;
  for (std::int32_t k = 0; k < 7; ++k) {
    if ((rest & (std::int32_t{1} << (24 + k))) != 0) result = saturating_rounding_doubling_high_mul(result, factors[k]);
  }
  return a == 0 ? std::numeric_limits<std::int32_t>::max() : result;
}

/// 1 / (1 + a) for a Q0.31 number a in [0, 1), in Q0.31 (gemmlowp's
/// one_over_one_plus_x_for_x_in_0_1): three Newton-Raphson steps on the half denominator, in Q2.29.
constexpr std::int32_t one_over_one_plus_x_for_x_in_0_1(std::int32_t a) noexcept {
  const std::int64_t sum = std::int64_t{a} + std::numeric_limits<std::int32_t>::max();
  const auto half_denominator = static_cast<std::int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  // 48/17 and -32/17 in Q2.29
  std::int32_t x = 1515870810 + saturating_rounding_doubling_high_mul(half_denominator, -1010580540);
  for (int i = 0; i < 3; ++i) {
    const std::int32_t one_minus = (std::int32_t{1} << 29) - saturating_rounding_doubling_high_mul(half_denominator, x);
    x = x + saturating_shift_left(saturating_rounding_doubling_high_mul(x, one_minus), 2);
  }
  return saturating_shift_left(x, 1);
}

// softmax_params checked, once per call of the layer or of softmax_rows (softmax_row takes them
// checked): a multiplier or left shift out of range is a named error in a constant expression.
// At run time a positive multiplier below 2^30 is used as it is (TFLite's arithmetic does not need
// it normalized), a negative one counts as 0 (it would make exp's argument positive), and a left
// shift above 31 acts as 31 (below 0 as 0): with diff_min taken in [lowest, 0] as below, only the
// row's largest entries take part from a shift of 31 on, which is what any larger shift gives
// (every other entry's exp is below 2^-32). diff_min is taken in [lowest, 0]: entries whose
// d · 2^left_shift would leave int32 take no part (make_softmax_params's diff_min keeps them out
// already; a hand-written one might not), so exp's argument stays <= 0, and the max always takes
// part, so the row's sum is positive.
constexpr softmax_params checked_softmax_params(const softmax_params& p) noexcept {
  softmax_params r = p;
  if (!(p.multiplier == 0 || p.multiplier >= (std::int32_t{1} << 30))) {
    cxmat::detail::refuse_in_constant_evaluation<softmax_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31>();
    r.multiplier = p.multiplier < 0 ? 0 : p.multiplier;
  }
  if (p.left_shift < 0 || p.left_shift > 31) {
    cxmat::detail::refuse_in_constant_evaluation<softmax_left_shift_must_be_in_0_to_31>();
    r.left_shift = p.left_shift < 0 ? 0 : 31;
  }
  const std::int32_t lowest = -(std::numeric_limits<std::int32_t>::max() >> r.left_shift);
  r.diff_min = p.diff_min > 0 ? 0 : (p.diff_min < lowest ? lowest : p.diff_min);
  return r;
}

/// One row of arm_softmax_s8: in and out hold N int8 values (they may be the same array); keep,
/// when not null, says which entries take part (the others, as entries below diff_min, get
/// probability 0, i.e. -128). A row with no entry taking part is all -128. N <= max_softmax_row.
/// p as checked_softmax_params returns it (never undefined behaviour then).
/// Each entry's exp is computed once and kept (4·N bytes of stack), where the reference kernels
/// compute it twice; the values are the same.
template <std::size_t N>
constexpr void softmax_row(const std::int8_t* in, std::int8_t* out, const bool* keep,
                           const softmax_params& p) noexcept {
  bool any = false;
  std::int32_t max = -128;
  for (std::size_t c = 0; c < N; ++c) {
    if (keep == nullptr || keep[c]) {
      max = !any || in[c] > max ? in[c] : max;
      any = true;
    }
  }
  // e[c]: exp of the scaled difference d = in[c] - max in Q0.31, or -1 when the entry takes no
  // part (masked, or d below diff_min). sum: Q12.19, at least 2^19 (the max's own term).
  std::int32_t e[N], sum = 0;
  for (std::size_t c = 0; c < N; ++c) {
    const std::int32_t d = in[c] - max;
    e[c] = !any || (keep != nullptr && !keep[c]) || d < p.diff_min
               ? -1
               : exp_on_negative_values(
                     saturating_rounding_doubling_high_mul(wrapping_shift_left(d, p.left_shift), p.multiplier));
    sum += e[c] >= 0 ? rounding_divide_by_pot(e[c], 12) : 0;
  }
  if (!any) {  // a fully masked row: every probability 0
    for (std::size_t c = 0; c < N; ++c) out[c] = -128;
    return;
  }
  // 1 / sum: sum = 2^(12 - headroom) · (1 + f), f in [0, 1).
  const auto headroom = static_cast<std::int32_t>(std::countl_zero(static_cast<std::uint32_t>(sum)));
  const auto f = static_cast<std::int32_t>((static_cast<std::uint32_t>(sum) << headroom) - (std::uint32_t{1} << 31));
  const std::int32_t reciprocal = one_over_one_plus_x_for_x_in_0_1(f), exponent = (12 - headroom) + 31 - 8;
  for (std::size_t c = 0; c < N; ++c) {
    const std::int32_t v =
        e[c] < 0 ? -128
                 : rounding_divide_by_pot(saturating_rounding_doubling_high_mul(reciprocal, e[c]), exponent) - 128;
    out[c] = static_cast<std::int8_t>(v > 127 ? 127 : v);
  }
}

}  // namespace detail

/// Softmax of each row of an int8 matrix (any input scale and zero point: only differences
/// matter), R x C -> R x C int8 probabilities with scale 1/256 and zero point -128; arm_softmax_s8
/// and TFLite's int8 Softmax with the same params. C <= max_softmax_row.
template <extent R, extent C>
constexpr matrix<std::int8_t, R, C> softmax_rows(const matrix<std::int8_t, R, C>& m,
                                                 const softmax_params& params) noexcept {
  static_assert(C.size <= max_softmax_row, "softmax_rows(m, params): rows longer than 511 are not supported");
  matrix<std::int8_t, R, C> out;
  const softmax_params p = detail::checked_softmax_params(params);
  for (std::size_t i = 0; i < R.size; ++i) detail::softmax_row<C.size>(m.elems[i], out.elems[i], nullptr, p);
  return out;
}

}  // namespace cxmat::q8
