// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// cxmat::sin and cxmat::cos for float, double and long double, usable in constant expressions.
//
// Method (see docs/math.md): |x| = q pi/2 + r with |r| <= pi/4 (a little more when q is
// rounded differently), r carried as a double-double. For |x| < 2^20, q = round(|x| 2/pi) and
// r = |x| - q pi/2 with pi/2 in three 33-bit parts and a tail (Cody and Waite; each q * part is
// exact). For larger |x|, Payne and Hanek: the bits of 2/pi that matter for |x| = m 2^e (a
// 256-bit window chosen by e) are multiplied by the integer m exactly, which gives q and the
// fraction r/(pi/2) to more than 120 bits (190 fraction bits, and no double comes within 2^-62
// of a multiple of pi/2). Then sin r and cos r by their Taylor polynomials (degrees 17 and 18:
// truncation below 2^-62 on |r| <= pi/4), their two leading terms formed exactly and the low
// part of r entering to second order. float reduces the same way, tries a
// plain double evaluation of the polynomials (sin_cos_float) and rounds it when
// CXMAT_DETAIL_ROUNDS_AS_FLOAT shows that is safe; otherwise the double-double kernel's result is
// rounded once. No libm call.

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>

#include "cxmat/math/detail/double_double.hpp"
#include "cxmat/math/detail/fp.hpp"
#include "cxmat/math/detail/trig_table.hpp"
#include "cxmat/math/fp.hpp"

CXMAT_DETAIL_DIAG_PUSH

