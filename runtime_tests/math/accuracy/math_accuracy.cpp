// Accuracy of cxmat::exp and cxmat::sqrt against MPFR.
//
// For each input the program computes the error of cxmat's result in ulps of the exact value
// (MPFR at 128 bits, or 64 bits for float) and whether the result is the correctly rounded one
// (MPFR with the target format's precision and exponent range, subnormals included). It prints
// the maximum error, where it occurred, and the share of results not correctly rounded, and exits
// non-zero when a promised bound is broken:
//   exp double <= 0.52 ulp, exp float correctly rounded, sqrt float and double correctly rounded,
//   exp/sqrt long double within the bounds documented in docs/math.md.
//
//   math_accuracy --sample            quick run of every part (the CTest entry)
//   math_accuracy --full              the full run whose figures are in docs/math.md
//   math_accuracy --part NAME [--count N] [--seed S]   one part at full size (names: --help)
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>

#include "cxmat/math.hpp"
#include "test_support/math_hard_floats.hpp"

namespace {

// Target format described for MPFR: precision, exponent range (MPFR convention: values are
// 0.1b... * 2^e with emin <= e <= emax) and the exponent of the smallest subnormal.
struct format {
  mpfr_prec_t prec;
  mpfr_exp_t emin;
  mpfr_exp_t emax;
  long tiny_exp;  // log2 of the smallest positive subnormal
};
constexpr format fmt_float{24, -148, 128, -149};
constexpr format fmt_double{53, -1073, 1024, -1074};
constexpr format fmt_long{std::numeric_limits<long double>::digits,
                          std::numeric_limits<long double>::min_exponent - std::numeric_limits<long double>::digits + 1,
                          std::numeric_limits<long double>::max_exponent,
                          std::numeric_limits<long double>::min_exponent - std::numeric_limits<long double>::digits};

struct stats {
  const char* name;
  std::uint64_t count = 0;
  std::uint64_t not_cr = 0;
  double max_ulp = 0;
  long double worst_x = 0;
  void print() const {
    std::printf("%-34s n=%-12" PRIu64 " max_ulp=%.6f at x=%La  not_correctly_rounded=%" PRIu64 " (%.3g%%)\n", name,
                count, max_ulp, worst_x, not_cr,
                count ? 100.0 * static_cast<double>(not_cr) / static_cast<double>(count) : 0.0);
    std::fflush(stdout);
  }
};

enum class fn { exp, sqrt, log, tanh, erf, sin, cos };

// Reusable MPFR state for one target format.
class checker {
 public:
  explicit checker(format f, mpfr_prec_t wide) : f_(f) {
    mpfr_init2(ref_, wide);
    mpfr_init2(in_, 128);
    mpfr_init2(got_, 128);
    mpfr_init2(diff_, wide + 160);
    mpfr_init2(cr_, f.prec);
  }
  ~checker() { mpfr_clears(ref_, in_, got_, diff_, cr_, static_cast<mpfr_ptr>(nullptr)); }
  checker(const checker&) = delete;
  checker& operator=(const checker&) = delete;

  // Records cxmat's result `y` for input `x`.
  template <class T>
  void check(fn which, T x, T y, stats& s) {
    set(in_, x);
    set(got_, y);
    ++s.count;
    if (std::isnan(static_cast<long double>(x))) {
      if (!std::isnan(static_cast<long double>(y))) note(s, x, 1e9, true);
      return;
    }
    eval(which, ref_);
    double err = 0;
    bool cr;
    if (mpfr_inf_p(got_) || mpfr_zero_p(got_) || mpfr_inf_p(ref_) || mpfr_nan_p(ref_)) {
      cr = correctly_rounded(which);
      err = cr ? 0.0 : 1e9;
      if (!cr && mpfr_zero_p(got_) && !mpfr_inf_p(ref_)) err = ulp_error();
    } else {
      err = ulp_error();
      // The 128-bit reference decides unless the error is within 2^-40 ulp of one half.
      if (std::fabs(err) < 0.5 - 0x1p-40) {
        cr = true;
      } else if (std::fabs(err) > 0.5 + 0x1p-40) {
        cr = false;
      } else {
        cr = correctly_rounded(which);
      }
    }
    note(s, x, std::fabs(err), !cr);
  }

 private:
  template <class T>
  static void note(stats& s, T x, double err, bool wrong) {
    if (wrong) ++s.not_cr;
    if (err > s.max_ulp) {
      s.max_ulp = err;
      s.worst_x = static_cast<long double>(x);
    }
  }
  static void set(mpfr_t v, float x) { mpfr_set_flt(v, x, MPFR_RNDN); }
  static void set(mpfr_t v, double x) { mpfr_set_d(v, x, MPFR_RNDN); }
  static void set(mpfr_t v, long double x) { mpfr_set_ld(v, x, MPFR_RNDN); }

