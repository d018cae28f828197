// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// Double-double pieces shared by cxmat's log, tanh, erf, sin and cos (internal): exact sums and
// products of two doubles, the multiply-add of the one fusion policy, and the final rounding of
// a double-double to float. Every function here is exact or rounds once, the same way in a
// constant expression and at run time (see math/fp.hpp and math/detail/fp.hpp).

#include <bit>
#include <cstdint>

#include "cxmat/math/detail/fp.hpp"
#include "cxmat/math/fp.hpp"

// a * b + c under the one fusion policy (CXMAT_DETAIL_EXPLICIT_FMA): one rounding where GCC
// would contract, two elsewhere (Clang's contraction is off in every function that uses it).
// A macro, not a function, so that a kernel stays one statement for Clang's step counter.
#if CXMAT_DETAIL_EXPLICIT_FMA
#define CXMAT_DETAIL_MAD(a, b, c) __builtin_fma((a), (b), (c))
#else
#define CXMAT_DETAIL_MAD(a, b, c) ((a) * (b) + (c))
#endif

// The low parts of exact sums and products as expression macros (a, b: plain variables or
// constants; s = a + b or p = a * b already computed), so that a kernel can stay one declaration
// statement for Clang's step counter. The functions below are written with them.
#define CXMAT_DETAIL_TWO_SUM_LO(a, b, s) (((a) - ((s) - ((s) - (a)))) + ((b) - ((s) - (a))))
#define CXMAT_DETAIL_FAST_TWO_SUM_LO(a, b, s) ((b) - ((s) - (a)))
#if CXMAT_DETAIL_EXPLICIT_FMA
#define CXMAT_DETAIL_TWO_PROD_LO(a, b, p) __builtin_fma((a), (b), -(p))
#else
// Veltkamp's split (the high 26 bits of a) and Dekker's exact product.
#define CXMAT_DETAIL_SPLIT_HI(a) (0x1.0000002p27 * (a) - (0x1.0000002p27 * (a) - (a)))
#define CXMAT_DETAIL_TWO_PROD_LO(a, b, p)                          \
  ((((CXMAT_DETAIL_SPLIT_HI(a) * CXMAT_DETAIL_SPLIT_HI(b) - (p)) + \
     CXMAT_DETAIL_SPLIT_HI(a) * ((b)-CXMAT_DETAIL_SPLIT_HI(b))) +  \
    ((a)-CXMAT_DETAIL_SPLIT_HI(a)) * CXMAT_DETAIL_SPLIT_HI(b)) +   \
   ((a)-CXMAT_DETAIL_SPLIT_HI(a)) * ((b)-CXMAT_DETAIL_SPLIT_HI(b)))
#endif

// Ziv's rounding test for the float fast paths of log, tanh, erf, sin and cos: y is a double
// approximation of f = f(x) with |y - f| <= 2^-42 |f|, and f, if not 0, lies in the float normal
// range. With y in [2^e, 2^(e+1)) (ulp(y) = 2^(e-52) as a double), |y - f| < 2^11 (1 + 2^-41)
// ulp(y). The float rounding boundaries (half-way between two floats) in y's binade are the
// doubles whose low 29 bits are 2^28; those outside it are at least 2^27 ulp(y) from y. So when
// the low 29 bits of y are more than 2^12 from 2^28, no boundary lies between y and f, and
// rounding y to float gives the correctly rounded f. Otherwise (a fraction 2^-16 of the results)
// the caller falls back to its double-double kernel. An expression macro, so that the caller
// stays one statement for Clang's step counter.
#define CXMAT_DETAIL_ROUNDS_AS_FLOAT(y) \
  (((std::bit_cast<std::uint64_t>(y) - 0x10000000u + 0x1000u) & 0x1fffffffu) > 0x2000u)

namespace cxmat::detail {

// hi + lo with |lo| <= ulp(hi) / 2: a value carried to about 106 bits.
struct dd {
  double hi;
  double lo;
};

// a + b = s + e exactly (Knuth).
CXMAT_DETAIL_IEEE_FN constexpr dd two_sum(double a, double b) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double s = a + b;
  return {s, CXMAT_DETAIL_TWO_SUM_LO(a, b, s)};
}

// a + b = s + e exactly, given |a| >= |b| or a == 0 (Dekker).
CXMAT_DETAIL_IEEE_FN constexpr dd fast_two_sum(double a, double b) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double s = a + b;
  return {s, CXMAT_DETAIL_FAST_TWO_SUM_LO(a, b, s)};
}

// a * b = p + e exactly (no overflow or underflow in the callers' ranges): by one fused
// multiply-add where the policy fuses, else by Veltkamp's split and Dekker's product. Both are
// exact, so both give the same bits.
CXMAT_DETAIL_IEEE_FN constexpr dd two_prod(double a, double b) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const double p = a * b;
  return {p, CXMAT_DETAIL_TWO_PROD_LO(a, b, p)};
}

// hi + lo rounded once to float: hi is moved to its odd neighbour towards lo when lo is not
// zero and hi is even (rounding to odd), and the result then rounded to float, which equals
// rounding hi + lo directly (53 >= 24 + 2). Requires |lo| <= ulp(hi) / 2.
CXMAT_DETAIL_IEEE_FN constexpr float round_to_float(dd v) noexcept {
  CXMAT_DETAIL_STRICT_FP
  const std::uint64_t b = std::bit_cast<std::uint64_t>(v.hi);
  if (v.lo == 0 || (b & 1) != 0) return static_cast<float>(v.hi);
  const bool away = (v.lo > 0) == (v.hi > 0);  // the odd neighbour towards lo has a larger magnitude
  return static_cast<float>(std::bit_cast<double>(away ? b + 1 : b - 1));
}

// The long double value hi + lo, rounded once (x87: the sum of two doubles is exact when it
// fits 64 bits, otherwise rounded once).
constexpr long double to_long(dd v) noexcept { return static_cast<long double>(v.hi) + static_cast<long double>(v.lo); }

}  // namespace cxmat::detail
