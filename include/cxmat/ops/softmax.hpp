// Numerically stable row softmax, with defined results for every input a float can hold.
#pragma once

#include <cstddef>
#include <type_traits>

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
  if constexpr (detail::has_runtime_softmax<T>) {
    if (!std::is_constant_evaluated()) {
      // All rows at once: short rows share vector registers (same bits as row by row).
      detail::softmax_rows_runtime(out.elems, detail::exp_zero_bound<T>());
      return out;
    }
  }
  for (std::size_t i = 0; i < R.size; ++i) detail::softmax_row(out.elems[i], detail::fixed_length<C.size>{});
  return out;
}

/// Element-type error: softmax_rows of an integer matrix (the weights would truncate to 0 and 1).
template <class T, extent R, extent C>
decltype(detail::first_failure<rules_of::softmax_rows<T>>::error()) softmax_rows(const matrix<T, R, C>& m) noexcept;

}  // namespace cxmat
