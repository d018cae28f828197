// The softmax of one row, the kernel behind softmax_rows and every attention function: the
// special-value rules and the stable formula, at compile time and at run time.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/kernels/runtime_softmax.hpp>
#include <cxmat/math.hpp>

namespace cxmat::detail {


// exp(d) is 0 in T for every d below this bound (it lies under half the smallest subnormal), so
// entries that far below the row maximum get weight 0 without calling exp, and x - max is never
// formed when it could overflow.
template <class T>
constexpr T exp_zero_bound() noexcept {
  constexpr int bits_below_one = -(std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits);
  return -T(bits_below_one + 2) * T(0.693147180559945309417232121458176568L);
}

// Softmax of one row in place. The rules, in order (see docs/numerics.md):
//   any NaN           -> every weight is NaN;
//   some +inf         -> the +inf entries share the weight equally, the rest get 0 (the limit);
//   all -inf (masked) -> every weight is 0: a fully masked row attends to nothing;
//   otherwise         -> exp(x - max) / sum, where the max entry contributes exp(0) = 1, so the
//                        sum is >= 1 and nothing overflows, however large the scores.
// At run time float and double take softmax_row_runtime (detail/runtime_softmax.hpp): the same
// rules on packets, with an exp of their own, within (n + 4) ε (relative) of this path's weights.
// `len` is the row's length: a std::size_t, or fixed_length<N> (faster at run time).
template <class T, class Len>
constexpr void softmax_row(T* row, Len len) noexcept {
  using limits = std::numeric_limits<T>;
  if constexpr (has_runtime_softmax<T>) {
    if (!std::is_constant_evaluated()) {
      softmax_row_runtime(row, len, exp_zero_bound<T>());
      return;
    }
  }
  const std::size_t n = len;
  if constexpr (limits::is_iec559) {
    constexpr T inf = limits::infinity();
    T max = -inf;
    std::size_t n_nan = 0;
    std::size_t n_pos_inf = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const T x = row[j];
      n_nan += (x != x) ? 1U : 0U;
      n_pos_inf += (x == inf) ? 1U : 0U;
      max = (x > max) ? x : max;
    }
    if (n_nan != 0) {
      for (std::size_t j = 0; j < n; ++j) row[j] = limits::quiet_NaN();
      return;
    }
    if (n_pos_inf != 0) {
      const T share = T(1) / static_cast<T>(n_pos_inf);
      for (std::size_t j = 0; j < n; ++j) row[j] = (row[j] == inf) ? share : T(0);
      return;
    }
    if (max == -inf) {
      for (std::size_t j = 0; j < n; ++j) row[j] = T(0);
      return;
    }
    const T cutoff = max + exp_zero_bound<T>();
    T sum = T(0);
    for (std::size_t j = 0; j < n; ++j) {
      using cxmat::exp;
      const T x = row[j];
      const T e = (x < cutoff) ? T(0) : exp(x - max);
      row[j] = e;
      sum += e;
    }
    for (std::size_t j = 0; j < n; ++j) row[j] = row[j] / sum;
  } else {
    // A user-defined scalar (fixed point, ...): the stable formula, with `exp` found by
    // argument-dependent lookup in the scalar's namespace. The type has no NaN or infinity.
    T max = row[0];
    for (std::size_t j = 1; j < n; ++j) max = (row[j] > max) ? row[j] : max;
    T sum = T(0);
    for (std::size_t j = 0; j < n; ++j) {
      using cxmat::exp;
      row[j] = exp(row[j] - max);
      sum += row[j];
    }
    for (std::size_t j = 0; j < n; ++j) row[j] = row[j] / sum;
  }
}

}  // namespace cxmat::detail
