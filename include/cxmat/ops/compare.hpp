// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Approximate comparison of floating-point results.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// |a - b| <= max(abs_tol, rel_tol * max(|a|, |b|)) for two scalars. NaN equals nothing;
/// infinities equal only the same infinity. Usable in constant expressions.
template <class T>
constexpr bool approx_equal(const T& a, const T& b, const std::type_identity_t<T>& rel_tol,
                            const std::type_identity_t<T>& abs_tol = T(0)) noexcept {
  if (a == b) return true;  // also equal infinities, without computing inf - inf
  if (!(a == a) || !(b == b)) return false;
  const T inf_probe = a - a;  // NaN when a is infinite, 0 otherwise
  if (!(inf_probe == inf_probe)) return false;
  const T inf_probe_b = b - b;
  if (!(inf_probe_b == inf_probe_b)) return false;
  const T diff = a > b ? a - b : b - a;
  const T abs_a = a < T(0) ? -a : a;
  const T abs_b = b < T(0) ? -b : b;
  const T scale = abs_a > abs_b ? abs_a : abs_b;
  const T rel_bound = rel_tol * scale;
  return diff <= (rel_bound > abs_tol ? rel_bound : abs_tol);
}

/// Elementwise approx_equal of two matrices of compatible shapes: true when every pair of
/// elements is within max(abs_tol, rel_tol * max(|a|, |b|)).
template <class T, extent R1, extent C1, extent R2, extent C2>
requires rules_hold<rules_of::compare<R1, C1, R2, C2>>
constexpr bool approx_equal(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b,
                            const std::type_identity_t<T>& rel_tol,
                            const std::type_identity_t<T>& abs_tol = T(0)) noexcept {
  for (std::size_t i = 0; i < R1.size; ++i) {
    for (std::size_t j = 0; j < C1.size; ++j) {
      if (!approx_equal(a.elems[i][j], b.elems[i][j], rel_tol, abs_tol)) return false;
    }
  }
  return true;
}

/// Shape error: approx_equal of matrices of different shapes (or names).
template <class T, extent R1, extent C1, extent R2, extent C2>
decltype(detail::first_failure<rules_of::compare<R1, C1, R2, C2>>::error()) approx_equal(
    const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b, const std::type_identity_t<T>& rel_tol,
    const std::type_identity_t<T>& abs_tol = T(0)) noexcept;

}  // namespace cxmat
