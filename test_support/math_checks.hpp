// Checks of cxmat's math functions written as constexpr bool functions, so the same property
// is asserted at compile time (static_tests/math) and at run time (runtime_tests/math).
// Expected values come from MPFR (reference_values.hpp) or are exact by definition.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "cxmat/math.hpp"
#include "test_support/reference_values.hpp"

namespace cxmat_test {

// The checks take their inputs through `L launder`: identity in constant expressions, and an
// opaque copy in the run-time tests so that the optimizer cannot fold the calls away.
// `normal_only` skips references whose result is subnormal (for -ffast-math builds, whose
// start-up code makes the FPU flush subnormal results to zero).
struct plain {
  template <class T>
  constexpr T operator()(T x) const {
    return x;
  }
};

template <class T>
constexpr bool is_nan(T x) {
  return !(x == x);
}

// Bitwise equality (so +0 and -0 differ); long double compares value and sign (the sign of a
// zero through an exact conversion to double), since its padding bits cannot be bit_cast in a
// constant expression.
template <class T>
constexpr bool same_bits(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  } else {
    const auto sign = [](T v) { return std::bit_cast<std::uint64_t>(static_cast<double>(v)) >> 63; };
    return (is_nan(a) && is_nan(b)) || (a == b && sign(a) == sign(b));
  }
}

template <class T>
constexpr bool is_plus_zero(T x) {
  return same_bits(x, T{0});
}

// Spacing of T at v > 0 (the subnormal spacing below the normal range), by exact scaling.
template <class T>
constexpr T ulp_of(T v) {
  using lim = std::numeric_limits<T>;
  if (v < lim::min()) return lim::denorm_min();
  T p = 1;
  while (p * 0x1p64L <= v) p *= static_cast<T>(0x1p64L);
  while (p > v) p /= 2;
  while (p * 2 <= v) p *= 2;
  return p * lim::epsilon();
}

// y is cr, or the neighbour of cr towards the exact value with an error within `bound` ulps.
// `err` is (cr - exact) in ulps, from MPFR.
template <class T>
constexpr bool within(T y, T cr, double err, double bound) {
  if (same_bits(y, cr)) return err <= bound && -err <= bound;
  const T step = err > 0 ? -ulp_of(cr) : ulp_of(cr);  // exact is on the other side of cr
  const double e = err > 0 ? err : -err;
  return y == cr + step && 1 - e <= bound;
}

constexpr double exp_double_bound = 0.52;
constexpr double exp_long_bound = 0.52;

template <class L = plain>
constexpr bool exp_double_references(L launder = {}, bool normal_only = false) {
  for (const auto& r : exp_double_refs) {
    if (normal_only && r.cr < std::numeric_limits<double>::min()) continue;
    if (!within(cxmat::exp(launder(r.x)), r.cr, r.err, exp_double_bound)) return false;
  }
  return true;
}
template <class L = plain>
constexpr bool exp_float_references(L launder = {}, bool normal_only = false) {  // correctly rounded
  for (const auto& r : exp_float_refs) {
    if (normal_only && r.cr < std::numeric_limits<float>::min()) continue;
    if (!same_bits(cxmat::exp(launder(r.x)), r.cr)) return false;
  }
  return true;
}
template <class L = plain>
constexpr bool sqrt_double_references(L launder = {}, bool normal_only = false) {
  for (const auto& r : sqrt_double_refs) {
    if (normal_only && r.x < std::numeric_limits<double>::min()) continue;
    if (!same_bits(cxmat::sqrt(launder(r.x)), r.cr)) return false;
  }
  return true;
}
template <class L = plain>
constexpr bool sqrt_float_references(L launder = {}, bool normal_only = false) {
  for (const auto& r : sqrt_float_refs) {
    if (normal_only && r.x < std::numeric_limits<float>::min()) continue;
    if (!same_bits(cxmat::sqrt(launder(r.x)), r.cr)) return false;
  }
  return true;
}
// The long double references are for the x87 80-bit format only.
constexpr bool long_double_is_x87 = std::numeric_limits<long double>::digits == 64;
template <class L = plain>
constexpr bool exp_long_references(L launder = {}, bool normal_only = false) {
  if constexpr (long_double_is_x87) {
    for (const auto& r : exp_long_refs) {
      if (normal_only && r.cr < std::numeric_limits<long double>::min()) continue;
      if (!within(cxmat::exp(launder(r.x)), r.cr, r.err, exp_long_bound)) return false;
    }
  }
  return true;
}
template <class L = plain>
constexpr bool sqrt_long_references(L launder = {}, bool normal_only = false) {
  if constexpr (long_double_is_x87) {
    for (const auto& r : sqrt_long_refs) {
      if (normal_only && r.x < std::numeric_limits<long double>::min()) continue;
      if (!same_bits(cxmat::sqrt(launder(r.x)), r.cr)) return false;
    }
  }
  return true;
}