  int eval(fn which, mpfr_t out) {
    switch (which) {
      case fn::exp:
        return mpfr_exp(out, in_, MPFR_RNDN);
      case fn::sqrt:
        return mpfr_sqrt(out, in_, MPFR_RNDN);
      case fn::log:
        return mpfr_log(out, in_, MPFR_RNDN);
      case fn::tanh:
        return mpfr_tanh(out, in_, MPFR_RNDN);
      case fn::erf:
        return mpfr_erf(out, in_, MPFR_RNDN);
      case fn::sin:
        return mpfr_sin(out, in_, MPFR_RNDN);
      default:
        return mpfr_cos(out, in_, MPFR_RNDN);
    }
  }

  // (got - ref) / ulp(ref) in the target format (subnormal ulp below the normal range, the ulp
  // of the largest finite value above it).
  double ulp_error() {
    if (mpfr_zero_p(ref_)) return mpfr_zero_p(got_) ? 0.0 : 1e9;
    mpfr_exp_t e = mpfr_get_exp(ref_);  // ref in [2^(e-1), 2^e)
    if (e > f_.emax) e = f_.emax;
    long ulp_exp = static_cast<long>(e) - static_cast<long>(f_.prec);
    if (ulp_exp < f_.tiny_exp) ulp_exp = f_.tiny_exp;
    mpfr_sub(diff_, got_, ref_, MPFR_RNDN);
    mpfr_mul_2si(diff_, diff_, -ulp_exp, MPFR_RNDN);
    return mpfr_get_d(diff_, MPFR_RNDN);
  }

  // Exact verdict: MPFR rounds once to the target format with its exponent range.
  bool correctly_rounded(fn which) {
    const mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(f_.emin);
    mpfr_set_emax(f_.emax);
    const int t = eval(which, cr_);
    mpfr_subnormalize(cr_, t, MPFR_RNDN);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    if (mpfr_nan_p(cr_)) return mpfr_nan_p(got_) != 0;
    return mpfr_equal_p(cr_, got_) != 0 && mpfr_signbit(cr_) == mpfr_signbit(got_);
  }

