// Softmax on non-finite and extreme inputs: each rule of docs/numerics.md as a constexpr check
// on given input rows, so the same check runs in a static_assert (compile time) and in a Catch2
// CHECK (run time, on inputs the compiler cannot see). Expected values are derived by hand.
#pragma once

#include <limits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/softmax.hpp>

namespace softmax_cases {

using row3 = cxmat::matrix<double, 1, 3>;
inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double dmax = std::numeric_limits<double>::max();

constexpr bool is_nan(double x) { return x != x; }

// Inputs, named after the rule they exercise.
inline constexpr row3 equal_scores{{{5, 5, 5}}};
inline constexpr row3 huge_equal_scores{{{1e308, 1e308, 1e308}}};
inline constexpr row3 extreme_spread{{{-dmax, dmax, 0}}};
inline constexpr row3 far_apart{{{0, 1000, -1000}}};
inline constexpr row3 one_masked{{{-inf, 0, 0}}};
inline constexpr row3 all_masked{{{-inf, -inf, -inf}}};
inline constexpr row3 two_pos_inf{{{inf, 0, inf}}};
inline constexpr row3 pos_inf_beats_max{{{inf, -inf, 1e308}}};
inline constexpr cxmat::matrix<double, 2, 3> nan_in_first_row{{{1, nan, 2}, {0, 0, 0}}};

/// Equal scores share the weight equally: exp(0) = 1 each, so exactly 1/3 each.
constexpr bool equal_scores_share_equally(const row3& s) {
  return cxmat::softmax_rows(s) == row3{{{1.0 / 3, 1.0 / 3, 1.0 / 3}}};
}
/// Only differences from the row maximum matter, so huge scores do not overflow.
constexpr bool huge_scores_do_not_overflow(const row3& equal, const row3& spread) {
  return cxmat::softmax_rows(equal) == row3{{{1.0 / 3, 1.0 / 3, 1.0 / 3}}} &&
         cxmat::softmax_rows(spread) == row3{{{0, 1, 0}}};
}
/// Scores 1000 below the maximum get weight exactly 0 (exp underflows).
constexpr bool far_below_max_is_zero(const row3& s) { return cxmat::softmax_rows(s) == row3{{{0, 1, 0}}}; }
/// -inf means masked: weight 0, the rest renormalised.
constexpr bool masked_entry_gets_zero(const row3& s) { return cxmat::softmax_rows(s) == row3{{{0, 0.5, 0.5}}}; }
/// A row that is entirely -inf (fully masked) attends to nothing: all zeros, never NaN.
constexpr bool fully_masked_row_is_zero(const row3& s) { return cxmat::softmax_rows(s) == row3{{{0, 0, 0}}}; }
/// +inf entries take all the weight, shared equally (the limit of growing scores).
constexpr bool pos_inf_takes_all(const row3& two, const row3& beats) {
  return cxmat::softmax_rows(two) == row3{{{0.5, 0, 0.5}}} && cxmat::softmax_rows(beats) == row3{{{1, 0, 0}}};
}
/// NaN anywhere in a row makes that row all NaN; other rows are unaffected.
constexpr bool nan_poisons_only_its_row(const cxmat::matrix<double, 2, 3>& s) {
  const auto w = cxmat::softmax_rows(s);
  return is_nan(w(0, 0)) && is_nan(w(0, 1)) && is_nan(w(0, 2)) && w(1, 0) == 1.0 / 3 && w(1, 1) == 1.0 / 3 &&
         w(1, 2) == 1.0 / 3;
}

}  // namespace softmax_cases
