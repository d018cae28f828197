// Shared by the kernel tests: inputs generated the same way at compile time and at run time, a
// copy the optimiser cannot see through, plain-loop references in long double, and ulp
// measures. Nothing here uses cxmat's kernels.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <cxmat/core/matrix.hpp>

#include "test_support/runtime_value.hpp"

namespace kernel_test {

/// Whether the run-time kernels may fuse a multiply and an add (one rounding instead of two):
/// then they can differ from the constant path in the last bits; otherwise they must not.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__FMA__) && !defined(__FMA4__)
inline constexpr bool may_fuse = false;
#else
inline constexpr bool may_fuse = true;
#endif

/// splitmix64: a reproducible stream usable in constant expressions.
constexpr std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A matrix of type M with elements in [-scale, scale), the same at compile time and at run
/// time: each is a 24-bit integer times 2^-23 times scale, a single exact multiplication (for
/// integer scales), so no fused multiply-add at run time can make it differ.
template <class M>
constexpr M generated(std::uint64_t seed, double scale = 1.0) {
  using T = typename M::value_type;
  M m{};
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const auto bits = static_cast<std::int64_t>(next(state) >> 40) - (std::int64_t{1} << 23);
      m(i, j) = static_cast<T>(scale * (static_cast<double>(bits) * 0x1p-23));
    }
  }
  return m;
}

/// A copy of m the optimiser cannot see through (test_support/runtime_value.hpp), so that the
/// run-time path is what runs.
using cxmat_test::at_run_time;

template <class T>
inline constexpr long double eps = std::numeric_limits<T>::epsilon();

/// The spacing of T at |x| (at least the smallest subnormal).
template <class T>
long double ulp_of(long double x) {
  using limits = std::numeric_limits<T>;
  const long double ax = std::fabs(x);
  if (ax < static_cast<long double>(limits::min())) return static_cast<long double>(limits::denorm_min());
  int e = 0;
  std::frexp(ax, &e);
  return std::ldexp(1.0L, e - limits::digits);
}

/// A row of weights by the textbook formula in long double: exp(x - max) / sum, with the rules
/// for non-finite entries spelled out.
inline void reference_softmax(const long double* x, long double* w, std::size_t n) {
  const long double inf = std::numeric_limits<long double>::infinity();
  long double max = -inf;
  std::size_t nan = 0;
  std::size_t pos_inf = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (std::isnan(x[j])) ++nan;
    if (x[j] == inf) ++pos_inf;
    if (x[j] > max) max = x[j];
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (nan != 0) {
      w[j] = std::numeric_limits<long double>::quiet_NaN();
    } else if (pos_inf != 0) {
      w[j] = x[j] == inf ? 1.0L / static_cast<long double>(pos_inf) : 0.0L;
    } else if (max == -inf) {
      w[j] = 0.0L;
    } else {
      w[j] = std::exp(x[j] - max);
    }
  }
  if (nan == 0 && pos_inf == 0 && max != -inf) {
    long double sum = 0.0L;
    for (std::size_t j = 0; j < n; ++j) sum += w[j];
    for (std::size_t j = 0; j < n; ++j) w[j] /= sum;
  }
}

/// The bound on a weight computed by either softmax path against the exact weight of the same
/// (rounded) scores: (n + 4 + |x_j - max| / 2) ε relative, plus two subnormal spacings for
/// results in the subnormal range. Each exponential is within ~1 ulp of exp of the rounded
/// difference x_j - max, whose own rounding adds |x_j - max| ε / 2; the sum of n such terms
/// adds at most about n ε; the division one more rounding.
template <class T>
bool close_to_exact(T got, long double exact, std::size_t n, long double distance_from_max) {
  if (std::isnan(exact)) return std::isnan(got);
  if (std::isinf(distance_from_max)) return got == T(0);  // masked: exactly 0
  const long double err = std::fabs(static_cast<long double>(got) - exact);
  const long double rel = static_cast<long double>(n + 4) + std::fabs(distance_from_max) / 2;
  return err <= rel * eps<T> * std::fabs(exact) + 2 * static_cast<long double>(std::numeric_limits<T>::denorm_min());
}

/// The stated agreement between the run-time and the constant-evaluation softmax: (n + 4) ε
/// relative plus two subnormal spacings. Both round x_j - max the same way; they differ in the
/// exponential (~1 ulp vs correctly rounded), the order of the sum (< n ε) and so the division.
template <class T>
bool paths_agree(T a, T b, std::size_t n) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  const long double err = std::fabs(static_cast<long double>(a) - static_cast<long double>(b));
  const long double scale = std::fmax(std::fabs(static_cast<long double>(a)), std::fabs(static_cast<long double>(b)));
  return err <= static_cast<long double>(n + 4) * eps<T> * scale +
                    2 * static_cast<long double>(std::numeric_limits<T>::denorm_min());
}

}  // namespace kernel_test
