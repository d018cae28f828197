// Softmax on non-finite and extreme inputs at run time: the same checks as
// static_tests/ops/softmax_numerics.cpp, on inputs the compiler cannot fold.
#include <cmath>
#include <limits>

#include <cxmat/cxmat.hpp>

#include "test_support/catch.hpp"
#include "test_support/runtime_value.hpp"
#include "test_support/softmax_cases.hpp"

using cxmat_test::at_run_time;
using namespace softmax_cases;

TEST_CASE("softmax rules for extreme and non-finite scores hold at run time", "[numerics]") {
  CHECK(equal_scores_share_equally(at_run_time(equal_scores)));
  CHECK(huge_scores_do_not_overflow(at_run_time(huge_equal_scores), at_run_time(extreme_spread)));
  CHECK(far_below_max_is_zero(at_run_time(far_apart)));
  CHECK(masked_entry_gets_zero(at_run_time(one_masked)));
  CHECK(fully_masked_row_is_zero(at_run_time(all_masked)));
  CHECK(pos_inf_takes_all(at_run_time(two_pos_inf), at_run_time(pos_inf_beats_max)));
  CHECK(nan_poisons_only_its_row(at_run_time(nan_in_first_row)));
}

TEST_CASE("attention with scores that overflow to inf at run time stays defined", "[numerics]") {
  // q·k = ±1e200 · ±1e200 overflows to ±inf at run time (in a constant expression it would not
  // compile). Row 0 scores [+inf, -inf] and row 1 [-inf, +inf]: each row's +inf key takes all
  // the weight, so the output rows are the values rows 0 and 1.
  const auto q = at_run_time(cxmat::matrix<double, 2, 1>{{{1e200}, {-1e200}}});
  const auto k = at_run_time(cxmat::matrix<double, 2, 1>{{{1e200}, {-1e200}}});
  const auto w = cxmat::attention_weights(q, k);
  CHECK(w == cxmat::matrix<double, 2, 2>{{{1, 0}, {0, 1}}});
  const auto v = at_run_time(cxmat::matrix<double, 2, 2>{{{1, 2}, {3, 4}}});
  const auto out = cxmat::scaled_dot_product_attention(q, k, v);
  CHECK(out == cxmat::matrix<double, 2, 2>{{{1, 2}, {3, 4}}});
}

TEST_CASE("NaN inputs give NaN rows, never a crash or a silent number", "[numerics]") {
  auto q = at_run_time(cxmat::matrix<double, 2, 2>{{{1, 2}, {3, 4}}});
  q(0, 1) = std::numeric_limits<double>::quiet_NaN();
  const auto w = cxmat::attention_weights(q, q);
  // Row 0 has a NaN score; row 1's score against key 0 is NaN too (q(0,1) enters k_0).
  CHECK(std::isnan(w(0, 0)));
  CHECK(std::isnan(w(0, 1)));
  CHECK(std::isnan(w(1, 0)));
  CHECK(std::isnan(w(1, 1)));
}
