// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// int8 dot products with the Cortex-M4/M7 DSP extension, for the int8 layer's run-time path:
// four int8 pairs per step, sign-extended two at a time to int16 with their offsets added
// (SXTAB16) and multiplied and accumulated in pairs (SMLAD), as CMSIS-NN's s8 kernels do. Integer
// arithmetic: the same sums as the portable loop, bit for bit. Used only outside constant
// evaluation, where CXMAT_RUNTIME_KERNELS (the kernels' one switch) is on and the target has the
// extension (__ARM_FEATURE_DSP with ACLE's SIMD32 intrinsics); everywhere else CXMAT_DETAIL_DSP
// is 0 and nothing here is defined.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/kernels/runtime_simd.hpp>

#if CXMAT_RUNTIME_KERNELS != 0 && defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32) && \
    (defined(__GNUC__) || defined(__clang__))
#define CXMAT_DETAIL_DSP 1
#include <arm_acle.h>
#else
#define CXMAT_DETAIL_DSP 0
#endif

// The int8 requantization steps (a few instructions each, run for every output element) are
// inlined where the DSP kernels are used; elsewhere (Cortex-M0+, hosts) the compiler decides, and
// -Os keeps them out of line, which is smaller.
#if CXMAT_DETAIL_DSP
#define CXMAT_DETAIL_DSP_INLINE [[gnu::always_inline]]
#else
#define CXMAT_DETAIL_DSP_INLINE
#endif

#if CXMAT_DETAIL_DSP
namespace cxmat::detail {

// SXTAB16 of the word rotated right by 8 (bytes 1 and 3): one instruction, the rotation being
// part of it (ACLE's __sxtab16 has no rotation, and the compilers do not fold a separate one).
inline int16x2_t sxtab16_ror8(int16x2_t offset, std::uint32_t word) noexcept {
  int16x2_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(offset), "r"(word));
  return r;
}

// Σ_k (a[k] + lo)·(b[k] + ro) for k < depth, with offsets of int8 zero points (so every
// a[k] + lo, within ±255, fits int16): the sum fits int32 below q8::max_matmul_depth, as in the portable loop.
inline std::int32_t dot_s8_dsp(const std::int8_t* a, const std::int8_t* b, std::size_t depth, std::int32_t lo,
                               std::int32_t ro) noexcept {
  // Each offset in both halfwords.
  const auto pair = [](std::int32_t v) {
    const auto h = static_cast<std::uint32_t>(v) & 0xFFFFU;
    return static_cast<int16x2_t>(h | (h << 16));
  };
  const int16x2_t lo2 = pair(lo), ro2 = pair(ro);
  std::int32_t acc = 0;
  std::size_t k = 0;
  for (; k + 4 <= depth; k += 4) {
    std::uint32_t wa = 0, wb = 0;
    __builtin_memcpy(&wa, a + k, 4);  // one (unaligned) word load each
    __builtin_memcpy(&wb, b + k, 4);
    // Bytes 0 and 2, then 1 and 3, as int16 pairs plus the offsets.
    const int16x2_t a02 = __sxtab16(lo2, static_cast<int8x4_t>(wa));
    const int16x2_t a13 = sxtab16_ror8(lo2, wa);
    const int16x2_t b02 = __sxtab16(ro2, static_cast<int8x4_t>(wb));
    const int16x2_t b13 = sxtab16_ror8(ro2, wb);
    acc = __smlad(a02, b02, acc);
    acc = __smlad(a13, b13, acc);
  }
  for (; k < depth; ++k) acc += (a[k] + lo) * (b[k] + ro);
  return acc;
}

// Two of dot_s8_dsp's sums at once, of one row a with the rows b0 and b1: Σ_k (a[k] +
// lo)·(b0[k] + ro) in acc[0], with b1 in acc[1]. a's bytes are loaded and widened once for both
// (as CMSIS-NN's kernels take two output columns per pass), so four depths cost one load and two
// extensions of a and per column one load, two extensions and two SMLAD. A function of its own
// (not inlined): few enough live values that the loop keeps them all in the core's registers.
[[gnu::noinline]] inline void dot_s8x2_dsp(const std::int8_t* a, const std::int8_t* b0, const std::int8_t* b1,
                                           std::size_t depth, std::int32_t lo, std::int32_t ro,
                                           std::int32_t* acc) noexcept {
  const auto pair = [](std::int32_t v) {
    const auto h = static_cast<std::uint32_t>(v) & 0xFFFFU;
    return static_cast<int16x2_t>(h | (h << 16));
  };
  const int16x2_t lo2 = pair(lo), ro2 = pair(ro);
  std::int32_t s0 = 0, s1 = 0;
  const std::int8_t* const end4 = a + (depth & ~std::size_t{3});
  const std::int8_t* const end = a + depth;
  for (; a != end4; a += 4, b0 += 4, b1 += 4) {
    std::uint32_t wa = 0, w0 = 0, w1 = 0;
    __builtin_memcpy(&wa, a, 4);
    __builtin_memcpy(&w0, b0, 4);
    __builtin_memcpy(&w1, b1, 4);
    const int16x2_t a02 = __sxtab16(lo2, static_cast<int8x4_t>(wa)), a13 = sxtab16_ror8(lo2, wa);
    s0 = __smlad(a13, sxtab16_ror8(ro2, w0), __smlad(a02, __sxtab16(ro2, static_cast<int8x4_t>(w0)), s0));
    s1 = __smlad(a13, sxtab16_ror8(ro2, w1), __smlad(a02, __sxtab16(ro2, static_cast<int8x4_t>(w1)), s1));
  }
  for (; a != end; ++a, ++b0, ++b1) {
    const std::int32_t x = *a + lo;
    s0 += x * (*b0 + ro);
    s1 += x * (*b1 + ro);
  }
  acc[0] = s0, acc[1] = s1;
}

}  // namespace cxmat::detail
#endif
