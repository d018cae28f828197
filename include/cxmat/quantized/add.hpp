// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The int8 elementwise sum of two tensors of one shape (a residual connection): TFLite's int8 ADD
// (reference_integer_ops::Add, CMSIS-NN's arm_elementwise_add_s8) bit for bit. Each input is
// moved to a common scale (twice the larger input scale, with 20 bits of headroom), the two are
// added in int32, and the sum is requantized to the output.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/quantized/requantize.hpp>

namespace cxmat::q8 {

/// TFLite's ArithmeticParams of an int8 ADD (CMSIS-NN's names in arm_elementwise_add_s8 are the
/// same): input1_offset and input2_offset are ADDED to the inputs (the negated zero points),
/// output_offset is the output zero point, left_shift = 20, input1 / input2 / output the
/// requantizers of s1 / (2·max(s1, s2)), s2 / (2·max(s1, s2)) and 2·max(s1, s2) / (2^20·s_out),
/// and [activation_min, activation_max] the clamp.
struct add_params {
  std::int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  std::int32_t left_shift = 20;
  requantizer input1{}, input2{}, output{};
  std::int32_t activation_min = -128, activation_max = 127;
  friend constexpr bool operator==(const add_params&, const add_params&) = default;
};

/// The parameters of a + b for inputs quantized with in1 and in2 and the output with out, as
/// TFLite's ADD prepares them (QuantizeMultiplierSmallerThanOneExp of each real multiplier, here
/// quantize_multiplier, the same numbers). TFLite requires the output multiplier 2·max(s1, s2) /
/// (2^20·s_out) below 1, i.e. an output scale above about 2^-19 of the inputs'; larger factors
/// still give a requantizer here (a left shift), where TFLite would refuse the model.
constexpr add_params make_add_params(quantization in1, quantization in2, quantization out) noexcept {
  const double twice_max = 2.0 * (in1.scale > in2.scale ? in1.scale : in2.scale);
  return {-in1.zero_point,
          -in2.zero_point,
          out.zero_point,
          20,
          quantize_multiplier(in1.scale / twice_max),
          quantize_multiplier(in2.scale / twice_max),
          quantize_multiplier(twice_max / (static_cast<double>(std::int32_t{1} << 20) * out.scale)),
          -128,
          127};
}

namespace detail {
// add_params' three requantizers checked and split once per sum (split_requantizer).
struct add_split {
  split_requantizer input1, input2, output;
};
constexpr add_split split(const add_params& p) noexcept { return {split(p.input1), split(p.input2), split(p.output)}; }

// One element of TFLite's AddFunc: ((a + o1)·2^20)·m1 + ((b + o2)·2^20)·m2, requantized by the
// output multiplier, plus the output offset, clamped.
constexpr std::int8_t add_one(std::int8_t a, std::int8_t b, const add_params& p, const add_split& s) noexcept {
  const std::int32_t sa = requantize_by(wrapping_shift_left(a + p.input1_offset, p.left_shift), s.input1),
                     sb = requantize_by(wrapping_shift_left(b + p.input2_offset, p.left_shift), s.input2),
                     v = requantize_by(sa + sb, s.output) + p.output_offset;
  return static_cast<std::int8_t>(v < p.activation_min ? p.activation_min
                                                       : (v > p.activation_max ? p.activation_max : v));
}

// out = a + b over R rows of C (add_one each); out may be a or b (element by element).
template <std::size_t R, std::size_t C>
constexpr void add_rows(const std::int8_t (*a)[C], const std::int8_t (*b)[C], std::int8_t (*out)[C],
                        const add_params& p) noexcept {
  const add_split s = split(p);
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) out[i][j] = add_one(a[i][j], b[i][j], p, s);
  }
}
}  // namespace detail

/// The int8 sum a + b of two matrices of one shape (TFLite's ADD without broadcasting; the shape
/// rule of the float a + b, names included: the named one wins), each element detail::add_one:
/// out = clamp(requantize(requantize((a + input1_offset)·2^20, input1) + requantize((b +
/// input2_offset)·2^20, input2), output) + output_offset).
template <extent R1, extent C1, extent R2, extent C2>
requires rules_hold<rules_of::elementwise<std::int8_t, R1, C1, R2, C2>>
constexpr matrix<std::int8_t, common_extent_v<R1, R2>, common_extent_v<C1, C2>> add(
    const matrix<std::int8_t, R1, C1>& a, const matrix<std::int8_t, R2, C2>& b, const add_params& params) noexcept {
  matrix<std::int8_t, common_extent_v<R1, R2>, common_extent_v<C1, C2>> out;
  detail::add_rows<R1.size, C1.size>(a.elems, b.elems, out.elems, params);
  return out;
}
/// Shape error: q8::add(a, b, params) with different shapes (or names).
template <extent R1, extent C1, extent R2, extent C2>
decltype(cxmat::detail::first_failure<rules_of::elementwise<std::int8_t, R1, C1, R2, C2>>::error()) add(
    const matrix<std::int8_t, R1, C1>& a, const matrix<std::int8_t, R2, C2>& b, const add_params& params) noexcept;

}  // namespace cxmat::q8
