// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// cxmat::erf for float, double and long double, usable in constant expressions.
//
// Method (see docs/math.md): for |x| < 1/8, erf x = A x + x^3 P(x^2) (Taylor, A = 2/sqrt(pi)
// as a double-double, A x formed exactly). For 1/8 <= |x| < 6.5, the Taylor polynomial of
// degree 13 of erf at the centre x0 of the cell [i/8, (i+1)/8) (51 cells of 16 coefficients,
// generated with mpmath): erf x = c0 + c1 h + h^2 P(h), h = |x| - x0 exact, |h| <= 1/16, with
// c0 and c1 as double-doubles and c0 + c1 h formed exactly, so the result is rounded once.
// Beyond 6.5 erf rounds to ±1 (even in the x87 format). float first tries a
// plain double fast path (erf_float_fast) and rounds it when CXMAT_DETAIL_ROUNDS_AS_FLOAT shows
// that is safe; otherwise the kernel's double-double is rounded once. No libm call.

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "cxmat/math/detail/double_double.hpp"
#include "cxmat/math/detail/erf_table.hpp"
#include "cxmat/math/detail/fp.hpp"
#include "cxmat/math/exp.hpp"
#include "cxmat/math/fp.hpp"

CXMAT_DETAIL_DIAG_PUSH