// Special values of exp, for T in {float, double, long double}.
template <class T, class L = plain>
constexpr bool exp_special_values(L launder = {}) {
  using lim = std::numeric_limits<T>;
  const auto exp = [&](T x) { return cxmat::exp(launder(x)); };
  const T inf = lim::infinity();
  return same_bits(exp(T{0}), T{1}) && same_bits(exp(-T{0}), T{1}) && same_bits(exp(inf), inf) &&
         is_plus_zero(exp(-inf)) && is_nan(exp(lim::quiet_NaN())) && is_nan(exp(-lim::quiet_NaN())) &&
         same_bits(exp(lim::max()), inf) && is_plus_zero(exp(-lim::max())) && is_plus_zero(exp(T{-20000})) &&
         same_bits(exp(T{20000}), inf) && same_bits(exp(lim::denorm_min()), T{1}) &&
         same_bits(exp(-lim::denorm_min()), T{1});
}

// The thresholds: the largest argument with a finite result and the smallest with a non-zero
// one (from MPFR, see exp_table.hpp), and their neighbours outside.
template <class L = plain>
constexpr bool exp_thresholds(L launder = {}) {
  using cxmat::detail::exp_overflow_d, cxmat::detail::exp_underflow_d;
  using cxmat::detail::exp_overflow_f, cxmat::detail::exp_underflow_f;
  const double dinf = std::numeric_limits<double>::infinity();
  const float finf = std::numeric_limits<float>::infinity();
  const auto up = [](double v) { return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) + 1); };
  const auto upf = [](float v) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) + 1); };
  return cxmat::exp(launder(exp_overflow_d)) <= std::numeric_limits<double>::max() &&
         cxmat::exp(launder(exp_overflow_d)) > 0x1.fffffffffff00p+1023 &&
         same_bits(cxmat::exp(launder(up(exp_overflow_d))), dinf) &&
         same_bits(cxmat::exp(launder(exp_underflow_d)), 0x1p-1074) &&
         is_plus_zero(cxmat::exp(launder(up(exp_underflow_d)))) &&  // up() of a negative moves away from 0
         cxmat::exp(launder(exp_overflow_f)) <= std::numeric_limits<float>::max() &&
         same_bits(cxmat::exp(launder(upf(exp_overflow_f))), finf) &&
         same_bits(cxmat::exp(launder(exp_underflow_f)), 0x1p-149f) &&
         is_plus_zero(cxmat::exp(launder(upf(exp_underflow_f))));
}

template <class T, class L = plain>
constexpr bool sqrt_special_values(L launder = {}) {
  using lim = std::numeric_limits<T>;
  const auto sqrt = [&](T x) { return cxmat::sqrt(launder(x)); };
  return same_bits(sqrt(T{0}), T{0}) && same_bits(sqrt(-T{0}), -T{0}) &&
         same_bits(sqrt(lim::infinity()), lim::infinity()) && is_nan(sqrt(lim::quiet_NaN())) &&
         same_bits(sqrt(T{4}), T{2}) && same_bits(sqrt(T{1}), T{1}) &&
         same_bits(sqrt(static_cast<T>(0x1p-148L)), static_cast<T>(0x1p-74L));
}