  format f_;
  mpfr_t ref_, in_, got_, diff_, cr_;
};

bool failed = false;
void require(bool ok, const char* what) {
  if (!ok) {
    std::printf("BOUND BROKEN: %s\n", what);
    failed = true;
  }
}

// Documented bounds (docs/math.md); the program fails when a run exceeds them.
constexpr double exp_double_bound = 0.52;
constexpr double exp_long_bound = 0.52;           // normal results, x87 80-bit
constexpr double exp_long_subnormal_bound = 1.0;  // results below LDBL_MIN (two roundings)

double next_up(double x) { return std::nextafter(x, std::numeric_limits<double>::infinity()); }
double next_down(double x) { return std::nextafter(x, -std::numeric_limits<double>::infinity()); }

// ---- exp, float: every input with a finite non-zero result, or every `stride`-th one --------
void exp_float_all(std::uint64_t stride) {
  checker c(fmt_float, 64);
  stats s{"exp float (all finite non-zero)"};
  const auto lo = std::bit_cast<std::uint32_t>(cxmat::detail::exp_underflow_f);
  const auto hi = std::bit_cast<std::uint32_t>(cxmat::detail::exp_overflow_f);
  // Negative floats from -0 down to the underflow threshold, then positive ones up to overflow.
  for (std::uint64_t b = 0x80000000u; b <= lo; b += stride) {
    const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    c.check(fn::exp, x, cxmat::exp(x), s);
  }
  for (std::uint64_t b = 0; b <= hi; b += stride) {
    const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    c.check(fn::exp, x, cxmat::exp(x), s);
  }
  s.print();
  require(s.not_cr == 0, "exp(float) must be correctly rounded");
}

// ---- exp, double: random inputs over the finite range ----------------------------------------
void exp_double_random(std::uint64_t n, std::uint64_t seed) {
  checker c(fmt_double, 128);
  stats uni{"exp double uniform in finite range"}, bits{"exp double random bit patterns"};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(cxmat::detail::exp_underflow_d, cxmat::detail::exp_overflow_d);
  for (std::uint64_t i = 0; i < n / 2; ++i) {
    const double x = dist(rng);
    c.check(fn::exp, x, cxmat::exp(x), uni);
  }
  // Random bit patterns cover every binade (tiny |x| included); keep those with finite result.
  for (std::uint64_t i = 0; i < n - n / 2;) {
    const double x = std::bit_cast<double>(rng());
    if (!(x >= cxmat::detail::exp_underflow_d && x <= cxmat::detail::exp_overflow_d)) continue;
    c.check(fn::exp, x, cxmat::exp(x), bits);
    ++i;
  }
  uni.print();
  bits.print();
  require(uni.max_ulp <= exp_double_bound && bits.max_ulp <= exp_double_bound, "exp(double) within 0.52 ulp");
}

// ---- exp, double: structured hard cases --------------------------------------------------------
void exp_double_hard(std::uint64_t scale, std::uint64_t seed) {
  checker c(fmt_double, 128);
  std::mt19937_64 rng(seed);
  const double ln2 = 0x1.62e42fefa39efp-1;
  auto run = [&](stats& s, auto&& gen, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      const double x = gen(i);
      c.check(fn::exp, x, cxmat::exp(x), s);
    }
    s.print();
    return s.max_ulp;
  };
  double worst = 0;
  {
    // |x| = 2^-e * (1 + u) for every binade e in 1..1074, both signs.
    stats s{"exp double tiny |x|"};
    worst = std::max(worst, run(
                                s,
                                [&](std::uint64_t i) {
                                  const int e = 1 + static_cast<int>(i % 1074);
                                  const double m = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
                                  return ((i / 1074) % 2 ? -1.0 : 1.0) * std::ldexp(m, -e);
                                },
                                1074 * 2 * scale));
  }
  {
    // x within a few ulps of k*ln2 and of the table cell edges (k + 1/2) ln2/128.
    stats s{"exp double near k*ln2/128 edges"};
    const std::int64_t kmin = -137500, kmax = 131000;
    const std::uint64_t per = 2 * scale;
    worst = std::max(worst, run(
                                s,
                                [&](std::uint64_t i) {
                                  const std::int64_t k = kmin + static_cast<std::int64_t>(i / (2 * per));
                                  const double half = (i / per) % 2 ? 0.5 : 0.0;
                                  double x = (static_cast<double>(k) + half) * (ln2 / 128);
                                  const auto off =
                                      static_cast<std::int64_t>(i % per) - static_cast<std::int64_t>(per / 2);
                                  for (std::int64_t j = 0; j < (off < 0 ? -off : off); ++j)
                                    x = off < 0 ? next_down(x) : next_up(x);
                                  return std::clamp(x, cxmat::detail::exp_underflow_d, cxmat::detail::exp_overflow_d);
                                },
                                static_cast<std::uint64_t>(kmax - kmin) * 2 * per));
  }
  {
    // The last 2^20 doubles below the overflow threshold and the first ones above it.
    stats s{"exp double near overflow threshold"};
    double x = cxmat::detail::exp_overflow_d;
    for (int j = 0; j < 16; ++j) x = next_up(x);
    worst = std::max(worst, run(
                                s, [&](std::uint64_t) { return x = next_down(x); }, (1u << 16) * scale));
  }
  {
    // Around the underflow threshold, in the subnormal range and across 2^-1022.
    stats s{"exp double subnormal results"};
    std::uniform_real_distribution<double> dist(-745.2, -708.0);
    double x = cxmat::detail::exp_underflow_d;
    for (int j = 0; j < 16; ++j) x = next_down(x);
    worst = std::max(worst, run(
                                s,
                                [&](std::uint64_t i) {
                                  if (i < (1u << 14)) return x = next_up(x);
                                  return dist(rng);
                                },
                                (1u << 14) + (1u << 16) * scale));
  }
  {
    // Large |x| between 512 and the thresholds (the scaled special path).
    stats s{"exp double 512 <= |x| (special path)"};
    std::uniform_real_distribution<double> dist(512.0, cxmat::detail::exp_overflow_d);
    worst =
        std::max(worst, run(
                            s, [&](std::uint64_t i) { return i % 2 ? dist(rng) : -dist(rng); }, (1u << 16) * scale));
  }
  require(worst <= exp_double_bound, "exp(double) hard cases within 0.52 ulp");
}

// ---- special values ----------------------------------------------------------------------------
void exp_special_values() {
  checker cd(fmt_double, 128);
  checker cf(fmt_float, 64);
  stats s{"exp special values"}, sf{"exp float special values"};
  const double inf = std::numeric_limits<double>::infinity();
  const double d[] = {0.0,
                      -0.0,
                      inf,
                      -inf,
                      std::numeric_limits<double>::quiet_NaN(),
                      1e300,
                      -1e300,
                      0x1p-1074,
                      -0x1p-1074,
                      cxmat::detail::exp_overflow_d,
                      next_up(cxmat::detail::exp_overflow_d),
                      cxmat::detail::exp_underflow_d,
                      next_down(cxmat::detail::exp_underflow_d),
                      709.0,
                      -708.0,
                      512.0,
                      -512.0,
                      next_down(512.0),
                      -next_down(512.0),
                      0x1p-54,
                      -0x1p-54,
                      next_down(0x1p-54)};
  for (double x : d) cd.check(fn::exp, x, cxmat::exp(x), s);
  const float finf = std::numeric_limits<float>::infinity();
  const float f[] = {0.0f,
                     -0.0f,
                     finf,
                     -finf,
                     std::numeric_limits<float>::quiet_NaN(),
                     1e30f,
                     -1e30f,
                     cxmat::detail::exp_overflow_f,
                     cxmat::detail::exp_underflow_f,
                     std::nextafter(cxmat::detail::exp_overflow_f, finf),
                     std::nextafter(cxmat::detail::exp_underflow_f, -finf)};
  for (float x : f) cf.check(fn::exp, x, cxmat::exp(x), sf);
  s.print();
  sf.print();
  require(s.not_cr == 0 && sf.not_cr == 0, "exp special values exact");
  require(std::signbit(cxmat::exp(-inf)) == 0 && std::signbit(cxmat::exp(-1e300)) == 0, "exp underflow gives +0");
}