namespace cxmat {
namespace detail {

// |x| = q pi/2 + r, r = r.hi + r.lo.
struct trig_reduced {
  unsigned q;
  dd r;
};

// The rest of the Cody-Waite reduction: r = a - fn (pi/2 - part 1), where a = |x| - fn * part 1
// (exact) is given as a_hi + a_lo.
CXMAT_DETAIL_IEEE_FN constexpr dd trig_reduce_rest(double fn, double a_hi, double a_lo) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double b1 = -(fn * trig_pio2_2), s1 = a_hi + b1, s1_lo = CXMAT_DETAIL_TWO_SUM_LO(a_hi, b1, s1),
               b2 = -(fn * trig_pio2_3), s2 = s1 + b2, s2_lo = CXMAT_DETAIL_TWO_SUM_LO(s1, b2, s2),
               tail = CXMAT_DETAIL_MAD(-fn, trig_pio2_3t, (s1_lo + s2_lo) + a_lo), r = s2 + tail;
  return {r, CXMAT_DETAIL_FAST_TWO_SUM_LO(s2, tail, r)};
}

// Payne-Hanek: |x| = m 2^e with m < 2^64 an integer and e >= -61.
CXMAT_DETAIL_IEEE_FN constexpr trig_reduced trig_reduce_large(std::uint64_t m, int e) noexcept {
  CXMAT_DETAIL_STRICT_FP
  // Bits of 2/pi with index i < e - 1 (bit i weighs 2^-i) contribute multiples of 4 to
  // |x| 2/pi; the window of 256 bits starts at bit e - 1. two_over_pi_bits[k] holds bits
  // 32(k - 2) + 1 ... 32(k - 2) + 32.
  const int start = e - 2 + 64;  // (first bit - 1) + 64 >= 0
  const int k0 = start / 32, sh = start % 32;
  std::uint32_t w[8];  // every element written below (no zero fill: no memset call on small targets)
  for (int j = 0; j < 8; ++j) {
    const auto idx = static_cast<unsigned>(k0 + j);
    const std::uint64_t pair = (std::uint64_t{two_over_pi_bits[idx]} << 32) | two_over_pi_bits[idx + 1];
    w[j] = static_cast<std::uint32_t>(pair >> (32 - sh));
  }
  // The low 256 bits of m * window: a fixed-point number in [0, 4) with 254 fraction bits
  // (|x| 2/pi mod 4). r[0] is the least significant word.
  const std::uint64_t m0 = m & 0xffffffffu, m1 = m >> 32;
  std::uint32_t r[8];  // every element written by the first loop
  std::uint64_t carry = 0;
  for (int p = 0; p < 8; ++p) {
    const std::uint64_t v = m0 * w[7 - p] + carry;
    r[p] = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  carry = 0;
  for (int p = 1; p < 8; ++p) {
    const std::uint64_t v = r[p] + m1 * w[8 - p] + carry;
    r[p] = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  const auto word = [&](int i) { return (std::uint64_t{r[7 - 2 * i]} << 32) | r[6 - 2 * i]; };
  const std::uint64_t a = word(0), b = word(1), c = word(2), d = word(3);
  unsigned q = static_cast<unsigned>(a >> 62);
  // The fraction t in [0, 1) after the two quadrant bits, as 192 bits u0 u1 u2.
  std::uint64_t u0 = (a << 2) | (b >> 62), u1 = (b << 2) | (c >> 62), u2 = (c << 2) | (d >> 62);
  const bool negative = (u0 >> 63) != 0;
  if (negative) {  // t >= 1/2: q + 1 and t - 1, i.e. negate 1 - t
    ++q;
    u0 = ~u0;
    u1 = ~u1;
    u2 = ~u2 + 1;
    if (u2 == 0 && ++u1 == 0) ++u0;
  }
  int shift = 0;
  if (u0 == 0) {  // |t| < 2^-64 (no double comes that close to a multiple of pi/2, x87 may)
    u0 = u1;
    u1 = u2;
    u2 = 0;
    shift = 64;
  }
  if (u0 == 0) {
    // Member by member: at -O0 Clang zero-fills a braced aggregate of zeros with memset, which
    // a freestanding program does not have.
    trig_reduced zero;  // NOLINT(cppcoreguidelines-pro-type-member-init): every member is set below
    zero.q = q & 3u;
    zero.r.hi = 0.0;
    zero.r.lo = 0.0;
    return zero;
  }
  const int lz = std::countl_zero(u0);
  if (lz != 0) {
    u0 = (u0 << lz) | (u1 >> (64 - lz));
    u1 = (u1 << lz) | (u2 >> (64 - lz));
  }
  shift += lz;
  // t = u0 2^-(64 + shift) + u1 2^-(128 + shift), as a double-double.
  const double scale_hi = std::bit_cast<double>(static_cast<std::uint64_t>(1023 - 53 - shift) << 52),
               scale_lo = std::bit_cast<double>(static_cast<std::uint64_t>(1023 - 117 - shift) << 52),
               t_hi = static_cast<double>(u0 >> 11) * scale_hi,
               t_lo = static_cast<double>(((u0 & 0x7ffu) << 53) | (u1 >> 11)) * scale_lo;
  const dd p = two_prod(t_hi, trig_pio2_hi);
  const dd rr = fast_two_sum(p.hi, p.lo + CXMAT_DETAIL_MAD(t_hi, trig_pio2_lo, t_lo * trig_pio2_hi));
  return {q & 3u, negative ? dd{-rr.hi, -rr.lo} : rr};
}

// |x| for a finite double with |x| >= 2^-27.
CXMAT_DETAIL_IEEE_FN constexpr trig_reduced trig_reduce(double ax) noexcept {
  CXMAT_DETAIL_STRICT_FP
  if (ax < 0x1p20) {
    // Rounds half up a non-negative value (truncation after + 0.5 is right for it).
    // NOLINTNEXTLINE(bugprone-incorrect-roundings)
    const double fn = static_cast<double>(static_cast<std::int64_t>(CXMAT_DETAIL_MAD(ax, trig_inv_pio2, 0.5)));
    return {static_cast<unsigned>(static_cast<std::int64_t>(fn)) & 3u,
            trig_reduce_rest(fn, CXMAT_DETAIL_MAD(-fn, trig_pio2_1, ax), 0.0)};
  }
  const std::uint64_t ix = std::bit_cast<std::uint64_t>(ax);
  return trig_reduce_large((ix & 0x000fffffffffffffu) | 0x0010000000000000u, static_cast<int>(ix >> 52) - 1075);
}

// sin(r.hi + r.lo) = sin(h) + l cos(h), h = r.hi, l = r.lo, |r| <= pi/4 + a little:
// h + h^3 (-1/6) + h^3 s p(s) + l (1 - s/2 + s^2/24) with s = h^2, where h - h^3/6 (up to a tenth of the
// result) is formed from exact products and -1/6 as a double-double, so the result is rounded
// once with an error of about 2^-60 before that.
CXMAT_DETAIL_IEEE_FN constexpr dd sin_kernel(dd r) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double h = r.hi, s = h * h, s_lo = CXMAT_DETAIL_TWO_PROD_LO(h, h, s), hs = h * s,
               hs_lo = CXMAT_DETAIL_TWO_PROD_LO(h, s, hs), c = hs * sin_taylor[0],
               c_lo = CXMAT_DETAIL_TWO_PROD_LO(hs, sin_taylor[0], c),
               p = CXMAT_DETAIL_MAD(
                   s,
                   CXMAT_DETAIL_MAD(
                       s,
                       CXMAT_DETAIL_MAD(
                           s,
                           CXMAT_DETAIL_MAD(
                               s, CXMAT_DETAIL_MAD(s, CXMAT_DETAIL_MAD(s, sin_taylor[7], sin_taylor[6]), sin_taylor[5]),
                               sin_taylor[4]),
                           sin_taylor[3]),
                       sin_taylor[2]),
                   sin_taylor[1]),
               // h^3 = hs + hs_lo + h s_lo (to first order), times -1/6 = sin_taylor[0] + sin_taylor_lo;
               // every product feeding a sum is a multiply-add (GCC would otherwise contract some).
      tail =
          CXMAT_DETAIL_MAD(r.lo, CXMAT_DETAIL_MAD(s, CXMAT_DETAIL_MAD(s, cos_taylor[0], -0.5), 1.0),  // l cos h
                           CXMAT_DETAIL_MAD(hs, CXMAT_DETAIL_MAD(s, p, sin_taylor_lo),
                                            CXMAT_DETAIL_MAD(CXMAT_DETAIL_MAD(h, s_lo, hs_lo), sin_taylor[0], c_lo))),
               t = h + c, u = CXMAT_DETAIL_FAST_TWO_SUM_LO(h, c, t) + tail, v = t + u;
  return {v, CXMAT_DETAIL_FAST_TWO_SUM_LO(t, u, v)};
}

// cos(r.hi + r.lo) = cos(h) - l sin(h), |r| <= pi/4 + a little: 1 - s/2 + s^2/24 + s^3 p(s)
// - h l (1 - s/6) with s = h^2, the terms up to s^2/24 formed exactly (1/24 as a double-double), so the
// result is rounded once with an error of about 2^-60 before that.
CXMAT_DETAIL_IEEE_FN constexpr dd cos_kernel(dd r) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double h = r.hi, s = h * h, s_lo = CXMAT_DETAIL_TWO_PROD_LO(h, h, s), s2 = s * s,
               s2_lo = CXMAT_DETAIL_TWO_PROD_LO(s, s, s2), c = s2 * cos_taylor[0],
               c_lo = CXMAT_DETAIL_TWO_PROD_LO(s2, cos_taylor[0], c), hz = 0.5 * s, w = 1.0 - hz,
               tmp = (1.0 - w) - hz,  // w + tmp = 1 - s/2 exactly
      p = CXMAT_DETAIL_MAD(
          s,
          CXMAT_DETAIL_MAD(
              s,
              CXMAT_DETAIL_MAD(
                  s,
                  CXMAT_DETAIL_MAD(
                      s, CXMAT_DETAIL_MAD(s, CXMAT_DETAIL_MAD(s, cos_taylor[7], cos_taylor[6]), cos_taylor[5]),
                      cos_taylor[4]),
                  cos_taylor[3]),
              cos_taylor[2]),
          cos_taylor[1]),
               // s^2 = s2 + s2_lo + 2 s s_lo (to first order), times 1/24 = cos_taylor[0] + cos_taylor_lo.
      tail = CXMAT_DETAIL_MAD(s2, CXMAT_DETAIL_MAD(s, p, cos_taylor_lo),
                              CXMAT_DETAIL_MAD(CXMAT_DETAIL_MAD(2 * s, s_lo, s2_lo), cos_taylor[0], c_lo)) +
             (tmp + CXMAT_DETAIL_MAD(-h * r.lo, CXMAT_DETAIL_MAD(s, sin_taylor[0], 1.0), -0.5 * s_lo)),  // - l sin h
      t = w + c, u = CXMAT_DETAIL_FAST_TWO_SUM_LO(w, c, t) + tail, v = t + u;
  return {v, CXMAT_DETAIL_FAST_TWO_SUM_LO(t, u, v)};
}

// sin (cosine = false) or cos of q pi/2 + r.
CXMAT_DETAIL_IEEE_FN constexpr dd sin_cos_reduced(trig_reduced t, bool cosine) noexcept {
  const unsigned n = (t.q + (cosine ? 1u : 0u)) & 3u;
  const dd v = (n & 1u) != 0 ? cos_kernel(t.r) : sin_kernel(t.r);
  return (n & 2u) != 0 ? dd{-v.hi, -v.lo} : v;
}

// sin or cos of a finite double with |x| >= 2^-27, as a double-double.
CXMAT_DETAIL_IEEE_FN constexpr dd sin_cos_finite(double x, bool cosine) noexcept {
  const double ax = x < 0 ? -x : x;
  const dd v = sin_cos_reduced(trig_reduce(ax), cosine);
  return (!cosine && x < 0) ? dd{-v.hi, -v.lo} : v;
}

// sin (cosine = false) or cos of a float with 2^-27 <= |x| < inf, correctly rounded: the
// reduction of the double kernels (r = r_hi + r_lo to about 2^-100 |r| by Cody-Waite, 120 bits
// or more by Payne-Hanek; |r| >= 2^-61 for every double, see docs/math.md), then a fast
// path in plain double arithmetic with h = r_hi, l = r_lo, s = h^2 and the Taylor coefficients
// of sin_kernel and cos_kernel:
//   sin r ~ h + (h s (-1/6 + s P(s)) + l),   cos r ~ (1 + s (-1/2 + s (1/24 + s Q(s)))) - h l.
// Error bound (|h| <= pi/4 + 2^-40, s <= 0.62): the truncations are below 2^-62; dropping
// l (cos h - 1) and l^2 costs below 2^-54 |h| and 2^-100. sin: the term h s (...) is below 0.11
// |h| and carries about 4 roundings of its size, the last addition one: within 2^-53 (|y| +
// 0.45 |h| + 0.16 |h|) <= 1.7 2^-53 |sin r| (sin r >= 0.89 h). cos: s (...) is below 0.31 and
// carries about 3 roundings of its size (s itself one, 0.31), the last two additions one each:
// within 2^-53 (1.0 + 0.93 + 0.62 + 0.62) <= 3.2 2^-53, and cos r >= 0.70: below 4.6 2^-53 |cos
// r|. Both are below 2^-50.7 of the result, 2^8 times inside the 2^-42 that
// CXMAT_DETAIL_ROUNDS_AS_FLOAT needs (the results are normal floats: |sin r| >= 0.89 |r| and
// |r| >= 2^-61). Otherwise the double-double kernel of the same reduction decides.
CXMAT_DETAIL_IEEE_FN constexpr float sin_cos_float(float x, bool cosine) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double xd = static_cast<double>(x);
  const trig_reduced t = trig_reduce(xd < 0 ? -xd : xd);
  const unsigned n = (t.q + (cosine ? 1u : 0u)) & 3u;
  const double
      h = t.r.hi,
      l = t.r.lo, s = h * h,
      y = (n & 1u) != 0
              ? CXMAT_DETAIL_MAD(
                    -h, l,
                    CXMAT_DETAIL_MAD(
                        s,
                        CXMAT_DETAIL_MAD(
                            s,
                            CXMAT_DETAIL_MAD(
                                s,
                                CXMAT_DETAIL_MAD(
                                    s,
                                    CXMAT_DETAIL_MAD(
                                        s,
                                        CXMAT_DETAIL_MAD(
                                            s,
                                            CXMAT_DETAIL_MAD(
                                                s,
                                                CXMAT_DETAIL_MAD(s, CXMAT_DETAIL_MAD(s, cos_taylor[7], cos_taylor[6]),
                                                                 cos_taylor[5]),
                                                cos_taylor[4]),
                                            cos_taylor[3]),
                                        cos_taylor[2]),
                                    cos_taylor[1]),
                                cos_taylor[0]),
                            -0.5),
                        1.0))
              : h + CXMAT_DETAIL_MAD(
                        h * s,
                        CXMAT_DETAIL_MAD(
                            s,
                            CXMAT_DETAIL_MAD(
                                s,
                                CXMAT_DETAIL_MAD(
                                    s,
                                    CXMAT_DETAIL_MAD(
                                        s,
                                        CXMAT_DETAIL_MAD(
                                            s,
                                            CXMAT_DETAIL_MAD(s, CXMAT_DETAIL_MAD(s, sin_taylor[7], sin_taylor[6]),
                                                             sin_taylor[5]),
                                            sin_taylor[4]),
                                        sin_taylor[3]),
                                    sin_taylor[2]),
                                sin_taylor[1]),
                            sin_taylor[0]),
                        l);
  const float f = CXMAT_DETAIL_ROUNDS_AS_FLOAT(y) ? static_cast<float>(y)
                                                  : round_to_float((n & 1u) != 0 ? cos_kernel(t.r) : sin_kernel(t.r));
  // The quadrant's sign, and sin's oddness (rounding is symmetric).
  return ((n & 2u) != 0) != (!cosine && x < 0) ? -f : f;
}

