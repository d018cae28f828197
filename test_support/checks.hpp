// Checks shared by the static tests: comparison with independent references and with the
// digits a worksheet printed.
#pragma once

#include <cstddef>

#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/compare.hpp>

namespace cxmat_test {

/// Relative tolerance against float64 references computed independently (numpy, by hand).
inline constexpr double reference_rel_tol = 1e-9;
/// Absolute floor for elements whose reference is (near) zero.
inline constexpr double reference_abs_tol = 1e-300;

/// Every element of `actual` is within 1e-9 relative of the float64 reference.
template <class A, class B>
constexpr bool matches_reference(const A& actual, const B& reference) {
  return cxmat::approx_equal(actual, reference, reference_rel_tol, reference_abs_tol);
}

/// Every element of `actual`, rounded as the worksheet printed it, shows the printed value:
/// |actual - printed| <= half a unit of the last printed digit (`half_unit`, e.g. 0.05 for
/// one decimal). A relative variant covers numbers printed as 4.9e-07.
template <class A, class B>
constexpr bool matches_printed(const A& actual, const B& printed, double half_unit) {
  for (std::size_t i = 0; i < A::rows; ++i) {
    for (std::size_t j = 0; j < A::cols; ++j) {
      const double d = actual(i, j) - printed(i, j);
      if (d > half_unit || -d > half_unit) return false;
    }
  }
  return true;
}

/// As matches_printed, for numpy's "%.1e" style: |actual - printed| <= 0.05 * 10^exponent of
/// the printed value (two significant digits).
template <class A, class B>
constexpr bool matches_printed_2sig(const A& actual, const B& printed) {
  for (std::size_t i = 0; i < A::rows; ++i) {
    for (std::size_t j = 0; j < A::cols; ++j) {
      double p = printed(i, j);
      double unit = 1.0;
      const double mag = p < 0 ? -p : p;
      if (mag > 0) {
        while (unit > mag) unit /= 10.0;
        while (unit * 10.0 <= mag) unit *= 10.0;
      }
      const double d = actual(i, j) - p;
      const double half = 0.05 * unit * 1.0000001;  // printed decimal digits are not exact binary values
      if (d > half || -d > half) return false;
    }
  }
  return true;
}

}  // namespace cxmat_test
