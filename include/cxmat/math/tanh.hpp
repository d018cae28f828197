// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// cxmat::tanh for float, double and long double, usable in constant expressions.
//
// Method (see docs/math.md): for 2^-27 <= |x| < 20 (23 for x87 long double), E = e^(2|x|) is
// formed as 2^(k/128) (1 + p) with the 128-entry table of cxmat::exp, r = 2|x| - k ln2/128
// carried as a double-double and p = e^r - 1 by its Taylor polynomial of degree 7. E - 1 and
// E + 1 are then built as double-doubles from exact pieces (so E - 1 keeps its relative
// accuracy for small |x|, where k = 0), and tanh|x| = (E - 1)/(E + 1) by a double-double
// division, rounded once. Below 2^-27 tanh x rounds to x, above 20 to ±1. float first tries a
// plain double fast path (tanh_float_fast) and rounds it when CXMAT_DETAIL_ROUNDS_AS_FLOAT shows
// that is safe; otherwise the kernel's double-double is rounded once. No libm call.

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>

#include "cxmat/math/detail/double_double.hpp"
#include "cxmat/math/detail/exp_table.hpp"
#include "cxmat/math/detail/fp.hpp"
#include "cxmat/math/detail/tanh_table.hpp"
#include "cxmat/math/exp.hpp"
#include "cxmat/math/fp.hpp"

CXMAT_DETAIL_DIAG_PUSH

