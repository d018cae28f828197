// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// int8 dot products with Helium (the M-profile Vector Extension, MVE: Cortex-M55, M85), for the
// int8 layer's run-time path: sixteen int8 pairs per step, multiplied and summed into a 32-bit
// accumulator by one VMLADAVA, the depths that are not a multiple of 16 loaded under a tail
// predicate (VCTP, zeros in the inactive lanes). The offsets are applied as CMSIS-NN's MVE
// kernels apply them, after the sums: Σ (a + lo)(b + ro) = Σ ab + ro·Σ a + lo·Σ b + depth·lo·ro.
// Integer arithmetic: the same sums as the portable loop, bit for bit (the terms are added modulo
// 2^32, and the result, which fits int32 below q8::max_matmul_depth, is exact). Used only outside
// constant evaluation, where CXMAT_RUNTIME_KERNELS (the kernels' one switch) is on and the target
// has MVE's integer instructions (__ARM_FEATURE_MVE bit 0); there it takes precedence over the
// DSP extension's kernels (kernels/runtime_dsp.hpp), which the same cores also have. Everywhere
// else CXMAT_DETAIL_MVE is 0 and nothing here is defined.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/kernels/runtime_simd.hpp>

#if CXMAT_RUNTIME_KERNELS != 0 && defined(__ARM_FEATURE_MVE) && (defined(__GNUC__) || defined(__clang__))
#if (__ARM_FEATURE_MVE & 1) != 0
#define CXMAT_DETAIL_MVE 1
#include <arm_mve.h>
#endif
#endif
#ifndef CXMAT_DETAIL_MVE
#define CXMAT_DETAIL_MVE 0
#endif