// log, tanh, erf, sin and cos against MPFR (reference_values.hpp): double within 1 ulp (the
// bound of docs/math.md), float correctly rounded. `F` is a callable object taking the argument.
constexpr double elementary_double_bound = 1.0;
template <class F, std::size_t N, class L>
constexpr bool elementary_double_references(const ref_double (&refs)[N], F f, L launder, bool normal_only) {
  for (const auto& r : refs) {
    if (normal_only && (r.cr < 0 ? -r.cr : r.cr) < std::numeric_limits<double>::min()) continue;
    if (!within(f(launder(r.x)), r.cr, r.err, elementary_double_bound)) return false;
  }
  return true;
}
template <class F, std::size_t N, class L>
constexpr bool elementary_float_references(const ref_float (&refs)[N], F f, L launder, bool normal_only) {
  for (const auto& r : refs) {
    if (normal_only && (r.cr < 0 ? -r.cr : r.cr) < std::numeric_limits<float>::min()) continue;
    if (!same_bits(f(launder(r.x)), r.cr)) return false;
  }
  return true;
}
struct call_log {
  template <class T>
  constexpr T operator()(T x) const {
    return cxmat::log(x);
  }
};
struct call_tanh {
  template <class T>
  constexpr T operator()(T x) const {
    return cxmat::tanh(x);
  }
};
struct call_erf {
  template <class T>
  constexpr T operator()(T x) const {
    return cxmat::erf(x);
  }
};
struct call_sin {
  template <class T>
  constexpr T operator()(T x) const {
    return cxmat::sin(x);
  }
};
struct call_cos {
  template <class T>
  constexpr T operator()(T x) const {
    return cxmat::cos(x);
  }
};
template <class L = plain>
constexpr bool elementary_references(L launder = {}, bool normal_only = false) {
  return elementary_double_references(log_double_refs, call_log{}, launder, normal_only) &&
         elementary_float_references(log_float_refs, call_log{}, launder, normal_only) &&
         elementary_double_references(tanh_double_refs, call_tanh{}, launder, normal_only) &&
         elementary_float_references(tanh_float_refs, call_tanh{}, launder, normal_only) &&
         elementary_double_references(erf_double_refs, call_erf{}, launder, normal_only) &&
         elementary_float_references(erf_float_refs, call_erf{}, launder, normal_only) &&
         elementary_double_references(sin_double_refs, call_sin{}, launder, normal_only) &&
         elementary_float_references(sin_float_refs, call_sin{}, launder, normal_only) &&
         elementary_double_references(cos_double_refs, call_cos{}, launder, normal_only) &&
         elementary_float_references(cos_float_refs, call_cos{}, launder, normal_only);
}