namespace cxmat {
namespace detail {

// (erf(ax) / ((2/sqrt(pi)) ax) - 1) / z as a polynomial in z = ax^2, for ax < 1/8: used there by
// the double-double kernel and the float fast path alike.
CXMAT_DETAIL_IEEE_FN constexpr double erf_small_series(double z) noexcept {
  CXMAT_DETAIL_STRICT_FP
  return CXMAT_DETAIL_MAD(
      z,
      CXMAT_DETAIL_MAD(
          z,
          CXMAT_DETAIL_MAD(
              z,
              CXMAT_DETAIL_MAD(
                  z,
                  CXMAT_DETAIL_MAD(
                      z, CXMAT_DETAIL_MAD(z, CXMAT_DETAIL_MAD(z, erf_taylor0[7], erf_taylor0[6]), erf_taylor0[5]),
                      erf_taylor0[4]),
                  erf_taylor0[3]),
              erf_taylor0[2]),
          erf_taylor0[1]),
      erf_taylor0[0]);
}

// erf of 0 < ax < 6.5 as a double-double (2^-900 <= ax for the tiny-argument form below).
CXMAT_DETAIL_IEEE_FN constexpr dd erf_positive(double ax) noexcept {
  CXMAT_DETAIL_STRICT_FP
  if (ax < 0.125) {
    const double z = ax * ax, p = erf_small_series(z);
    const double a = erf_two_over_sqrt_pi_hi * ax,
                 t = CXMAT_DETAIL_TWO_PROD_LO(erf_two_over_sqrt_pi_hi, ax, a) +
                     CXMAT_DETAIL_MAD(erf_two_over_sqrt_pi_lo, ax, ax * z * p),
                 v = a + t;
    return {v, CXMAT_DETAIL_FAST_TWO_SUM_LO(a, t, v)};
  }
  const auto i = static_cast<std::size_t>(ax * 8);  // 1 <= i <= 51
  const double* c = erf_cells[i - 1];
  const double h = ax - (static_cast<double>(i) + 0.5) * 0.125,  // exact
      p = CXMAT_DETAIL_MAD(
          h,
          CXMAT_DETAIL_MAD(
              h,
              CXMAT_DETAIL_MAD(
                  h,
                  CXMAT_DETAIL_MAD(
                      h,
                      CXMAT_DETAIL_MAD(
                          h,
                          CXMAT_DETAIL_MAD(
                              h,
                              CXMAT_DETAIL_MAD(
                                  h,
                                  CXMAT_DETAIL_MAD(
                                      h,
                                      CXMAT_DETAIL_MAD(h, CXMAT_DETAIL_MAD(h, CXMAT_DETAIL_MAD(h, c[15], c[14]), c[13]),
                                                       c[12]),
                                      c[11]),
                                  c[10]),
                              c[9]),
                          c[8]),
                      c[7]),
                  c[6]),
              c[5]),
          c[4]);
  const double m = c[2] * h, sum = c[0] + m,
               t = (CXMAT_DETAIL_TWO_SUM_LO(c[0], m, sum) + CXMAT_DETAIL_TWO_PROD_LO(c[2], h, m)) +
                   (c[1] + CXMAT_DETAIL_MAD(c[3], h, h * h * p)),
               v = sum + t;
  return {v, CXMAT_DETAIL_FAST_TWO_SUM_LO(sum, t, v)};
}

// Fast path of erf(float), plain double arithmetic, for 2^-126 <= ax < 6.5 (the result is a
// normal float): erf_positive's polynomials without the double-double steps, the cell
// polynomial cut at degree 10. For ax < 1/8, y = A_hi ax + (A_lo ax + ax z P(z)), z = ax^2;
// otherwise y = c0 + (c2 h + (c1 + c3 h + h^2 P(h))), h = ax - x0 exact, with c0 + c1 = erf(x0),
// c2 + c3 = erf'(x0) and P of degree 8.
// Error bound: the truncations are below 2^-67 erf(ax) (the tables' bound) near 0 and, in the
// cells, below 2^-52 erf(ax) (the sum of |erf^(k)(x0)/k!| 16^-k over the table's k = 11..13 is
// at most 2^-52.0 erf(x0 - 1/16) over the 51 cells, plus the table's 2^-67). For ax < 1/8,
// |ax z P(z)| <= 0.006 ax and A_hi ax and the final sum round once each: within 2.1 2^-53 A ax,
// that is below 2^-51.8 erf(ax) (erf(ax) >= 0.99 A ax here). In a cell, |c2 h| <= 0.071,
// |c1 + c3 h + h^2 P(h)| <= 0.01, the product c2 h, the two additions and the polynomial
// (roundings of its own size, 0.01) give at most 2^-53 (|y| + 0.071 + 2 0.08 + 0.02), with
// erf(ax) >= 0.14: below 2.8 2^-53 erf(ax) < 2^-51.5 erf(ax), and with the truncation below
// 2^-50.9 erf(ax). Both are 2^8 times inside the 2^-42 that CXMAT_DETAIL_ROUNDS_AS_FLOAT needs.
CXMAT_DETAIL_IEEE_FN constexpr double erf_float_fast(double ax) noexcept {
  CXMAT_DETAIL_STRICT_FP
  if (ax < 0.125) {
    const double z = ax * ax, p = erf_small_series(z);
    return CXMAT_DETAIL_MAD(erf_two_over_sqrt_pi_hi, ax, CXMAT_DETAIL_MAD(erf_two_over_sqrt_pi_lo, ax, ax * z * p));
  }
  const auto i = static_cast<std::size_t>(ax * 8);  // 1 <= i <= 51
  const double* c = erf_cells[i - 1];
  const double h = ax - (static_cast<double>(i) + 0.5) * 0.125,  // exact
      p = CXMAT_DETAIL_MAD(
          h,
          CXMAT_DETAIL_MAD(
              h,
              CXMAT_DETAIL_MAD(
                  h,
                  CXMAT_DETAIL_MAD(
                      h,
                      CXMAT_DETAIL_MAD(
                          h, CXMAT_DETAIL_MAD(h, CXMAT_DETAIL_MAD(h, CXMAT_DETAIL_MAD(h, c[12], c[11]), c[10]), c[9]),
                          c[8]),
                      c[7]),
                  c[6]),
              c[5]),
          c[4]);
  return c[0] + CXMAT_DETAIL_MAD(c[2], h, c[1] + CXMAT_DETAIL_MAD(c[3], h, h * h * p));
}

// erf x = A x for |x| < 2^-900, computed 2^100 larger (GCC does not fold a fused multiply-add
// whose result is subnormal) and scaled back: exact for normal results, rounded a second time
// for subnormal ones (|x| < 2^-1022).
CXMAT_DETAIL_IEEE_FN constexpr double erf_tiny(double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double y = x * 0x1p100;
  const dd a = two_prod(erf_two_over_sqrt_pi_hi, y);
  return (a.hi + CXMAT_DETAIL_MAD(erf_two_over_sqrt_pi_lo, y, a.lo)) * 0x1p-100;
}

// x87 long double, 2^-33 <= |x| < 6.5: erf(hi + lo) = erf(hi) + A e^(-hi^2) lo.
CXMAT_DETAIL_IEEE_FN constexpr long double erf_long(long double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  using L = long double;
  const L ax = x < 0 ? -x : x;
  const double hi = static_cast<double>(ax), lo = static_cast<double>(ax - static_cast<L>(hi));
  const L r = to_long(erf_positive(hi)) + static_cast<L>(erf_two_over_sqrt_pi_hi * exp(-hi * hi) * lo);
  return x < 0 ? -r : r;
}

}  // namespace detail

/// Error function in double precision (within 1 ulp; measured figures in docs/math.md).
/// erf(±0) = ±0, erf(±inf) = ±1, erf(NaN) = NaN; |x| >= 6.5 gives ±1 exactly. Same bits in
/// constant expressions and at run time.
CXMAT_DETAIL_IEEE_FN constexpr double erf(double x) noexcept {
  const std::uint64_t ax = std::bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffu;
  if (ax == 0 || ax > 0x7ff0000000000000u) return x;         // ±0, NaN
  if (ax >= 0x401a000000000000u) return x < 0 ? -1.0 : 1.0;  // |x| >= 6.5, ±inf
  if (ax < 0x07b0000000000000u) return detail::erf_tiny(x);  // |x| < 2^-900
  const detail::dd v = detail::erf_positive(std::bit_cast<double>(ax));
  const double r = v.hi + v.lo;
  return x < 0 ? -r : r;
}

/// Error function in single precision, correctly rounded (see docs/math.md). Special values
/// as for double.
CXMAT_DETAIL_IEEE_FN constexpr float erf(float x) noexcept {
  const std::uint32_t ax = std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
  if (ax == 0 || ax > 0x7f800000u) return x;
  if (ax >= 0x40d00000u) return x < 0 ? -1.0f : 1.0f;  // |x| >= 6.5
  // The fast path when its result is safely away from a float rounding boundary (and a normal
  // float: not for subnormal x), else the double-double kernel (see erf_float_fast and
  // CXMAT_DETAIL_ROUNDS_AS_FLOAT).
  const double a = static_cast<double>(std::bit_cast<float>(ax)), y = detail::erf_float_fast(a);
  const float r = ax >= 0x00800000u && CXMAT_DETAIL_ROUNDS_AS_FLOAT(y)
                      ? static_cast<float>(y)
                      : detail::round_to_float(detail::erf_positive(a));
  return x < 0 ? -r : r;
}

/// Error function in long double. Where long double is double this is the double overload;
/// for the x87 80-bit format the measured bound is in docs/math.md.
CXMAT_DETAIL_IEEE_FN constexpr long double erf(long double x) noexcept {
  using lim = std::numeric_limits<long double>;
  if constexpr (lim::digits == std::numeric_limits<double>::digits || lim::digits != 64) {
    return static_cast<long double>(erf(static_cast<double>(x)));
  } else {
    if (!(x == x) || x == 0) return x;
    if (x >= 6.5L || x <= -6.5L) return x < 0 ? -1 : 1;
    if (x < 0x1p-33L && x > -0x1p-33L) {  // erf x = A x (1 - x^2/3 ...): A x with A to 64 bits
      return x * (static_cast<long double>(detail::erf_two_over_sqrt_pi_hi) +
                  static_cast<long double>(detail::erf_two_over_sqrt_pi_lo));
    }
    return detail::erf_long(x);
  }
}

/// Error function of an integer argument, computed in double.
template <std::integral I>
CXMAT_DETAIL_IEEE_FN constexpr double erf(I x) noexcept {
  return erf(static_cast<double>(x));
}

}  // namespace cxmat

CXMAT_DETAIL_DIAG_POP
