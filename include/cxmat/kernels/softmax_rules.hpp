// Softmax's special-value rules (NaN, +inf, a fully masked row) and its cutoff, written once:
// the plain form (softmax.hpp) and the run-time form (runtime_softmax.hpp) both call these.
#pragma once

#include <cstddef>
#include <limits>

namespace cxmat::detail {

// exp(d) is 0 in T for every d below this bound (it lies under half the smallest subnormal), so
// entries that far below the row maximum get weight 0 without calling exp, and x - max is never
// formed when it could overflow.
template <class T>
constexpr T exp_zero_bound() noexcept {
  constexpr int bits_below_one = -(std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits);
  return -T(bits_below_one + 2) * T(0.693147180559945309417232121458176568L);
}

// softmax_row's rules for a row whose maximum (of its non-NaN entries, -inf if none) is not
// finite, written once for both paths; says whether it applied one:
//   any NaN           -> every weight is NaN;
//   some +inf         -> the +inf entries share the weight equally, the rest get 0 (the limit);
//   all -inf (masked) -> every weight is 0: a fully masked row attends to nothing.
// With a finite maximum a NaN entry needs no test here: its exponential, hence the sum, is NaN,
// and softmax_nan_sum applies the NaN rule then.
// `has_nan`: the caller already knows the row holds a NaN (the plain form must: in a constant
// expression an operation that produces NaN is not constant, so it cannot wait for the sum).
template <class T>
constexpr bool softmax_special(T* row, std::size_t n, T max, bool has_nan = false) noexcept {
  using limits = std::numeric_limits<T>;
  constexpr T inf = limits::infinity();
  if (!has_nan && max != inf && max != -inf) return false;
  std::size_t n_nan = 0;
  std::size_t n_pos_inf = 0;
  for (std::size_t j = 0; j < n; ++j) n_nan += (row[j] != row[j]) ? 1U : 0U, n_pos_inf += (row[j] == inf) ? 1U : 0U;
  if (n_nan != 0) {
    for (std::size_t j = 0; j < n; ++j) row[j] = limits::quiet_NaN();
  } else if (n_pos_inf != 0) {
    const T share = T(1) / static_cast<T>(n_pos_inf);
    for (std::size_t j = 0; j < n; ++j) row[j] = (row[j] == inf) ? share : T(0);
  } else {
    for (std::size_t j = 0; j < n; ++j) row[j] = T(0);  // every entry -inf: fully masked
  }
  return true;
}

// The NaN rule once the sum of the exponentials is known: a NaN sum (a NaN entry in a row with
// a finite maximum) makes every weight the quiet NaN; says whether it did.
template <class T>
constexpr bool softmax_nan_sum(T* row, std::size_t n, T sum) noexcept {
  if (sum == sum) return false;
  for (std::size_t j = 0; j < n; ++j) row[j] = std::numeric_limits<T>::quiet_NaN();
  return true;
}

}  // namespace cxmat::detail
