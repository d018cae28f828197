// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The softmax of one row, the kernel behind softmax_rows and every attention function: the
// stable formula in its plain form, and the one switch to the run-time form. The special-value
// rules both forms apply are in softmax_rules.hpp.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/kernels/runtime_softmax.hpp>
#include <cxmat/kernels/softmax_rules.hpp>
#include <cxmat/math.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat::detail {

// The plain form of softmax_row: one expression statement per entry and pass (a constant
// evaluator charges Clang a step per statement), the rules above, then the stable formula
// exp(x - max) / sum, where the max entry contributes exp(0) = 1, so the sum is >= 1 and nothing
// overflows, however large the scores. Entries below max + exp_zero_bound get weight 0 without
// exp, so x - max is never formed when it could overflow.
template <class T>
constexpr void softmax_row_plain(T* row, std::size_t n) noexcept {
  using limits = std::numeric_limits<T>;
  using cxmat::exp;
  if constexpr (limits::is_iec559) {
    T max = -limits::infinity();
    bool has_nan = false;
    for (std::size_t j = 0; j < n; ++j) has_nan = has_nan || row[j] != row[j], max = (row[j] > max) ? row[j] : max;
    T sum = T(0);
    if (has_nan || !softmax_finite_max(max)) {
      sum = softmax_special_weights(row, n);
      if (softmax_sum_special(row, n, sum)) return;
    } else {
      const T cutoff = max + exp_zero_bound<T>();
      for (std::size_t j = 0; j < n; ++j) sum += (row[j] = (row[j] < cutoff) ? T(0) : exp(row[j] - max));
    }
    for (std::size_t j = 0; j < n; ++j) row[j] = row[j] / sum;
  } else {
    // A user-defined scalar (fixed point, ...): the stable formula, with `exp` found by
    // argument-dependent lookup in the scalar's namespace. The type has no NaN or infinity.
    T max = row[0];
    for (std::size_t j = 1; j < n; ++j) max = (row[j] > max) ? row[j] : max;
    T sum = T(0);
    for (std::size_t j = 0; j < n; ++j) sum += (row[j] = exp(row[j] - max));
    for (std::size_t j = 0; j < n; ++j) row[j] = row[j] / sum;
  }
}

// Softmax of one row in place, with the rules above (docs/numerics.md). At run time float and
// double take softmax_row_runtime (runtime_softmax.hpp): the same rules (the same functions) on
// packets, with an exp of their own, within (n + 4) ε (relative) of the plain form's weights.
// `len` is the row's length: a std::size_t, or fixed_length<N> (faster at run time).
template <class T, class Len>
constexpr void softmax_row(T* row, Len len) noexcept {
  by_evaluation<has_runtime_softmax<T>>(
      [&](auto...) {
        if constexpr (has_runtime_softmax<T>) softmax_row_runtime(row, len, exp_zero_bound<T>());
      },
      [&] { softmax_row_plain(row, static_cast<std::size_t>(len)); });
}

// softmax_row on each row of w; at run time short rows share vector registers (the same bits as
// row by row).
template <class T, std::size_t R, std::size_t C>
constexpr void softmax_rows_kernel(T (&w)[R][C]) noexcept {
  by_evaluation<has_runtime_softmax<T>>(
      [&](auto...) {
        if constexpr (has_runtime_softmax<T>) softmax_rows_runtime(w, exp_zero_bound<T>());
      },
      [&] {
        for (std::size_t i = 0; i < R; ++i) softmax_row_plain(w[i], C);
      });
}

}  // namespace cxmat::detail