// ---- long double -------------------------------------------------------------------------------
void exp_long(std::uint64_t n, std::uint64_t seed) {
  if (std::numeric_limits<long double>::digits == 53) {
    std::printf("exp long double: long double is double here (see exp double)\n");
    return;
  }
  checker c(fmt_long, 160);
  stats normal{"exp long double normal results"}, sub{"exp long double subnormal results"},
      tiny{"exp long double random bit patterns"};
  std::mt19937_64 rng(seed);
  const long double lo = -11355.0L, hi = 11356.5L;  // normal results
  std::uniform_real_distribution<long double> dist(lo, hi), dsub(-11399.0L, -11355.2L);
  for (std::uint64_t i = 0; i < n; ++i) {
    const long double x = dist(rng);
    c.check(fn::exp, x, cxmat::exp(x), normal);
  }
  for (std::uint64_t i = 0; i < n / 8; ++i) {
    const long double x = dsub(rng);
    c.check(fn::exp, x, cxmat::exp(x), sub);
  }
  for (std::uint64_t i = 0; i < n / 8; ++i) {
    // |x| = 2^-e (1 + u): tiny arguments with full 64-bit significands.
    const int e = static_cast<int>(rng() % 70);
    const long double x =
        (rng() % 2 ? -1.0L : 1.0L) * std::ldexp(1.0L + static_cast<long double>(rng() >> 1) * 0x1p-63L, -e);
    c.check(fn::exp, x, cxmat::exp(x), tiny);
  }
  normal.print();
  tiny.print();
  sub.print();
  require(normal.max_ulp <= exp_long_bound && tiny.max_ulp <= exp_long_bound,
          "exp(long double) within documented bound");
  require(sub.max_ulp <= exp_long_subnormal_bound, "exp(long double) subnormal within documented bound");
}

// ---- sqrt --------------------------------------------------------------------------------------
void sqrt_float_all(std::uint64_t stride) {
  checker c(fmt_float, 64);
  stats s{"sqrt float (all non-negative)"}, soft{"sqrt float, software method"};
  for (std::uint64_t b = 0; b <= 0x7f800000u; b += stride) {
    const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    c.check(fn::sqrt, x, cxmat::sqrt(x), s);
    // The method used in constant evaluation (cxmat::sqrt may use a hardware instruction at
    // run time).
    if (x > 0 && b < 0x7f800000u) {
      c.check(fn::sqrt, x, static_cast<float>(cxmat::detail::sqrt_soft(x)), soft);
    }
  }
  s.print();
  soft.print();
  require(s.not_cr == 0 && soft.not_cr == 0, "sqrt(float) correctly rounded");
}

void sqrt_double_random(std::uint64_t n, std::uint64_t seed) {
  checker c(fmt_double, 128);
  stats s{"sqrt double random bit patterns"}, sub{"sqrt double subnormals"}, edge{"sqrt double binade edges"},
      soft{"sqrt double, software method"};
  std::mt19937_64 rng(seed);
  // Both cxmat::sqrt and the software method used in constant evaluation.
  auto both = [&](double x, stats& st) {
    c.check(fn::sqrt, x, cxmat::sqrt(x), st);
    if (x > 0 && x <= std::numeric_limits<double>::max()) {
      c.check(fn::sqrt, x, cxmat::detail::sqrt_soft(x), soft);
    }
  };
  for (std::uint64_t i = 0; i < n; ++i) {
    both(std::bit_cast<double>(rng() >> 1), s);  // positive, may be inf/NaN
  }
  for (std::uint64_t i = 0; i < n / 8; ++i) {
    both(std::bit_cast<double>(rng() >> (12 + rng() % 52)), sub);
  }
  // Values either side of every power of two (significands all ones or nearly zero).
  for (int e = -1074; e <= 1023; ++e) {
    double x = std::ldexp(1.0, e);
    for (int j = 0; j < 8; ++j) x = next_down(x);
    for (int j = 0; j < 16; ++j, x = next_up(x)) both(x, edge);
  }
  s.print();
  sub.print();
  edge.print();
  soft.print();
  require(s.not_cr == 0 && sub.not_cr == 0 && edge.not_cr == 0 && soft.not_cr == 0, "sqrt(double) correctly rounded");
}

