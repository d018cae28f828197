// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// cxmat::sqrt for float, double and long double, usable in constant expressions.
//
// Method (see docs/math.md): the significand is scaled to an integer N with an even exponent, a
// floating-point Newton iteration gives a root within a few units of round(sqrt(N)), and an
// exact integer remainder test moves it to the correctly rounded value. No libm call. At run
// time on x86 the SSE2 instruction is used instead; being correctly rounded too, it gives the
// same bits as constant evaluation.

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cxmat/math/detail/fp.hpp"
#include "cxmat/math/fp.hpp"

CXMAT_DETAIL_DIAG_PUSH

namespace cxmat {
namespace detail {

// Deliberately not constexpr: cxmat::sqrt calls it for a negative argument during constant
// evaluation, so the compiler's error message names the problem.
inline void sqrt_of_negative_number_in_constant_expression() noexcept {}

// Correctly rounded square root of the positive finite non-zero double with bits ix.
CXMAT_DETAIL_IEEE_FN constexpr double sqrt_positive(std::uint64_t ix) noexcept {
  CXMAT_DETAIL_STRICT_FP
  constexpr std::uint64_t frac_mask = (std::uint64_t{1} << 52) - 1;
  std::int64_t e = static_cast<std::int64_t>(ix >> 52);
  std::uint64_t m = ix & frac_mask;
  if (e == 0) {  // subnormal: normalise the significand
    const int s = std::countl_zero(m) - 11;
    m <<= s;
    e = 1 - s;
  } else {
    m |= std::uint64_t{1} << 52;
  }
  std::int64_t ue = e - 1075;  // x = m * 2^ue, m in [2^52, 2^53)
  if ((ue & 1) != 0) {
    m <<= 1;
    --ue;
  }
  // With N = m * 2^52 (up to 106 bits), sqrt(x) = sqrt(N) * 2^((ue - 52) / 2) and
  // round(sqrt(N)) lies in [2^52, 2^53). f = N * 2^-104 in [1, 4) is exact in a double.
  // Newton from (1 + f) / 2 >= sqrt(f): relative error 1/4 at worst, then 3e-2, 5e-4, 1e-7,
  // 6e-15 and rounding level. Six steps in one declaration (one constexpr evaluation step).
  const double f = static_cast<double>(m) * 0x1p-52, y0 = 0.5 * (1.0 + f), y1 = 0.5 * (y0 + f / y0),
               y2 = 0.5 * (y1 + f / y1), y3 = 0.5 * (y2 + f / y2), y4 = 0.5 * (y3 + f / y3), y5 = 0.5 * (y4 + f / y4),
               y = 0.5 * (y5 + f / y5);
  std::uint64_t root = static_cast<std::uint64_t>(y * 0x1p52);  // y * 2^52 is an integer
  // sqrt(N) rounds to root iff -root < N - root^2 <= root (no ties: sqrt of an integer is never
  // a half-integer). N - root^2 is small, so its low 64 bits (wrapping arithmetic) are exact.
  const std::uint64_t n_low = m << 52;
  for (;;) {
    const auto d = static_cast<std::int64_t>(n_low - root * root);
    if (d > static_cast<std::int64_t>(root)) {
      ++root;
    } else if (d <= -static_cast<std::int64_t>(root)) {
      --root;
    } else {
      break;
    }
  }
  const auto biased = static_cast<std::uint64_t>(1023 + 26 + ue / 2);
  return std::bit_cast<double>((biased << 52) | (root & frac_mask));
}

// Shared tail of the special cases: NaN for a negative argument, diagnosed in constant
// evaluation.
template <class T>
constexpr T sqrt_of_negative() noexcept {
  if (in_constant_evaluation()) sqrt_of_negative_number_in_constant_expression();
  return std::numeric_limits<T>::quiet_NaN();
}

// long double, x positive finite non-zero. For the x87 80-bit format (64-bit significand) the
// same exact integer test with 128-bit integers; elsewhere (IEEE quad) a Newton iteration that
// is not proven correctly rounded (see docs/math.md).
CXMAT_DETAIL_IEEE_FN constexpr long double sqrt_long(long double x) noexcept {
  CXMAT_DETAIL_STRICT_FP
  using L = long double;
  // x = f * 2^e2 with f in [1, 4) and e2 even, by exact scaling.
  std::int64_t e2 = 0;
  while (x >= 0x1p1000L) {
    x *= 0x1p-1000L;
    e2 += 1000;
  }
  while (x < 0x1p-1000L) {
    x *= 0x1p1000L;
    e2 -= 1000;
  }
  while (x >= 4) {
    x *= L{0.25};
    e2 += 2;
  }
  while (x < 1) {
    x *= 4;
    e2 -= 2;
  }
  L y = L{0.5} * (1 + x);
  for (int i = 0; i < 8; ++i) y = L{0.5} * (y + x / y);
#if defined(__SIZEOF_INT128__)
  if constexpr (std::numeric_limits<L>::digits == 64) {
    __extension__ using u128 = unsigned __int128;
    // N = x * 2^126 is an integer below 2^128 (x in [1, 4) has 64 significant bits) and
    // sqrt(N) = sqrt(x) * 2^63 lies in [2^63, 2^64).
    const u128 n = x < 2 ? static_cast<u128>(static_cast<std::uint64_t>(x * 0x1p63L)) << 63
                         : static_cast<u128>(static_cast<std::uint64_t>(x * 0x1p62L)) << 64;
    auto root = static_cast<std::uint64_t>(y * 0x1p63L);
    for (;;) {
      const u128 sq = static_cast<u128>(root) * root;
      if (n > sq + root) {
        ++root;
      } else if (n <= sq - root) {
        --root;
      } else {
        break;
      }
    }
    y = static_cast<L>(root) * 0x1p-63L;
  }
#endif
  // Scale back by 2^(e2/2), exactly (the result is never subnormal).
  std::int64_t h = e2 / 2;
  for (; h > 1000; h -= 1000) y *= 0x1p1000L;
  for (; h < -1000; h += 1000) y *= 0x1p-1000L;
  return y * static_cast<L>(std::bit_cast<double>(static_cast<std::uint64_t>(h + 1023) << 52));
}

// Run-time square root by the SSE2 instruction, which is correctly rounded like the software
// method and so gives the same bits; no libm call (unlike __builtin_sqrt with errno on).
// Define CXMAT_MATH_SOFTWARE_SQRT to use the software method at run time too.
#if (defined(__SSE2__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(CXMAT_MATH_SOFTWARE_SQRT)
#define CXMAT_DETAIL_HW_SQRT 1
typedef double sqrt_v2df __attribute__((__vector_size__(16)));
typedef float sqrt_v4sf __attribute__((__vector_size__(16)));
inline double sqrt_hw(double x) noexcept { return __builtin_ia32_sqrtsd(sqrt_v2df{x, 0.0})[0]; }
inline float sqrt_hw(float x) noexcept { return __builtin_ia32_sqrtss(sqrt_v4sf{x, 0.0f, 0.0f, 0.0f})[0]; }
#else
#define CXMAT_DETAIL_HW_SQRT 0
#endif

// The correctly rounded root of a positive finite non-zero float or double: the instruction at
// run time where there is one, the software method otherwise (the same bits either way).
template <class T>
CXMAT_DETAIL_IEEE_FN constexpr T sqrt_finite(T x) noexcept {
  return by_evaluation<CXMAT_DETAIL_HW_SQRT != 0>(
      [x] {
#if CXMAT_DETAIL_HW_SQRT
        return sqrt_hw(x);
#else
        return x;  // never called: there is no run-time form
#endif
      },
      [x] { return static_cast<T>(sqrt_positive(std::bit_cast<std::uint64_t>(static_cast<double>(x)))); });
}

// The software method on its own (positive finite non-zero x), for tests and constant
// evaluation.
CXMAT_DETAIL_IEEE_FN constexpr double sqrt_soft(double x) noexcept {
  return sqrt_positive(std::bit_cast<std::uint64_t>(x));
}

}  // namespace detail

/// Square root in double precision, correctly rounded for every input (subnormals included).
/// sqrt(+-0) = +-0, sqrt(+inf) = +inf, sqrt(NaN) = NaN; for x < 0 the result is NaN at run time
/// and, in a constant expression, a compile error naming
/// sqrt_of_negative_number_in_constant_expression. The same bits at compile time and run time.
CXMAT_DETAIL_IEEE_FN constexpr double sqrt(double x) noexcept {
  const auto ix = std::bit_cast<std::uint64_t>(x);
  if (ix - 1 < 0x7fefffffffffffff) {  // positive finite
    return detail::sqrt_finite(x);
  }
  if ((ix << 1) == 0 || (ix & 0x7fffffffffffffff) > 0x7ff0000000000000 || ix == 0x7ff0000000000000) {
    return x;  // +-0, NaN, +inf
  }
  return detail::sqrt_of_negative<double>();
}

/// Square root in single precision, correctly rounded (the correctly rounded double root of a
/// float, rounded to float, is the correctly rounded float root since 53 >= 2 * 24 + 2).
/// Special values as for double.
CXMAT_DETAIL_IEEE_FN constexpr float sqrt(float x) noexcept {
  const auto ix = std::bit_cast<std::uint32_t>(x);
  if (ix - 1 < 0x7f7fffffu) {
    return detail::sqrt_finite(x);
  }
  if ((ix << 1) == 0 || (ix & 0x7fffffffu) > 0x7f800000u || ix == 0x7f800000u) return x;
  return detail::sqrt_of_negative<float>();
}

/// Square root in long double: correctly rounded where long double is double or the x87
/// 80-bit format (measured, docs/math.md). Special values as for double.
CXMAT_DETAIL_IEEE_FN constexpr long double sqrt(long double x) noexcept {
  if constexpr (std::numeric_limits<long double>::digits == std::numeric_limits<double>::digits) {
    return static_cast<long double>(sqrt(static_cast<double>(x)));
  } else {
    if (!(x == x) || x == 0 || x > std::numeric_limits<long double>::max()) return x;
    if (x < 0) return detail::sqrt_of_negative<long double>();
    return detail::sqrt_long(x);
  }
}

/// Square root of an integer argument, computed in double (as std::sqrt does).
template <std::integral I>
CXMAT_DETAIL_IEEE_FN constexpr double sqrt(I x) noexcept {
  return sqrt(static_cast<double>(x));
}

}  // namespace cxmat

#undef CXMAT_DETAIL_HW_SQRT

CXMAT_DETAIL_DIAG_POP
