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

#if CXMAT_DETAIL_DSP
namespace cxmat::detail {

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
    // Bytes 0 and 2, then 1 and 3 (the word rotated by 8), as int16 pairs plus the offsets.
    const int16x2_t a02 = __sxtab16(lo2, static_cast<int8x4_t>(wa));
    const int16x2_t a13 = __sxtab16(lo2, static_cast<int8x4_t>((wa >> 8) | (wa << 24)));
    const int16x2_t b02 = __sxtab16(ro2, static_cast<int8x4_t>(wb));
    const int16x2_t b13 = __sxtab16(ro2, static_cast<int8x4_t>((wb >> 8) | (wb << 24)));
    acc = __smlad(a02, b02, acc);
    acc = __smlad(a13, b13, acc);
  }
  for (; k < depth; ++k) acc += (a[k] + lo) * (b[k] + ro);
  return acc;
}

}  // namespace cxmat::detail
#endif