// Special values of log, tanh, erf, sin and cos (docs/math.md), for T in {float, double, long
// double}: exact by definition.
template <class T, class L = plain>
constexpr bool log_special_values(L launder = {}) {
  using lim = std::numeric_limits<T>;
  const auto log = [&](T x) { return cxmat::log(launder(x)); };
  return is_plus_zero(log(T{1})) && same_bits(log(T{0}), -lim::infinity()) && same_bits(log(-T{0}), -lim::infinity()) &&
         same_bits(log(lim::infinity()), lim::infinity()) && is_nan(log(lim::quiet_NaN())) &&
         same_bits(log(T{2}) + log(T{2}), log(T{4})) && log(lim::max()) > T{88} && log(lim::denorm_min()) < T{-103};
}
template <class T, class L = plain>
constexpr bool tanh_special_values(L launder = {}) {
  using lim = std::numeric_limits<T>;
  const auto tanh = [&](T x) { return cxmat::tanh(launder(x)); };
  return same_bits(tanh(T{0}), T{0}) && same_bits(tanh(-T{0}), -T{0}) && same_bits(tanh(lim::infinity()), T{1}) &&
         same_bits(tanh(-lim::infinity()), T{-1}) && is_nan(tanh(lim::quiet_NaN())) && same_bits(tanh(T{30}), T{1}) &&
         same_bits(tanh(-lim::max()), T{-1}) && same_bits(tanh(lim::denorm_min()), lim::denorm_min()) &&
         same_bits(tanh(-lim::min()), -lim::min()) && same_bits(tanh(T{-0.5}), -tanh(T{0.5}));
}
template <class T, class L = plain>
constexpr bool erf_special_values(L launder = {}) {
  using lim = std::numeric_limits<T>;
  const auto erf = [&](T x) { return cxmat::erf(launder(x)); };
  return same_bits(erf(T{0}), T{0}) && same_bits(erf(-T{0}), -T{0}) && same_bits(erf(lim::infinity()), T{1}) &&
         same_bits(erf(-lim::infinity()), T{-1}) && is_nan(erf(lim::quiet_NaN())) && same_bits(erf(T{7}), T{1}) &&
         same_bits(erf(-lim::max()), T{-1}) && erf(lim::denorm_min()) >= lim::denorm_min() &&
         same_bits(erf(T{-0.75}), -erf(T{0.75}));
}
template <class T, class L = plain>
constexpr bool sin_cos_special_values(L launder = {}) {
  using lim = std::numeric_limits<T>;
  const auto sin = [&](T x) { return cxmat::sin(launder(x)); };
  const auto cos = [&](T x) { return cxmat::cos(launder(x)); };
  return same_bits(sin(T{0}), T{0}) && same_bits(sin(-T{0}), -T{0}) && same_bits(cos(T{0}), T{1}) &&
         same_bits(cos(-T{0}), T{1}) && is_nan(sin(lim::infinity())) && is_nan(sin(-lim::infinity())) &&
         is_nan(cos(lim::infinity())) && is_nan(cos(-lim::infinity())) && is_nan(sin(lim::quiet_NaN())) &&
         is_nan(cos(lim::quiet_NaN())) && same_bits(sin(lim::denorm_min()), lim::denorm_min()) &&
         same_bits(sin(-lim::min()), -lim::min()) && same_bits(cos(lim::min()), T{1}) &&
         same_bits(sin(T{-3}), -sin(T{3})) && same_bits(cos(T{-3}), cos(T{3})) && sin(lim::max()) <= T{1} &&
         sin(lim::max()) >= T{-1} && cos(lim::max()) <= T{1} && cos(lim::max()) >= T{-1};
}

// Values by mpmath (300 bits, rounded once to nearest), where the argument is exact in both
// formats.
constexpr bool new_function_values() {
  return cxmat::log(10.0) == 0x1.26bb1bbb55516p+1 && cxmat::log(0.5) == -0x1.62e42fefa39efp-1 &&
         cxmat::tanh(0.5) == 0x1.d9353d7568af3p-2 && cxmat::erf(0.5) == 0x1.0a7ef5c18edd2p-1 &&
         cxmat::erf(2.0) == 0x1.fd9ae142795e3p-1 && cxmat::sin(1.0) == 0x1.aed548f090ceep-1 &&
         cxmat::cos(1.0) == 0x1.14a280fb5068cp-1 && cxmat::sin(1e22) == -0x1.b453ab76bf397p-1 &&
         cxmat::cos(1e22) == 0x1.0be2cef01c8f4p-1 && cxmat::sin(1e6) == -0x1.6664b2568d867p-2 &&
         cxmat::log(10.0f) == 0x1.26bb1cp+1f && cxmat::log(0.5f) == -0x1.62e430p-1f &&
         cxmat::tanh(0.5f) == 0x1.d9353ep-2f && cxmat::erf(0.5f) == 0x1.0a7ef6p-1f &&
         cxmat::erf(2.0f) == 0x1.fd9ae2p-1f && cxmat::sin(1.0f) == 0x1.aed548p-1f &&
         cxmat::cos(1.0f) == 0x1.14a280p-1f && cxmat::sin(1e6f) == -0x1.6664b2p-2f;
}

// The hot path of cxmat::exp(double) and the kernel shared with the special path must be the
// same arithmetic (they are written once, as macros; this catches a divergence anyway).
constexpr bool exp_paths_agree() {
  const double xs[] = {-511.9, -300.25, -1.5, -0x1p-50, 0x1p-54, 0.75, 3.0, 88.5, 511.99};
  for (double x : xs) {
    const cxmat::detail::exp_reduced e = cxmat::detail::exp_reduce(x);
    if (!same_bits(cxmat::exp(x), cxmat::detail::exp_combine(std::bit_cast<double>(e.sbits), e.tmp))) {
      return false;
    }
  }
  return true;
}

}  // namespace cxmat_test