void sqrt_long(std::uint64_t n, std::uint64_t seed) {
  if (std::numeric_limits<long double>::digits == 53) return;
  checker c(fmt_long, 160);
  stats s{"sqrt long double random"};
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < n; ++i) {
    const long double m = 1.0L + static_cast<long double>(rng() >> 1) * 0x1p-63L;
    const int e = static_cast<int>(rng() % 32890) - 16445;
    const long double x = std::ldexp(m, e);
    c.check(fn::sqrt, x, cxmat::sqrt(x), s);
  }
  s.print();
  require(s.not_cr == 0, "sqrt(long double) correctly rounded");
}

// ---- log, tanh, erf, sin, cos ------------------------------------------------------------------
constexpr double elementary_double_bound = 1.0;  // docs/math.md: within 1 ulp over the finite range

const char* fn_name(fn which) {
  switch (which) {
    case fn::log:
      return "log";
    case fn::tanh:
      return "tanh";
    case fn::erf:
      return "erf";
    case fn::sin:
      return "sin";
    case fn::cos:
      return "cos";
    default:
      return "?";
  }
}

template <class T>
T call(fn which, T x) {
  switch (which) {
    case fn::log:
      return cxmat::log(x);
    case fn::tanh:
      return cxmat::tanh(x);
    case fn::erf:
      return cxmat::erf(x);
    case fn::sin:
      return cxmat::sin(x);
    default:
      return cxmat::cos(x);
  }
}

// The C library's long double result, used only to skip MPFR where it cannot change the verdict.
long double libm_long(fn which, long double x) {
  switch (which) {
    case fn::log:
      return std::log(x);
    case fn::tanh:
      return std::tanh(x);
    case fn::erf:
      return std::erf(x);
    case fn::sin:
      return std::sin(x);
    default:
      return std::cos(x);
  }
}

// Every non-negative float (every `stride`-th one), and its negative through the function's
// symmetry: is cxmat's float result the correctly rounded one? The verdict comes from the C
// library's x87 long double result where that is more than 2^-50 (relative) away from both
// float rounding boundaries around it -- glibc's long double functions are within a few units of
// 2^-64 (relative), 2^14 times closer -- and from MPFR otherwise. The negative inputs are checked
// against the symmetry (odd, or even for cos) bit for bit, not against a reference.
void float_all(fn which, std::uint64_t stride) {
  checker c(fmt_float, 64);
  char name[64];
  std::snprintf(name, sizeof name, "%s float (all)", fn_name(which));
  stats s{name};
  std::uint64_t by_mpfr = 0, asymmetric = 0;
  const std::uint64_t first = which == fn::log ? 1 : 0;
  for (std::uint64_t b = first; b < 0x7f800000u; b += stride) {
    const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    const float y = call(which, x);
    if (which != fn::log) {
      const float yn = call(which, -x);
      const float want = which == fn::cos ? y : -y;
      if (std::bit_cast<std::uint32_t>(yn) != std::bit_cast<std::uint32_t>(want)) ++asymmetric;
    }
    const long double ref = libm_long(which, static_cast<long double>(x));
    const float cr = static_cast<float>(ref);  // rounds once from 64 bits
    // The float rounding boundaries next to ref: half-way to the float neighbours of cr.
    const long double up = std::nextafter(cr, std::numeric_limits<float>::infinity());
    const long double down = std::nextafter(cr, -std::numeric_limits<float>::infinity());
    const long double mid_hi = (static_cast<long double>(cr) + up) / 2,
                      mid_lo = (static_cast<long double>(cr) + down) / 2;
    const long double margin = std::fabs(ref) * 0x1p-50L;
    if (std::fabs(ref - mid_hi) > margin && std::fabs(ref - mid_lo) > margin && std::isfinite(up) &&
        std::isfinite(down) && cr != 0) {
      ++s.count;
      if (std::bit_cast<std::uint32_t>(y) != std::bit_cast<std::uint32_t>(cr)) {
        ++s.not_cr;
        if (s.not_cr <= 5)
          std::printf("  %s(%a) = %a, correctly rounded %a\n", fn_name(which), static_cast<double>(x),
                      static_cast<double>(y), static_cast<double>(cr));
      }
    } else {
      ++by_mpfr;
      // The full sweep lists these inputs (the hardest ones; the sampled run checks them).
      if (stride == 1) std::printf("  decided by MPFR: %s(%a)\n", fn_name(which), static_cast<double>(x));
      const std::uint64_t before = s.not_cr;
      c.check(which, x, y, s);
      if (s.not_cr != before && s.not_cr <= 5) {
        std::printf("  %s(%a) = %a is not correctly rounded (MPFR)\n", fn_name(which), static_cast<double>(x),
                    static_cast<double>(y));
      }
    }
  }
  // No ulp figure: most verdicts come from the filter, which decides rounding, not distance.
  std::printf("%-34s n=%-12" PRIu64 " not_correctly_rounded=%" PRIu64 " (%" PRIu64
              " decided by MPFR), negative inputs breaking the symmetry: %" PRIu64 "\n",
              name, s.count, s.not_cr, by_mpfr, asymmetric);
  char what[96];
  std::snprintf(what, sizeof what, "%s(float) correctly rounded and %s", fn_name(which),
                which == fn::cos ? "even" : "odd");
  require(s.not_cr == 0 && asymmetric == 0, what);
}