// x87 long double, finite, |x| >= 2^-33.
CXMAT_DETAIL_IEEE_FN constexpr long double sin_cos_long(long double x, bool cosine) noexcept {
  CXMAT_DETAIL_STRICT_FP
  using L = long double;
  const L ax = x < 0 ? -x : x;
  trig_reduced t{};
  if (ax < 0x1p20L) {
    // Rounds half up a non-negative value (truncation after + 0.5 is right for it).
    // NOLINTNEXTLINE(bugprone-incorrect-roundings)
    const double fn =
        static_cast<double>(static_cast<std::int64_t>(CXMAT_DETAIL_MAD(static_cast<double>(ax), trig_inv_pio2, 0.5)));
    const L a = ax - static_cast<L>(fn) * static_cast<L>(trig_pio2_1);  // exact
    const double a_hi = static_cast<double>(a), a_lo = static_cast<double>(a - static_cast<L>(a_hi));
    t = {static_cast<unsigned>(static_cast<std::int64_t>(fn)) & 3u, trig_reduce_rest(fn, a_hi, a_lo)};
  } else {
    // |x| = m 2^e with m in [2^63, 2^64), by exact scaling.
    L y = ax;
    int e = 0;
    while (y >= 0x1p96L) {
      y *= 0x1p-32L;
      e += 32;
    }
    while (y >= 0x1p64L) {
      y *= 0.5L;
      ++e;
    }
    while (y < 0x1p31L) {
      y *= 0x1p32L;
      e -= 32;
    }
    while (y < 0x1p63L) {
      y *= 2;
      --e;
    }
    t = trig_reduce_large(static_cast<std::uint64_t>(y), e);
  }
  const dd v = sin_cos_reduced(t, cosine);
  const L r = to_long(v);
  return (!cosine && x < 0) ? -r : r;
}

}  // namespace detail