#if CXMAT_DETAIL_MVE
namespace cxmat::detail {

// Helium's loads of sixteen int8 values: all of them, or (Tail) the first n < 16 of them under
// a tail predicate, zeros in the other lanes (which are not read).
template <bool Tail>
[[gnu::always_inline]] inline int8x16_t load_s8(const std::int8_t* p, [[maybe_unused]] mve_pred16_t lanes) noexcept {
  if constexpr (Tail) {
    return vldrbq_z_s8(p, lanes);
  } else {
    return vldrbq_s8(p);
  }
}

// Σ_k a[k]·b[k] for k < n, without offsets (int8 groups: n <= 2^16 keeps it within int32).
inline std::int32_t dot_s8_mve(const std::int8_t* a, const std::int8_t* b, std::size_t n) noexcept {
  std::int32_t acc = 0;
  for (; n >= 16; n -= 16, a += 16, b += 16) acc = vmladavaq_s8(acc, load_s8<false>(a, 0), load_s8<false>(b, 0));
  if (n != 0) {
    const mve_pred16_t lanes = vctp8q(n);
    acc = vmladavaq_s8(acc, load_s8<true>(a, lanes), load_s8<true>(b, lanes));
  }
  return acc;
}

// Σ_k b[k] for k < n.
inline std::int32_t sum_s8_mve(const std::int8_t* b, std::size_t n) noexcept {
  std::int32_t sum = 0;
  for (; n >= 16; n -= 16, b += 16) sum = vaddvaq_s8(sum, load_s8<false>(b, 0));
  if (n != 0) sum = vaddvaq_s8(sum, load_s8<true>(b, vctp8q(n)));
  return sum;
}

// dot_s8x4_mve's sums: Σ a and the four Σ a·b.
struct dot4_sums {
  std::int32_t a, s0, s1, s2, s3;
};

// Sixteen depths (or the last n < 16, Tail) of dot_s8x4_mve: a's bytes loaded once for the four
// rows. Written out (no arrays, no loop over the rows), which keeps every pointer and sum in a
// register at -Os.
template <bool Tail>
[[gnu::always_inline]] inline void dot4_step(const std::int8_t* a, const std::int8_t* b0, const std::int8_t* b1,
                                             const std::int8_t* b2, const std::int8_t* b3, mve_pred16_t lanes,
                                             std::int32_t& sa, std::int32_t& s0, std::int32_t& s1, std::int32_t& s2,
                                             std::int32_t& s3) noexcept {
  const int8x16_t va = load_s8<Tail>(a, lanes);
  sa = vaddvaq_s8(sa, va);
  s0 = vmladavaq_s8(s0, load_s8<Tail>(b0, lanes), va);
  s1 = vmladavaq_s8(s1, load_s8<Tail>(b1, lanes), va);
  s2 = vmladavaq_s8(s2, load_s8<Tail>(b2, lanes), va);
  s3 = vmladavaq_s8(s3, load_s8<Tail>(b3, lanes), va);
}

// Four of dot_s8_mve's sums at once, of one row a with the w <= 4 rows from b on, b_stride apart
// (the last one again where w < 4), and Σ_k a[k] (for the right offset). a's sixteen bytes are loaded once for the four
// (as CMSIS-NN's arm_nn_vec_mat_mult_t_s8 takes four rows per pass). A function of its own (not inlined), so that the
// loop keeps its pointers and sums in the core's registers.
[[gnu::noinline]] inline dot4_sums dot_s8x4_mve(const std::int8_t* a, const std::int8_t* b, std::size_t b_stride,
                                                std::size_t w, std::size_t depth) noexcept {
  const std::int8_t *b0 = b, *b1 = w > 1 ? b0 + b_stride : b0, *b2 = w > 2 ? b1 + b_stride : b1,
                    *b3 = w > 3 ? b2 + b_stride : b2;
  std::int32_t sa = 0, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  // The whole blocks of sixteen in assembly: GCC 12 at -Os keeps the five pointers on the stack
  // (one shared index), twice the instructions; here each load moves its own pointer on.
  if (std::size_t blocks = depth / 16; blocks != 0) {
    __asm__ volatile(
        "1:\n\t"
        "vldrb.8 q0, [%[a]], #16\n\t"
        "vaddva.s8 %[sa], q0\n\t"
        "vldrb.8 q1, [%[b0]], #16\n\t"
        "vmlava.s8 %[s0], q1, q0\n\t"
        "vldrb.8 q1, [%[b1]], #16\n\t"
        "vmlava.s8 %[s1], q1, q0\n\t"
        "vldrb.8 q1, [%[b2]], #16\n\t"
        "vmlava.s8 %[s2], q1, q0\n\t"
        "vldrb.8 q1, [%[b3]], #16\n\t"
        "vmlava.s8 %[s3], q1, q0\n\t"
        "subs %[n], %[n], #1\n\t"
        "bne 1b"
        : [a] "+r"(a), [b0] "+r"(b0), [b1] "+r"(b1), [b2] "+r"(b2), [b3] "+r"(b3), [sa] "+r"(sa), [s0] "+Te"(s0),
          [s1] "+Te"(s1), [s2] "+Te"(s2), [s3] "+Te"(s3), [n] "+r"(blocks)
        :
        : "q0", "q1", "cc", "memory");
  }
  if (const std::size_t n = depth % 16; n != 0) dot4_step<true>(a, b0, b1, b2, b3, vctp8q(n), sa, s0, s1, s2, s3);
  return {sa, s0, s1, s2, s3};
}

// Σ ab + ro·Σa + lo·Σb + depth·lo·ro added modulo 2^32 (a partial sum may leave int32 where the
// whole does not): `column` is lo·Σb + depth·lo·ro (+ a bias), a row's sums are ab and sa.
inline std::int32_t offset_dot(std::int32_t ab, std::int32_t sa, std::int32_t ro, std::uint32_t column) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(ab) +
                                   static_cast<std::uint32_t>(ro) * static_cast<std::uint32_t>(sa) + column);
}
inline std::uint32_t offset_column(const std::int8_t* b, std::size_t depth, std::int32_t lo, std::int32_t ro,
                                   std::int32_t bias) noexcept {
  const auto ulo = static_cast<std::uint32_t>(lo);
  return ulo * (lo != 0 ? static_cast<std::uint32_t>(sum_s8_mve(b, depth)) : 0U) +
         static_cast<std::uint32_t>(depth) * ulo * static_cast<std::uint32_t>(ro) + static_cast<std::uint32_t>(bias);
}

// TFLite's requantization of four int32 sums at once, RoundingDivideByPOT(SaturatingRounding-
// DoublingHighMul(acc, multiplier), right) lane by lane, plus the output offset, clamped to [lo,
// hi]: VQRDMULH is the rounding doubling high multiply exactly (floor((a·b + 2^30) / 2^31),
// INT32_MIN · INT32_MIN saturated), and a rounding shift right (VRSHL by -right, ties upward)
// after subtracting 1 from a negative value rounds ties away from zero, as RoundingDivideByPOT
// does (TFLite's vector kernels divide so too). neg_right holds -right, right in [0, 31].
inline int32x4_t requantize_s32x4_mve(int32x4_t acc, int32x4_t multiplier, int32x4_t neg_right,
                                      std::int32_t output_offset, std::int32_t lo, std::int32_t hi) noexcept {
  const int32x4_t high = vqrdmulhq_s32(acc, multiplier);
  const int32x4_t fixup = vshrq_n_s32(vandq_s32(high, neg_right), 31);
  const int32x4_t v = vaddq_s32(vrshlq_s32(vqaddq_s32(high, fixup), neg_right), vdupq_n_s32(output_offset));
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

}  // namespace cxmat::detail
#endif