namespace cxmat {
namespace detail {

// tanh of 0 < ax < 23 as a double-double. One declaration statement (Clang's constexpr step
// counter counts statements): the double-double pieces are the expression macros of
// double_double.hpp, each x_lo the low part of x.
CXMAT_DETAIL_IEEE_FN constexpr dd tanh_positive(double ax) noexcept {
  CXMAT_DETAIL_STRICT_FP
  // Rounds half up a non-negative value (truncation after + 0.5 is right for it).
  // NOLINTNEXTLINE(bugprone-incorrect-roundings)
  const double y = 2 * ax, kd = static_cast<double>(static_cast<std::int64_t>(CXMAT_DETAIL_MAD(y, exp_inv_ln2_n, 0.5))),
               a = CXMAT_DETAIL_MAD(kd, exp_neg_ln2_hi_n, y),  // exact
      pl = kd * exp_neg_ln2_lo_n, pl_lo = CXMAT_DETAIL_TWO_PROD_LO(kd, exp_neg_ln2_lo_n, pl), r = a + pl,
               r_lo = CXMAT_DETAIL_TWO_SUM_LO(a, pl, r) + pl_lo,
               q = CXMAT_DETAIL_MAD(
                   r,
                   CXMAT_DETAIL_MAD(
                       r,
                       CXMAT_DETAIL_MAD(
                           r,
                           CXMAT_DETAIL_MAD(r, CXMAT_DETAIL_MAD(r, expm1_taylor[5], expm1_taylor[4]), expm1_taylor[3]),
                           expm1_taylor[2]),
                       expm1_taylor[1]),
                   expm1_taylor[0]),
               u = CXMAT_DETAIL_MAD(r * r, q, r_lo),  // e^r - 1 = r + u
      // S = 2^(k/128) rounded (exactly the table entry times a power of two), tau its relative
      // error: E = S (1 + tau) (1 + r + u) = S + S r + S w.
      s = std::bit_cast<double>(std::bit_cast<std::uint64_t>(exp2_hi[static_cast<std::uint64_t>(kd) & 127]) +
                                (static_cast<std::uint64_t>(kd) >> 7 << 52)),
               tau = exp2_tail[static_cast<std::uint64_t>(kd) & 127], w = u + CXMAT_DETAIL_MAD(tau, r, tau), sr = s * r,
               sr_lo = CXMAT_DETAIL_TWO_PROD_LO(s, r, sr), dm = s + -1.0, dm_lo = CXMAT_DETAIL_TWO_SUM_LO(s, -1.0, dm),
               dp = s + 1.0, dp_lo = CXMAT_DETAIL_TWO_SUM_LO(s, 1.0, dp), nm = dm + sr,
               nm_lo = CXMAT_DETAIL_TWO_SUM_LO(dm, sr, nm), np = dp + sr, np_lo = CXMAT_DETAIL_TWO_SUM_LO(dp, sr, np),
               tail = CXMAT_DETAIL_MAD(s, w, sr_lo),
               // num = E - 1, den = E + 1 (double-doubles), then num / den: q0 and the remainder
               // num - q0 den, exact in its leading part.
      num_t = (nm_lo + dm_lo) + tail, num = nm + num_t, num_lo = CXMAT_DETAIL_FAST_TWO_SUM_LO(nm, num_t, num),
               den_t = (np_lo + dp_lo) + tail, den = np + den_t, den_lo = CXMAT_DETAIL_FAST_TWO_SUM_LO(np, den_t, den),
               q0 = num / den, pq = q0 * den, pq_lo = CXMAT_DETAIL_TWO_PROD_LO(q0, den, pq),
               corr = CXMAT_DETAIL_MAD(-q0, den_lo, ((num - pq) - pq_lo) + num_lo) / den, t = q0 + corr;
  return {t, CXMAT_DETAIL_FAST_TWO_SUM_LO(q0, corr, t)};
}

// Fast path of tanh(float), plain double arithmetic, for 2^-27 <= ax < 20: E = e^(2 ax) =
// s (1 + tau) (1 + p) with k, s = 2^(k/128) rounded (the exp table entry times a power of two),
// tau its relative rounding error (|tau| < 2^-53) and r = 2 ax - k ln2/128 as in tanh_positive,
// p = e^r - 1 by its Taylor polynomial of degree 6; then num = E - 1 = (s - 1) + s (tau + p + tau
// p) and tanh ax = num / (num + 2).
// Error bound: r is exact for k = 0 and otherwise within 2^-53 |r| + 2^-80 (the first step is
// exact, ln2/128 is carried to 2^-100); |r| <= ln2/256 < 2^-8.5, so the truncation is below
// r^7/5040 < 2^-55 |p| and p is within 2^-51 |p| + 1.01 |error of r|. For k = 0, s - 1 = 0 and
// tau = 0, so num = p. For k != 0, E - 1 >= 0.0027 and s - 1 is exact (Sterbenz) or rounded
// once (s >= 2); s (tau + p + tau p) (below 0.0028 s) carries about 2^-50 of its size, and
// s <= 1.003 E <= 372 (E - 1): num is within 2^-49.4 |num|. Adding 2 and dividing round once
// each, and num's error moves num / (num + 2) by at most as much relatively, so |y - tanh ax|
// <= (2 2^-49.4 + 2 2^-53) tanh ax < 2^-48.2 tanh ax, 2^6 times inside the 2^-42 that
// CXMAT_DETAIL_ROUNDS_AS_FLOAT needs (tanh ax >= 2^-27 is a normal float).
CXMAT_DETAIL_IEEE_FN constexpr double tanh_float_fast(double ax) noexcept {
  CXMAT_DETAIL_STRICT_FP
  // Rounds half up a non-negative value (truncation after + 0.5 is right for it).
  // NOLINTNEXTLINE(bugprone-incorrect-roundings)
  const double y = 2 * ax, kd = static_cast<double>(static_cast<std::int64_t>(CXMAT_DETAIL_MAD(y, exp_inv_ln2_n, 0.5))),
               r = CXMAT_DETAIL_MAD(kd, exp_neg_ln2_lo_n, CXMAT_DETAIL_MAD(kd, exp_neg_ln2_hi_n, y)),
               p = CXMAT_DETAIL_MAD(
                   r * r,
                   CXMAT_DETAIL_MAD(
                       r,
                       CXMAT_DETAIL_MAD(
                           r,
                           CXMAT_DETAIL_MAD(r, CXMAT_DETAIL_MAD(r, expm1_taylor[4], expm1_taylor[3]), expm1_taylor[2]),
                           expm1_taylor[1]),
                       expm1_taylor[0]),
                   r),
               s = std::bit_cast<double>(std::bit_cast<std::uint64_t>(exp2_hi[static_cast<std::uint64_t>(kd) & 127]) +
                                         (static_cast<std::uint64_t>(kd) >> 7 << 52)),
               tau = exp2_tail[static_cast<std::uint64_t>(kd) & 127],
               num = CXMAT_DETAIL_MAD(s, CXMAT_DETAIL_MAD(tau, p, tau) + p, s - 1.0);
  return num / (num + 2.0);
}

// x87 long double, 2^-33 <= |x| < 23: tanh(hi + lo) = tanh(hi) + (1 - tanh(hi)^2) lo.
CXMAT_DETAIL_IEEE_FN constexpr long double tanh_long(long double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  using L = long double;
  const L ax = x < 0 ? -x : x;
  const double hi = static_cast<double>(ax), lo = static_cast<double>(ax - static_cast<L>(hi));
  const dd t = tanh_positive(hi);
  const L r = to_long(t) + static_cast<L>(CXMAT_DETAIL_MAD(-t.hi, t.hi, 1.0) * lo);
  return x < 0 ? -r : r;
}

}  // namespace detail

/// Hyperbolic tangent in double precision (within 1 ulp; measured figures in docs/math.md).
/// tanh(±0) = ±0, tanh(±inf) = ±1, tanh(NaN) = NaN; |x| >= 20 gives ±1 exactly. Same bits in
/// constant expressions and at run time.
CXMAT_DETAIL_IEEE_FN constexpr double tanh(double x) noexcept {
  const std::uint64_t ax = std::bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffu;
  if (ax < 0x3e40000000000000u) return x;                    // |x| < 2^-27 (and ±0): tanh x rounds to x
  if (ax > 0x7ff0000000000000u) return x;                    // NaN
  if (ax >= 0x4034000000000000u) return x < 0 ? -1.0 : 1.0;  // |x| >= 20, ±inf
  const detail::dd v = detail::tanh_positive(std::bit_cast<double>(ax));
  const double r = v.hi + v.lo;
  return x < 0 ? -r : r;
}

/// Hyperbolic tangent in single precision, correctly rounded (see docs/math.md). Special
/// values as for double.
CXMAT_DETAIL_IEEE_FN constexpr float tanh(float x) noexcept {
  const std::uint32_t ax = std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
  if (ax < 0x32000000u) return x;  // |x| < 2^-27
  if (ax > 0x7f800000u) return x;
  if (ax >= 0x41a00000u) return x < 0 ? -1.0f : 1.0f;  // |x| >= 20
  // The fast path when its result is safely away from a float rounding boundary, else the
  // double-double kernel (see tanh_float_fast and CXMAT_DETAIL_ROUNDS_AS_FLOAT).
  const double a = static_cast<double>(std::bit_cast<float>(ax)), y = detail::tanh_float_fast(a);
  const float r =
      CXMAT_DETAIL_ROUNDS_AS_FLOAT(y) ? static_cast<float>(y) : detail::round_to_float(detail::tanh_positive(a));
  return x < 0 ? -r : r;
}

/// Hyperbolic tangent in long double. Where long double is double this is the double
/// overload; for the x87 80-bit format the measured bound is in docs/math.md.
CXMAT_DETAIL_IEEE_FN constexpr long double tanh(long double x) noexcept {
  using lim = std::numeric_limits<long double>;
  if constexpr (lim::digits == std::numeric_limits<double>::digits || lim::digits != 64) {
    return static_cast<long double>(tanh(static_cast<double>(x)));
  } else {
    if (!(x == x)) return x;
    if (x < 0x1p-33L && x > -0x1p-33L) return x;
    if (x >= 23 || x <= -23) return x < 0 ? -1 : 1;
    return detail::tanh_long(x);
  }
}

/// Hyperbolic tangent of an integer argument, computed in double.
template <std::integral I>
CXMAT_DETAIL_IEEE_FN constexpr double tanh(I x) noexcept {
  return tanh(static_cast<double>(x));
}

}  // namespace cxmat

CXMAT_DETAIL_DIAG_POP