/// Sine in double precision (within 1 ulp for every finite x, with an exact reduction for
/// large |x|; measured figures in docs/math.md). sin(±0) = ±0, sin(±inf) = NaN, sin(NaN) = NaN.
/// Same bits in constant expressions and at run time.
CXMAT_DETAIL_IEEE_FN constexpr double sin(double x) noexcept {
  const std::uint64_t ax = std::bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffu;
  if (ax < 0x3e40000000000000u) return x;  // |x| < 2^-27 (and ±0): sin x rounds to x
  if (ax >= 0x7ff0000000000000u) return ax == 0x7ff0000000000000u ? std::numeric_limits<double>::quiet_NaN() : x;
  const detail::dd v = detail::sin_cos_finite(x, false);
  return v.hi + v.lo;
}

/// Cosine in double precision (within 1 ulp for every finite x; see sin). cos(±0) = 1,
/// cos(±inf) = NaN, cos(NaN) = NaN.
CXMAT_DETAIL_IEEE_FN constexpr double cos(double x) noexcept {
  const std::uint64_t ax = std::bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffu;
  if (ax < 0x3e40000000000000u) return 1.0;  // |x| < 2^-27: cos x rounds to 1
  if (ax >= 0x7ff0000000000000u) return ax == 0x7ff0000000000000u ? std::numeric_limits<double>::quiet_NaN() : x;
  const detail::dd v = detail::sin_cos_finite(x, true);
  return v.hi + v.lo;
}