// The float results that lie near a float rounding boundary, where log, tanh, erf, sin and cos
// of float leave their double fast path (whose results within 2^12 double ulps of a boundary are
// recomputed by the double-double kernel; see CXMAT_DETAIL_ROUNDS_AS_FLOAT), checked against
// MPFR with their negatives: the hardest inputs of the full sweep (test_support/
// math_hard_floats.hpp), and in a block of 2^20 consecutive floats every input whose exact
// result is within 2^-41 (relative) of a boundary -- by the C library's x87 long double result,
// 2^20 times more accurate than that -- which takes the fallback for certain (the fast path errs
// by less than 2^-48). The sampled sweep meets too few of them (about one result in 2^16).
template <std::size_t N>
void check_list(checker& c, fn which, const float (&xs)[N], stats& s) {
  for (float x : xs) {
    c.check(which, x, call(which, x), s);
    if (which != fn::log) c.check(which, -x, call(which, -x), s);
  }
}
void float_near_boundaries(fn which) {
  checker c(fmt_float, 64);
  char name[64];
  std::snprintf(name, sizeof name, "%s float near boundaries", fn_name(which));
  stats s{name};
  switch (which) {
    case fn::log:
      check_list(c, which, cxmat_test::hard_log_floats, s);
      break;
    case fn::tanh:
      check_list(c, which, cxmat_test::hard_tanh_floats, s);
      break;
    case fn::erf:
      check_list(c, which, cxmat_test::hard_erf_floats, s);
      break;
    case fn::sin:
      check_list(c, which, cxmat_test::hard_sin_floats, s);
      break;
    default:
      check_list(c, which, cxmat_test::hard_cos_floats, s);
      break;
  }
  const float start = which == fn::log ? 1.5f : (which == fn::tanh || which == fn::erf) ? 0.75f : 100.0f;
  const std::uint32_t first = std::bit_cast<std::uint32_t>(start);
  for (std::uint32_t b = first; b < first + (1u << 20); ++b) {
    const auto x = std::bit_cast<float>(b);
    const long double ref = libm_long(which, static_cast<long double>(x));
    const float cr = static_cast<float>(ref);
    const long double up = std::nextafter(cr, std::numeric_limits<float>::infinity());
    const long double down = std::nextafter(cr, -std::numeric_limits<float>::infinity());
    const long double mid_hi = (static_cast<long double>(cr) + up) / 2,
                      mid_lo = (static_cast<long double>(cr) + down) / 2;
    const long double window = std::fabs(ref) * 0x1p-41L;
    if (std::fabs(ref - mid_hi) > window && std::fabs(ref - mid_lo) > window) continue;
    c.check(which, x, call(which, x), s);
    if (which != fn::log) c.check(which, -x, call(which, -x), s);
  }
  std::printf("%-34s n=%-12" PRIu64 " not_correctly_rounded=%" PRIu64 "\n", name, s.count, s.not_cr);
  char what[96];
  std::snprintf(what, sizeof what, "%s(float) correctly rounded near rounding boundaries (at least 8 inputs)",
                fn_name(which));
  require(s.not_cr == 0 && s.count >= 8, what);
}

// The float result of the double-double kernel alone, rounded once (what the float overloads
// returned before their fast paths), for the arguments that reach the kernel.
float kernel_alone(fn which, float x) {
  const double d = x, a = d < 0 ? -d : d;
  switch (which) {
    case fn::log:
      return cxmat::detail::round_to_float(cxmat::detail::log_positive(d));
    case fn::tanh: {
      const float r = cxmat::detail::round_to_float(cxmat::detail::tanh_positive(a));
      return x < 0 ? -r : r;
    }
    case fn::erf: {
      const float r = cxmat::detail::round_to_float(cxmat::detail::erf_positive(a));
      return x < 0 ? -r : r;
    }
    case fn::sin:
      return cxmat::detail::round_to_float(cxmat::detail::sin_cos_finite(d, false));
    default:
      return cxmat::detail::round_to_float(cxmat::detail::sin_cos_finite(d, true));
  }
}

