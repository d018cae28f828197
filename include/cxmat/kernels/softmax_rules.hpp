// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Softmax's special-value rules (NaN, +inf, a fully masked row) and its cutoff, written once:
// the plain form (softmax.hpp) and the run-time form (runtime_softmax.hpp) both call these.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
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

// Whether a row's maximum (of its non-NaN entries, -inf if none; never NaN) is finite, i.e.
// whether the stable formula applies. For float and double one test of the exponent bits: on a
// Cortex-M4 the two comparisons with +inf and -inf cost the self-attention layer 36 bytes more
// code (GCC 12, -Os).
template <class T>
constexpr bool softmax_finite_max(T max) noexcept {
  // One statement: a constant evaluator charges Clang a step per statement.
  if constexpr (std::numeric_limits<T>::is_iec559 && sizeof(T) == 4 && std::numeric_limits<T>::digits == 24)
    return (std::bit_cast<std::uint32_t>(max) & 0x7f800000U) != 0x7f800000U;
  else if constexpr (std::numeric_limits<T>::is_iec559 && sizeof(T) == 8 && std::numeric_limits<T>::digits == 53)
    return (std::bit_cast<std::uint64_t>(max) & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL;
  else
    return max != std::numeric_limits<T>::infinity() && max != -std::numeric_limits<T>::infinity();
}

// softmax_row's rules for a row that holds a NaN or whose maximum is not finite, written once for
// both paths: the row's weights before normalisation under the rules, in place, and their sum,
// which softmax_sum_special and the division then take as the stable formula's sum of
// exponentials:
//   any NaN           -> sum NaN: every weight is NaN;
//   some +inf         -> 1 for each +inf entry, 0 for the rest, sum their count: divided, the
//                        +inf entries share the weight equally, the rest get 0 (the limit);
//   all -inf (masked) -> 0 everywhere, sum 0: every weight is 0, a fully masked row attends to
//                        nothing.
// With a finite maximum a NaN entry needs no test at run time: its exponential, hence the sum, is
// NaN. The plain form calls this as soon as it has seen a NaN (in a constant expression an
// operation that produces NaN is not constant, so it cannot wait for the sum).
template <class T>
constexpr T softmax_special_weights(T* row, std::size_t n) noexcept {
  using limits = std::numeric_limits<T>;
  bool has_nan = false;
  std::size_t n_pos_inf = 0;
  for (std::size_t j = 0; j < n; ++j) {
    has_nan = has_nan || row[j] != row[j];
    if (row[j] == limits::infinity()) {
      ++n_pos_inf;
      row[j] = T(1);
    } else {
      row[j] = T(0);
    }
  }
  return has_nan ? limits::quiet_NaN() : static_cast<T>(n_pos_inf);
}

// The rules that remain once the sum of the weights before normalisation is known. With a
// finite maximum the sum is positive (the maximum's own weight is exp(0)) or, for a row holding a
// NaN, NaN; softmax_special_weights makes it NaN or 0. A NaN sum makes every weight the quiet NaN,
// a zero sum (a fully masked row) leaves the zero weights. Says whether one of them applied (then
// there is nothing to divide); one comparison when neither does.
template <class T>
constexpr bool softmax_sum_special(T* row, std::size_t n, T sum) noexcept {
  if (sum > T(0)) return false;
  if (sum != sum) {
    for (std::size_t j = 0; j < n; ++j) row[j] = std::numeric_limits<T>::quiet_NaN();
  }
  return true;
}

}  // namespace cxmat::detail
