// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The two 16-bit float formats of checkpoints, IEEE binary16 (float16, safetensors' F16, GGUF's
// F16) and bfloat16 (BF16), widened exactly to float: every value of either is a float. One
// definition for the safetensors reader and for models that keep their weights in 16 bits.
#pragma once

#include <bit>
#include <cstdint>

namespace cxmat {

/// A 16-bit float format: IEEE binary16 (1 sign, 5 exponent and 10 fraction bits) or bfloat16
/// (the top half of a float: 1, 8 and 7).
enum class half_format : std::uint8_t { binary16, bfloat16 };

/// The float whose 16-bit encoding in format F is `bits`, exactly (NaN stays NaN, infinities
/// stay infinite, binary16's subnormals become normal floats).
template <half_format F>
constexpr float widen_half(std::uint16_t bits) noexcept {
  const std::uint32_t half = bits;
  if constexpr (F == half_format::bfloat16) {
    return std::bit_cast<float>(half << 16U);
  } else {
    const std::uint32_t sign = (half & 0x8000U) << 16U;
    const std::uint32_t exponent = (half >> 10U) & 0x1FU;
    const std::uint32_t fraction = half & 0x3FFU;
    if (exponent == 0) {  // zero or subnormal: fraction · 2^-24, exact in a float
      const float magnitude = static_cast<float>(fraction) * 5.9604644775390625e-08F;
      return sign != 0 ? -magnitude : magnitude;
    }
    const std::uint32_t out = exponent == 0x1FU ? (sign | 0x7F800000U | (fraction << 13U))
                                                : (sign | ((exponent + 112U) << 23U) | (fraction << 13U));
    return std::bit_cast<float>(out);
  }
}

}  // namespace cxmat