// Every float (every `stride`-th one, both signs) whose log, tanh, erf, sin or cos reaches the
// double-double kernel: the public function, with its fast path and rounding test, must give the
// kernel's bits exactly.
void float_vs_kernel(fn which, std::uint64_t stride) {
  std::uint32_t lo = 0x32000000u, hi = 0x7f800000u;  // sin, cos: 2^-27 <= |x| < inf
  if (which == fn::log) lo = 1;
  if (which == fn::tanh) hi = 0x41a00000u;  // 2^-27 <= |x| < 20
  if (which == fn::erf) {
    lo = 1;  // 0 < |x| < 6.5
    hi = 0x40d00000u;
  }
  std::uint64_t n = 0, differ = 0;
  for (std::uint64_t b = lo; b < hi; b += stride) {
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      if (which == fn::log && sign != 0) continue;
      const auto x = std::bit_cast<float>(static_cast<std::uint32_t>(b) | sign);
      const float y = call(which, x), k = kernel_alone(which, x);
      ++n;
      if (std::bit_cast<std::uint32_t>(y) != std::bit_cast<std::uint32_t>(k) && ++differ <= 5) {
        std::printf("  %s(%a) = %a, kernel alone %a\n", fn_name(which), static_cast<double>(x), static_cast<double>(y),
                    static_cast<double>(k));
      }
    }
  }
  char name[64];
  std::snprintf(name, sizeof name, "%s float vs kernel", fn_name(which));
  std::printf("%-34s n=%-12" PRIu64 " different from the kernel alone=%" PRIu64 "\n", name, n, differ);
  char what[96];
  std::snprintf(what, sizeof what, "%s(float) gives the bits of its double-double kernel", fn_name(which));
  require(differ == 0, what);
}

// Random doubles against MPFR: `n` inputs from each generator of `gens` (name, function of the
// random engine), all within `bound` ulps.
template <class Gen>
void double_part(fn which, const char* part, std::uint64_t n, Gen gen, checker& c, double& worst) {
  char name[96];
  std::snprintf(name, sizeof name, "%s double %s", fn_name(which), part);
  stats s{name};
  for (std::uint64_t i = 0; i < n; ++i) {
    const double x = gen(i);
    c.check(which, x, call(which, x), s);
  }
  s.print();
  worst = std::max(worst, s.max_ulp);
}

double random_bits_below(std::mt19937_64& rng, double limit) {
  for (;;) {
    const double x = std::bit_cast<double>(rng());
    if (std::fabs(x) < limit) return x;
  }
}

void elementary_double(fn which, std::uint64_t n, std::uint64_t seed) {
  checker c(fmt_double, 128);
  std::mt19937_64 rng(seed);
  double worst = 0;
  const auto uniform = [&](double lo, double hi) {
    return [&rng, lo, hi](std::uint64_t) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  };
  const double max = std::numeric_limits<double>::max();
  switch (which) {
    case fn::log:
      double_part(
          which, "random bit patterns (positive)", n,
          [&](std::uint64_t) { return std::fabs(random_bits_below(rng, max * 1.0000001)); }, c, worst);
      double_part(which, "uniform in [0.5, 2]", n, uniform(0.5, 2.0), c, worst);
      double_part(
          which, "1 + tiny", n / 4,
          [&](std::uint64_t i) {
            return 1.0 + (i % 2 ? 1.0 : -0.5) * std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52,
                                                           -static_cast<int>(1 + i % 52));
          },
          c, worst);
      break;
    case fn::tanh:
      double_part(
          which, "random bit patterns |x| < 20", n, [&](std::uint64_t) { return random_bits_below(rng, 20.0); }, c,
          worst);
      double_part(which, "uniform in [-20, 20]", n, uniform(-20.0, 20.0), c, worst);
      double_part(which, "uniform in [-1, 1]", n, uniform(-1.0, 1.0), c, worst);
      break;
    case fn::erf:
      double_part(
          which, "random bit patterns |x| < 6.5", n, [&](std::uint64_t) { return random_bits_below(rng, 6.5); }, c,
          worst);
      double_part(which, "uniform in [-6.5, 6.5]", n, uniform(-6.5, 6.5), c, worst);
      double_part(
          which, "near the cell edges k/8", n / 4,
          [&](std::uint64_t i) {
            double x = static_cast<double>(1 + i % 52) / 8;
            for (std::uint64_t j = 0; j < (i / 52) % 8; ++j) x = i % 2 ? next_up(x) : next_down(x);
            return x;
          },
          c, worst);
      break;
    default: {
      double_part(
          which, "random bit patterns (finite)", n,
          [&](std::uint64_t) { return random_bits_below(rng, max * 1.0000001); }, c, worst);
      double_part(which, "uniform in [-10, 10]", n, uniform(-10.0, 10.0), c, worst);
      double_part(which, "uniform in [-2^20, 2^20]", n, uniform(-0x1p20, 0x1p20), c, worst);
      // The doubles closest to multiples of pi/2 (both reductions), and Kahan-McDonald's double
      // closest to a multiple of pi/2 (6381956970095103 * 2^797).
      double_part(
          which, "near k pi/2", n / 4,
          [&](std::uint64_t i) {
            const double k = i % 3 == 0 ? static_cast<double>(rng() % (1u << 20))
                                        : std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52,
                                                     static_cast<int>(rng() % 1000));
            double x = k * 0x1.921fb54442d18p+0;
            for (std::uint64_t j = 0; j < i % 4; ++j) x = next_up(x);
            return i == 0 ? 6381956970095103.0 * 0x1p797 : x;
          },
          c, worst);
      break;
    }
  }
  char what[64];
  std::snprintf(what, sizeof what, "%s(double) within 1 ulp", fn_name(which));
  require(worst <= elementary_double_bound, what);
}