/// Sine in single precision, correctly rounded (see docs/math.md). Special values as for double.
CXMAT_DETAIL_IEEE_FN constexpr float sin(float x) noexcept {
  const std::uint32_t ax = std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
  if (ax < 0x32000000u) return x;  // |x| < 2^-27
  if (ax >= 0x7f800000u) return ax == 0x7f800000u ? std::numeric_limits<float>::quiet_NaN() : x;
  return detail::sin_cos_float(x, false);
}

/// Cosine in single precision, correctly rounded (see docs/math.md). Special values as for
/// double.
CXMAT_DETAIL_IEEE_FN constexpr float cos(float x) noexcept {
  const std::uint32_t ax = std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
  if (ax < 0x32000000u) return 1.0f;
  if (ax >= 0x7f800000u) return ax == 0x7f800000u ? std::numeric_limits<float>::quiet_NaN() : x;
  return detail::sin_cos_float(x, true);
}

/// Sine in long double. Where long double is double this is the double overload; for the x87
/// 80-bit format the measured bound is in docs/math.md. Special values as for double.
CXMAT_DETAIL_IEEE_FN constexpr long double sin(long double x) noexcept {
  using lim = std::numeric_limits<long double>;
  if constexpr (lim::digits == std::numeric_limits<double>::digits || lim::digits != 64) {
    return static_cast<long double>(sin(static_cast<double>(x)));
  } else {
    if (!(x == x)) return x;
    if (x == lim::infinity() || x == -lim::infinity()) return lim::quiet_NaN();
    if (x < 0x1p-33L && x > -0x1p-33L) return x;
    return detail::sin_cos_long(x, false);
  }
}

/// Cosine in long double; see sin(long double).
CXMAT_DETAIL_IEEE_FN constexpr long double cos(long double x) noexcept {
  using lim = std::numeric_limits<long double>;
  if constexpr (lim::digits == std::numeric_limits<double>::digits || lim::digits != 64) {
    return static_cast<long double>(cos(static_cast<double>(x)));
  } else {
    if (!(x == x)) return x;
    if (x == lim::infinity() || x == -lim::infinity()) return lim::quiet_NaN();
    if (x < 0x1p-33L && x > -0x1p-33L) return 1;
    return detail::sin_cos_long(x, true);
  }
}

/// Sine of an integer argument, computed in double (as std::sin does).
template <std::integral I>
CXMAT_DETAIL_IEEE_FN constexpr double sin(I x) noexcept {
  return sin(static_cast<double>(x));
}

/// Cosine of an integer argument, computed in double (as std::cos does).
template <std::integral I>
CXMAT_DETAIL_IEEE_FN constexpr double cos(I x) noexcept {
  return cos(static_cast<double>(x));
}

}  // namespace cxmat

CXMAT_DETAIL_DIAG_POP
