// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// cxmat::log for float, double and long double, usable in constant expressions.
//
// Method (see docs/math.md): x = 2^e m with m in [0.703125, 1.40625), c = j/64 the nearest
// 64th to m, and log x = e ln2 + log c + 2 atanh(u) with u = (m - c)/(m + c), |u| < 2^-7.5,
// carried as a double-double (u by one division and an exact remainder). log c comes from a
// 46-entry table (hi and lo parts), 2 atanh(u) - 2u from four terms of its odd series. The
// leading sum e ln2_hi + log c + 2u is formed exactly, so the result is rounded once at the end.
// float first tries a plain double fast path with a proven error bound (log_float_fast) and
// rounds it when CXMAT_DETAIL_ROUNDS_AS_FLOAT shows that is safe (Ziv's strategy); otherwise,
// about one result in 2^16, the kernel's double-double is rounded once (rounding to odd, then to
// float). No libm call.

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>

#include "cxmat/math/detail/double_double.hpp"
#include "cxmat/math/detail/fp.hpp"
#include "cxmat/math/detail/log_table.hpp"
#include "cxmat/math/fp.hpp"

CXMAT_DETAIL_DIAG_PUSH

namespace cxmat {
namespace detail {

// Deliberately not constexpr: cxmat::log calls it for a negative argument during constant
// evaluation, so the compiler's error message names the problem.
inline void log_of_negative_number_in_constant_expression() noexcept {}

template <class T>
constexpr T log_of_negative() noexcept {
  if (in_constant_evaluation()) log_of_negative_number_in_constant_expression();
  return std::numeric_limits<T>::quiet_NaN();
}

// log(2^e (m_hi + m_lo)) as a double-double, for m_hi in [0.703125, 1.40625] and |m_lo| tiny
// (the low part of an x87 significand; 0 for double).
CXMAT_DETAIL_IEEE_FN constexpr dd log_kernel(int e, double m_hi, double m_lo) noexcept {
  CXMAT_DETAIL_STRICT_FP
  // Rounds half up a non-negative value (truncation after + 0.5 is right for it).
  // NOLINTNEXTLINE(bugprone-incorrect-roundings)
  const int j = static_cast<int>(m_hi * 64 + 0.5);
  const double c = j * 0x1p-6, d_hi = m_hi - c,  // exact: |m - c| <= 2^-7 and both multiples of 2^-53
      d = d_hi + m_lo, d_lo = CXMAT_DETAIL_TWO_SUM_LO(d_hi, m_lo, d), den = m_hi + c,
               den_lo = CXMAT_DETAIL_TWO_SUM_LO(m_hi, c, den) + m_lo, u = d / den, pu = u * den,
               pu_lo = CXMAT_DETAIL_TWO_PROD_LO(u, den, pu),
               // u_lo = (m - c - u (m + c)) / (m + c): the remainder d - u den, with d - pu exact.
      u_lo = CXMAT_DETAIL_MAD(-u, den_lo, ((d - pu) - pu_lo) + d_lo) / den, v = u * u,
               series = v * CXMAT_DETAIL_MAD(
                                v, CXMAT_DETAIL_MAD(v, CXMAT_DETAIL_MAD(v, log_atanh[3], log_atanh[2]), log_atanh[1]),
                                log_atanh[0]),
               ed = e, e_hi = ed * log_ln2_hi, s1 = e_hi + log_c_hi[j - 45],
               s1_lo = CXMAT_DETAIL_TWO_SUM_LO(e_hi, log_c_hi[j - 45], s1), u2 = 2 * u, s2 = s1 + u2,
               s2_lo = CXMAT_DETAIL_TWO_SUM_LO(s1, u2, s2),
               lo = CXMAT_DETAIL_MAD(ed, log_ln2_lo, log_c_lo[j - 45]) + CXMAT_DETAIL_MAD(u, series, 2 * u_lo),
               t = (s1_lo + s2_lo) + lo, r = s2 + t;
  return {r, CXMAT_DETAIL_FAST_TWO_SUM_LO(s2, t, r)};
}

// log of a positive finite non-zero double as a double-double.
CXMAT_DETAIL_IEEE_FN constexpr dd log_positive(double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  std::uint64_t ix = std::bit_cast<std::uint64_t>(x);
  int e = -1023;
  if (ix < 0x0010000000000000u) {  // subnormal: scale by 2^64 exactly
    ix = std::bit_cast<std::uint64_t>(x * 0x1p64);
    e -= 64;
  }
  e += static_cast<int>(ix >> 52);
  std::uint64_t mbits = (ix & 0x000fffffffffffffu) | 0x3ff0000000000000u;  // m in [1, 2)
  if (mbits >= 0x3ff6800000000000u) {                                      // m >= 1.40625: use m / 2
    mbits -= 0x0010000000000000u;
    ++e;
  }
  return log_kernel(e, std::bit_cast<double>(mbits), 0.0);
}

// 64/j for j = 45..90 (index j - 45), each rounded once to double by the compiler's correctly
// rounded division.
inline constexpr auto log_inv_c = [] {
  struct table {
    double v[46];
  } t{};
  for (int j = 45; j <= 90; ++j) t.v[j - 45] = 64.0 / j;
  return t;
}();

// Fast path of log(float), plain double arithmetic and no division: x = 2^e m with m in
// [0.703125, 1.40625) and c = j/64 the nearest 64th as in log_kernel, d = m - c (exact: m has 24
// significant bits), t = d rc with rc = 64/j rounded, so t = (d/c)(1 + delta), |delta| <= 2^-52
// and |t| <= 2^-6.49. Then log x = e ln2 + log c + log(1 + d/c), the last by its Taylor
// polynomial in t of degree 8: y = (e ln2_hi + log_c_hi[j]) + (t + t^2 P(t) + (e ln2_lo +
// log_c_lo[j])).
// Error bound: truncation below |t|^9/9 < 2^-55 |t|; delta moves log(1 + d/c) by at most
// 1.02 2^-52 |t|; e ln2_hi is exact (37 + 8 bits); t^2 P(t) (below 0.006 |t|) carries a few
// roundings of its own size; the product t and the last two additions round once each. So the
// absolute error is below 2^-53 (|S1| + |y| + 5.4 |t|) with S1 = e ln2_hi + log c. For e = 0
// and j = 64 (c = 1, S1 = 0, |y| <= 1.01 |t|) that is 6.5 2^-53 |log x|. Otherwise |S1| <=
// |log x| + 1.01 |t|: for e = 0, j = 63 or 65, |t| <= 0.0079 and |log x| >= 0.0077; for other j
// |t| <= 0.0112 and |log x| >= 0.023; for e != 0 |log x| >= 0.34. So |y - log x| <= 8.6 2^-53
// |log x| < 2^-49.8 |log x|, 2^7.8 times inside the 2^-42 that CXMAT_DETAIL_ROUNDS_AS_FLOAT
// needs. x = 1 gives exactly +0.
CXMAT_DETAIL_IEEE_FN constexpr double log_float_fast(float x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  // Rounds half up a non-negative value (truncation after + 0.5 is right for it).
  // NOLINTBEGIN(bugprone-incorrect-roundings)
  const std::uint64_t ix = std::bit_cast<std::uint64_t>(static_cast<double>(x)),
                      big = (ix & 0x000fffffffffffffu) >= 0x0006800000000000u ? 1u : 0u;  // m >= 1.40625: m / 2
  const double m = std::bit_cast<double>(((ix & 0x000fffffffffffffu) | 0x3ff0000000000000u) - (big << 52)),
               ed = static_cast<double>(static_cast<int>(ix >> 52) - 1023 + static_cast<int>(big));
  const int j = static_cast<int>(m * 64 + 0.5);
  // NOLINTEND(bugprone-incorrect-roundings)
  const double t = (m - j * 0x1p-6) * log_inv_c.v[j - 45], t2 = t * t,
               p = CXMAT_DETAIL_MAD(
                   t,
                   CXMAT_DETAIL_MAD(
                       t,
                       CXMAT_DETAIL_MAD(
                           t,
                           CXMAT_DETAIL_MAD(t, CXMAT_DETAIL_MAD(t, CXMAT_DETAIL_MAD(t, -1.0 / 8, 1.0 / 7), -1.0 / 6),
                                            1.0 / 5),
                           -1.0 / 4),
                       1.0 / 3),
                   -0.5);
  return CXMAT_DETAIL_MAD(ed, log_ln2_hi, log_c_hi[j - 45]) +
         (t + CXMAT_DETAIL_MAD(t2, p, CXMAT_DETAIL_MAD(ed, log_ln2_lo, log_c_lo[j - 45])));
}

// x87 long double, positive finite non-zero: x = 2^e m by exact scaling, m split into two
// doubles.
CXMAT_DETAIL_IEEE_FN constexpr long double log_long(long double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  int e = 0;
  while (x >= 0x1p1000L) {
    x *= 0x1p-1000L;
    e += 1000;
  }
  while (x < 0x1p-1000L) {
    x *= 0x1p1000L;
    e -= 1000;
  }
  while (x >= 0x1p32L) {
    x *= 0x1p-32L;
    e += 32;
  }
  while (x < 0x1p-32L) {
    x *= 0x1p32L;
    e -= 32;
  }
  while (x >= 1.40625L) {
    x *= 0.5L;
    ++e;
  }
  while (x < 0.703125L) {
    x *= 2;
    --e;
  }
  const double m_hi = static_cast<double>(x), m_lo = static_cast<double>(x - static_cast<long double>(m_hi));
  return to_long(log_kernel(e, m_hi, m_lo));
}

}  // namespace detail

/// Natural logarithm in double precision (within 1 ulp; measured figures in docs/math.md).
/// log(1) = +0, log(±0) = -inf, log(+inf) = +inf, log(NaN) = NaN; for x < 0 (and -inf) the
/// result is NaN at run time and, in a constant expression, a compile error naming
/// log_of_negative_number_in_constant_expression. Same bits in constant expressions and at run
/// time.
CXMAT_DETAIL_IEEE_FN constexpr double log(double x) noexcept {
  const auto ix = std::bit_cast<std::uint64_t>(x);
  if (ix - 1 < 0x7fefffffffffffffu) {  // positive finite non-zero
    const detail::dd r = detail::log_positive(x);
    return r.hi + r.lo;
  }
  if ((ix << 1) == 0) return -std::numeric_limits<double>::infinity();
  if ((ix & 0x7fffffffffffffffu) >= 0x7ff0000000000000u && ix != 0xfff0000000000000u) return x;  // NaN, +inf
  return detail::log_of_negative<double>();
}

/// Natural logarithm in single precision, correctly rounded (see docs/math.md). Special values
/// as for double.
CXMAT_DETAIL_IEEE_FN constexpr float log(float x) noexcept {
  const auto ix = std::bit_cast<std::uint32_t>(x);
  if (ix - 1 < 0x7f7fffffu) {
    // The fast path when its result is safely away from a float rounding boundary, else the
    // double-double kernel (see log_float_fast and CXMAT_DETAIL_ROUNDS_AS_FLOAT).
    const double y = detail::log_float_fast(x);
    if (CXMAT_DETAIL_ROUNDS_AS_FLOAT(y)) return static_cast<float>(y);
    return detail::round_to_float(detail::log_positive(static_cast<double>(x)));
  }
  if ((ix << 1) == 0) return -std::numeric_limits<float>::infinity();
  if ((ix & 0x7fffffffu) >= 0x7f800000u && ix != 0xff800000u) return x;
  return detail::log_of_negative<float>();
}

/// Natural logarithm in long double. Where long double is double this is the double overload;
/// for the x87 80-bit format the measured bound is in docs/math.md. Special values as for double.
CXMAT_DETAIL_IEEE_FN constexpr long double log(long double x) noexcept {
  using lim = std::numeric_limits<long double>;
  if constexpr (lim::digits == std::numeric_limits<double>::digits || lim::digits != 64) {
    return static_cast<long double>(log(static_cast<double>(x)));
  } else {
    if (!(x == x) || x == lim::infinity()) return x;
    if (x == 0) return -lim::infinity();
    if (x < 0) return detail::log_of_negative<long double>();
    return detail::log_long(x);
  }
}

/// Natural logarithm of an integer argument, computed in double (as std::log does).
template <std::integral I>
CXMAT_DETAIL_IEEE_FN constexpr double log(I x) noexcept {
  return log(static_cast<double>(x));
}

}  // namespace cxmat

CXMAT_DETAIL_DIAG_POP