// x87 long double: random arguments, the error in ulps of the 64-bit format (reported, and
// bounded by the figure in docs/math.md).
constexpr double elementary_long_bound = 32.0;  // docs/math.md: x87 within 32 ulps
void elementary_long(fn which, std::uint64_t n, std::uint64_t seed) {
  if (std::numeric_limits<long double>::digits != 64) return;
  checker c(fmt_long, 160);
  char name[96];
  std::snprintf(name, sizeof name, "%s long double random", fn_name(which));
  stats s{name};
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < n; ++i) {
    const long double m = 1.0L + static_cast<long double>(rng() >> 1) * 0x1p-63L;
    int e = 0;
    switch (which) {
      case fn::log:
        e = static_cast<int>(rng() % 32000) - 16000;
        break;
      case fn::sin:
      case fn::cos:
        e = static_cast<int>(rng() % (i % 2 ? 16000 : 24)) - 4;
        break;
      default:
        e = static_cast<int>(rng() % 40) - 37;
        break;
    }
    long double x = std::ldexp(m, e);
    if (which != fn::log && rng() % 2) x = -x;
    c.check(which, x, call(which, x), s);
  }
  s.print();
  char what[64];
  std::snprintf(what, sizeof what, "%s(long double) within the documented bound", fn_name(which));
  require(s.max_ulp <= elementary_long_bound, what);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "--sample";
  const std::string part = mode == "--part" && argc > 2 ? argv[2] : "";
  if (mode != "--sample" && mode != "--full" && mode != "--part") {
    std::printf(
        "usage: math_accuracy --sample | --full | --part NAME [--count N] [--seed S]\n"
        "parts: exp-float exp-double exp-hard exp-special exp-long sqrt-float sqrt-double "
        "sqrt-long, and F-float F-float-boundaries F-float-kernel F-double F-long for F in log tanh erf sin\n"
        "cos\n"
        "(--count is the number of random inputs, or the stride for the float sweeps)\n");
    return mode == "--help" ? 0 : 2;
  }
  std::uint64_t count = 0, seed = 20240611;
  for (int i = mode == "--part" ? 3 : 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--count") count = std::strtoull(argv[i + 1], nullptr, 10);
    if (k == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  const bool full = mode != "--sample";  // a single --part runs at full size
  auto want = [&](const std::string& p) { return mode != "--part" || part == p; };
  auto pick = [&](std::uint64_t sample, std::uint64_t full_n) { return count ? count : (full ? full_n : sample); };
  const auto t0 = std::chrono::steady_clock::now();
  std::printf("cxmat math accuracy (%s), reference MPFR %s, seed %" PRIu64 "\n", mode.c_str(), mpfr_get_version(),
              seed);
  if (want("exp-special")) exp_special_values();
  if (want("exp-float")) exp_float_all(count ? count : (full ? 1 : 4099));
  if (want("exp-double")) exp_double_random(pick(400000, 100000000), seed);
  if (want("exp-hard")) exp_double_hard(full ? 16 : 1, seed + 1);
  if (want("exp-long")) exp_long(pick(100000, 10000000), seed + 2);
  if (want("sqrt-float")) sqrt_float_all(count ? count : (full ? 1 : 1021));
  if (want("sqrt-double")) sqrt_double_random(pick(400000, 100000000), seed + 3);
  if (want("sqrt-long")) sqrt_long(pick(100000, 10000000), seed + 4);
  for (fn which : {fn::log, fn::tanh, fn::erf, fn::sin, fn::cos}) {
    const std::string base = fn_name(which);
    if (want((base + "-float").c_str())) float_all(which, count ? count : (full ? 1 : 65537));
    if (want((base + "-float-boundaries").c_str())) float_near_boundaries(which);
    if (want((base + "-float-kernel").c_str())) float_vs_kernel(which, count ? count : (full ? 1 : 65537));
    if (want((base + "-double").c_str())) elementary_double(which, pick(20000, 10000000), seed + 5);
    if (want((base + "-long").c_str())) elementary_long(which, pick(5000, 1000000), seed + 6);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s in %.1f s\n", failed ? "FAILED" : "all bounds hold", secs);
  mpfr_free_cache();
  return failed ? 1 : 0;
}
