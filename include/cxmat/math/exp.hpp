// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// cxmat::exp for float, double and long double, usable in constant expressions.
//
// Method (double; see docs/math.md): exp(x) = 2^(k/128) * exp(r) with k = round(128 x / ln2) and
// r = x - k ln2/128, |r| <= ln2/256. 2^(k/128) = 2^(k>>7) * exp2_hi[k&127] * (1 + exp2_tail[k&127])
// from a 128-entry table, exp(r) - 1 by a degree-5 polynomial (the glibc / Arm design). Results
// that would be subnormal are rounded once. float goes through the double kernel and is
// rounded once at the end. Overflow and underflow return constants, so no valid input performs
// an overflowing or NaN-producing operation (which constant evaluation would reject).

#include <concepts>
#include <cstdint>
#include <limits>

#include "cxmat/math/detail/exp_table.hpp"
#include "cxmat/math/detail/fp.hpp"
#include "cxmat/math/fp.hpp"

CXMAT_DETAIL_DIAG_PUSH

namespace cxmat {
namespace detail {

inline constexpr double exp_inv_ln2_n = 0x1.71547652b82fep0 * 128;
inline constexpr double exp_shift = 0x1.8p52;  // x + shift rounds x to an integer (|x| < 2^51)
// -ln2/128 in two parts; hi has 36 significant bits, so k * hi is exact for |k| < 2^17.
inline constexpr double exp_neg_ln2_hi_n = -0x1.62e42fefa0000p-8;
inline constexpr double exp_neg_ln2_lo_n = -0x1.cf79abc9e3b3ap-47;
// exp(r) ~ 1 + r + c2 r^2 + ... + c5 r^5 on |r| <= ln2/256 (abs error 1.555 * 2^-66).
inline constexpr double exp_c2 = 0x1.ffffffffffdbdp-2;
inline constexpr double exp_c3 = 0x1.555555555543cp-3;
inline constexpr double exp_c4 = 0x1.55555cf172b91p-5;
inline constexpr double exp_c5 = 0x1.1111167a4d017p-7;

// exp(x) = asdouble(sbits) * (1 + tmp), where the exponent field of sbits wraps around (mod
// 2^11) when |k/128| is beyond the double range; exp_special undoes that.
struct exp_reduced {
  std::uint64_t sbits;
  double tmp;
};

// k = round(128 x / ln2) in the low bits of the result (x * 128/ln2 + 1.5 * 2^52).
#if CXMAT_DETAIL_EXPLICIT_FMA
#define CXMAT_DETAIL_EXP_KD(x) __builtin_fma(x, ::cxmat::detail::exp_inv_ln2_n, ::cxmat::detail::exp_shift)
#elif defined(__FAST_MATH__)
// -ffast-math may fold (z + shift) - shift into z: round through an integer conversion instead.
#define CXMAT_DETAIL_EXP_KD(x)                                                                                 \
  (static_cast<double>(static_cast<std::int64_t>(x * ::cxmat::detail::exp_inv_ln2_n + (x < 0 ? -0.5 : 0.5))) + \
   ::cxmat::detail::exp_shift)
#else
#define CXMAT_DETAIL_EXP_KD(x) ((x) * ::cxmat::detail::exp_inv_ln2_n + ::cxmat::detail::exp_shift)
#endif

// r = x - k ln2/128 and tmp = tail + exp(r) - 1, given kd from CXMAT_DETAIL_EXP_KD and k.
// Written as expression macros so that the hot path in cxmat::exp is a single declaration
// statement (Clang's constexpr step budget counts statements, not operations) while the
// special path reuses exactly the same arithmetic.
#if CXMAT_DETAIL_EXPLICIT_FMA
#define CXMAT_DETAIL_EXP_R(x, k) \
  __builtin_fma((k), ::cxmat::detail::exp_neg_ln2_lo_n, __builtin_fma((k), ::cxmat::detail::exp_neg_ln2_hi_n, (x)))
#define CXMAT_DETAIL_EXP_TMP(kd, r, r2)                                                                   \
  __builtin_fma((r2) * (r2), __builtin_fma((r), ::cxmat::detail::exp_c5, ::cxmat::detail::exp_c4),        \
                __builtin_fma((r2), __builtin_fma((r), ::cxmat::detail::exp_c3, ::cxmat::detail::exp_c2), \
                              ::cxmat::detail::exp2_tail[__builtin_bit_cast(std::uint64_t, (kd)) & 127] + (r)))
#define CXMAT_DETAIL_EXP_COMBINE(s, t) __builtin_fma((s), (t), (s))
#else
#define CXMAT_DETAIL_EXP_R(x, k) \
  ((x) + (k) * ::cxmat::detail::exp_neg_ln2_hi_n + (k) * ::cxmat::detail::exp_neg_ln2_lo_n)
#define CXMAT_DETAIL_EXP_TMP(kd, r, r2)                                              \
  (::cxmat::detail::exp2_tail[__builtin_bit_cast(std::uint64_t, (kd)) & 127] + (r) + \
   (r2) * (::cxmat::detail::exp_c2 + (r) * ::cxmat::detail::exp_c3) +                \
   (r2) * (r2) * (::cxmat::detail::exp_c4 + (r) * ::cxmat::detail::exp_c5))
#define CXMAT_DETAIL_EXP_COMBINE(s, t) ((s) + (s) * (t))
#endif
// Bits of 2^(k/128): the table entry plus (k >> 7) added to the exponent field, wrapping
// (mod 2^11) when k/128 is outside the double exponent range.
#define CXMAT_DETAIL_EXP_SBITS(kd)                                                                            \
  (__builtin_bit_cast(std::uint64_t, ::cxmat::detail::exp2_hi[__builtin_bit_cast(std::uint64_t, kd) & 127]) + \
   (__builtin_bit_cast(std::uint64_t, kd) >> 7 << 52))

CXMAT_DETAIL_IEEE_FN constexpr exp_reduced exp_reduce(double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double kd = CXMAT_DETAIL_EXP_KD(x), k = kd - exp_shift, r = CXMAT_DETAIL_EXP_R(x, k), r2 = r * r;
  return {CXMAT_DETAIL_EXP_SBITS(kd), CXMAT_DETAIL_EXP_TMP(kd, r, r2)};
}

// s * (1 + t) with the rounding of the build's kernel (fused or not).
CXMAT_DETAIL_IEEE_FN constexpr double exp_combine(double s, double t) noexcept {
  CXMAT_DETAIL_STRICT_FP
  return CXMAT_DETAIL_EXP_COMBINE(s, t);
}

// exp outside 2^-54 <= |x| < 512: tiny, NaN, infinities, overflow, underflow and the ranges
// where 2^(k/128) is not a normal double.
CXMAT_DETAIL_IEEE_FN constexpr double exp_special(double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const std::uint64_t ix = __builtin_bit_cast(std::uint64_t, x);
  if (((ix >> 52) & 0x7ff) < 0x3c9) return 1.0 + x;                        // |x| < 2^-54: rounds to 1 (exactly for ±0)
  if ((ix & 0x7fffffffffffffff) > 0x7ff0000000000000) return x;            // NaN, unchanged
  if (x > exp_overflow_d) return std::numeric_limits<double>::infinity();  // also +inf
  if (x < exp_underflow_d) return 0.0;                                     // also -inf; +0, never -0
  const exp_reduced e = exp_reduce(x);
  if (x > 0) {
    // The result is at most DBL_MAX: compute it 2^1009 smaller, then scale exactly.
    return 0x1p1009 * exp_combine(__builtin_bit_cast(double, e.sbits - (1009ull << 52)), e.tmp);
  }
  // Result below 2^-738: compute it 2^1022 larger. If it is subnormal, round it once at the
  // final precision (hi + lo - 1 has an absolute resolution of 2^-52, i.e. 2^-1074 once scaled)
  // instead of rounding to 53 bits and again when scaling.
  const double scale = __builtin_bit_cast(double, e.sbits + (1022ull << 52));
  double y = exp_combine(scale, e.tmp);
  if (y < 1.0) {
#if CXMAT_DETAIL_EXPLICIT_FMA
    double lo = __builtin_fma(scale, e.tmp, scale - y);
#else
    double lo = scale - y + scale * e.tmp;
#endif
    const double hi = 1.0 + y;
    lo = 1.0 - hi + y + lo;
    y = (hi + lo) - 1.0;  // +0 if it cancels (round to nearest), so never -0
  }
  return 0x1p-1022 * y;
}

// Generic long double kernel: the same reduction with a 41-bit ln2/128 head, exp(r) - 1 by
// Taylor to degree 7 (truncation below 2^-83 on |r| <= ln2/256), and scaling by powers of two
// that keep every intermediate normal so a subnormal result is rounded by the last product only.
CXMAT_DETAIL_IEEE_FN constexpr long double exp_long(long double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  using L = long double;
  using lim = std::numeric_limits<L>;
  if (!(x == x)) return x;       // NaN
  if (x > lim::max()) return x;  // +inf
  // Far outside the range (this also keeps x * 128/ln2 from overflowing).
  if (x > 2 * L{lim::max_exponent}) return lim::infinity();
  if (x < 2 * L{lim::min_exponent - lim::digits}) return 0;
  const L z = x * exp_inv_ln2_n_ld;  // log2(exp(x)) * 128
  if (z > L{lim::max_exponent} * 128 + 2) return lim::infinity();
  if (z < L{lim::min_exponent - lim::digits - 3} * 128) return 0;  // below denorm_min / 2
  const std::int64_t k = static_cast<std::int64_t>(z < 0 ? z - L{0.5} : z + L{0.5});
  const L kd = static_cast<L>(k);
  const L r = (x - kd * exp_ln2_hi_n_ld) - kd * exp_ln2_lo_n_ld;
  const L p =
      r + r * r *
              (L{0.5} +
               r * (L{1} / 6 + r * (L{1} / 24 + r * (L{1} / 120 + r * (L{1} / 720 + r * (L{1} / 5040 + r / 40320))))));
  const std::int64_t j = k & 127;
  const L h = exp2_hi[j], t = exp2_tail[j];
  L y = h + h * (t + p + t * p);   // 2^(j/128) exp(r) in [2^(-1/256), 2)
  std::int64_t q = (k - j) / 128;  // exact: k - j is a multiple of 128
  if (q > 0) {
    // y * 2^(q-1) is exact and finite for q <= max_exponent; the last doubling decides.
    for (--q; q > 1000; q -= 1000) y *= 0x1p1000L;
    y *= static_cast<L>(__builtin_bit_cast(double, static_cast<std::uint64_t>(q + 1023) << 52));
    return y > lim::max() / 2 ? lim::infinity() : y * 2;
  }
  for (; q < -1000; q += 1000) y *= 0x1p-1000L;
  return y * static_cast<L>(__builtin_bit_cast(double, static_cast<std::uint64_t>(q + 1023) << 52));
}

}  // namespace detail

/// e^x in double precision: at most 0.52 ulp from the exact value over the whole range
/// (measured figures in docs/math.md), subnormal results rounded once. exp(NaN) = NaN,
/// exp(+inf) = +inf, exp(-inf) = +0, exp(±0) = 1, overflow gives +inf, underflow +0.
/// Same bits in constant expressions and at run time.
CXMAT_DETAIL_IEEE_FN constexpr double exp(double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  // Fast path 2^-54 <= |x| < 512: no overflow, underflow or tiny-argument case possible.
  if (((__builtin_bit_cast(std::uint64_t, x) >> 52) & 0x7ff) - 0x3c9u >= 0x408u - 0x3c9u) return detail::exp_special(x);
  // One declaration statement: the constexpr step cost of the hot path is four statements.
  const double kd = CXMAT_DETAIL_EXP_KD(x), k = kd - detail::exp_shift, r = CXMAT_DETAIL_EXP_R(x, k), r2 = r * r,
               s = __builtin_bit_cast(double, CXMAT_DETAIL_EXP_SBITS(kd)), t = CXMAT_DETAIL_EXP_TMP(kd, r, r2);
  return CXMAT_DETAIL_EXP_COMBINE(s, t);
}

/// e^x in single precision, correctly rounded (checked exhaustively against MPFR; see
/// docs/math.md). Special values as for the double overload.
CXMAT_DETAIL_IEEE_FN constexpr float exp(float x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  // Outside [underflow, overflow] thresholds, or NaN.
  if (!(x >= detail::exp_underflow_f && x <= detail::exp_overflow_f)) {
    if ((__builtin_bit_cast(std::uint32_t, x) & 0x7fffffffu) > 0x7f800000u) return x;  // NaN
    return x > 0 ? std::numeric_limits<float>::infinity() : 0.0f;
  }
  // The double kernel without its range checks (every float here is a valid fast-path input:
  // |x| < 104 and x*x is a normal double even for subnormal x), rounded once to float. For
  // |x| < 2^-54 this gives 1 like exp(double) does, so the result equals
  // float(exp(double(x))).
  const double xd = x, kd = CXMAT_DETAIL_EXP_KD(xd), k = kd - detail::exp_shift, r = CXMAT_DETAIL_EXP_R(xd, k),
               r2 = r * r, s = __builtin_bit_cast(double, CXMAT_DETAIL_EXP_SBITS(kd)),
               t = CXMAT_DETAIL_EXP_TMP(kd, r, r2);
  return static_cast<float>(CXMAT_DETAIL_EXP_COMBINE(s, t));
}

/// e^x in long double. Where long double is double this is the double overload; for the x87
/// 80-bit format the measured bound is in docs/math.md. Special values as for double.
CXMAT_DETAIL_IEEE_FN constexpr long double exp(long double x) noexcept {
  if constexpr (std::numeric_limits<long double>::digits == std::numeric_limits<double>::digits) {
    return static_cast<long double>(exp(static_cast<double>(x)));
  } else {
    return detail::exp_long(x);
  }
}

/// e^x for an integer argument, computed in double (as std::exp does).
template <std::integral I>
CXMAT_DETAIL_IEEE_FN constexpr double exp(I x) noexcept {
  return exp(static_cast<double>(x));
}

}  // namespace cxmat

#undef CXMAT_DETAIL_EXP_KD
#undef CXMAT_DETAIL_EXP_R
#undef CXMAT_DETAIL_EXP_TMP
#undef CXMAT_DETAIL_EXP_COMBINE
#undef CXMAT_DETAIL_EXP_SBITS

CXMAT_DETAIL_DIAG_POP
