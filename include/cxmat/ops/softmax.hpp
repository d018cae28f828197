// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Numerically stable row softmax, with defined results for every input a float can hold.
#pragma once

#include <cstddef>

#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/kernels/softmax.hpp>

namespace cxmat {

/// Softmax of each row: out(i, j) = exp(m(i, j) - max_i) / sum_j exp(m(i, j) - max_i).
///
/// Stable for any finite scores (worksheet 000's scores reach 756, whose plain exp overflows).
/// Non-finite input has defined results: a row with NaN is all NaN; +inf entries share the row
/// equally; a row of -inf (fully masked) is all zeros. Shape R x C -> R x C.
template <class T, extent R, extent C>
requires rules_hold<rules_of::softmax_rows<T>>
constexpr matrix<T, R, C> softmax_rows(const matrix<T, R, C>& m) noexcept {
  matrix<T, R, C> out = m;
  detail::softmax_rows_kernel(out.elems);
  return out;
}

/// Element-type error: softmax_rows of an integer matrix (the weights would truncate to 0 and 1).
template <class T, extent R, extent C>
decltype(detail::first_failure<rules_of::softmax_rows<T>>::error()) softmax_rows(const matrix<T, R, C>& m) noexcept;

}  // namespace cxmat
