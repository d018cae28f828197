// Softmax and attention on non-finite and extreme inputs, at compile time. The rules are checked
// by the functions of test_support/softmax_cases.hpp, which runtime_tests/ops/softmax_numerics.cpp runs too.
#include <limits>

#include <cxmat/cxmat.hpp>

#include "test_support/softmax_cases.hpp"

namespace softmax_numerics {

using namespace softmax_cases;
using cxmat::matrix;

static_assert(equal_scores_share_equally(equal_scores));
static_assert(huge_scores_do_not_overflow(huge_equal_scores, extreme_spread));
static_assert(far_below_max_is_zero(far_apart));
static_assert(masked_entry_gets_zero(one_masked));
static_assert(fully_masked_row_is_zero(all_masked));
static_assert(pos_inf_takes_all(two_pos_inf, pos_inf_beats_max));
static_assert(nan_poisons_only_its_row(nan_in_first_row));

// Worksheet 000's second head has a score of 756.03: exp(756.03) overflows a double; the stable
// softmax gives it weight 1. (Checked in full in worksheet_000.cpp.)
static_assert(cxmat::softmax_rows(matrix<double, 1, 2>{{{324.3553812307317, 756.0286304984312}}})(0, 1) == 1.0);

// Float and long double follow the same rules.
static_assert(cxmat::softmax_rows(matrix<float, 1, 2>{{{-std::numeric_limits<float>::infinity(), 3.0f}}}) ==
              matrix<float, 1, 2>{{{0.0f, 1.0f}}});
static_assert(cxmat::softmax_rows(matrix<long double, 1, 2>{{{2.0L, 2.0L}}}) ==
              matrix<long double, 1, 2>{{{0.5L, 0.5L}}});

// Scores of ±1e300 (finite, from values of 1e150) give one-hot weights, not NaN.
constexpr matrix<double, 2, 1> q{{{1e150}, {-1e150}}};
static_assert(cxmat::attention_weights(q, q) == matrix<double, 2, 2>{{{1, 0}, {0, 1}}});

}  // namespace softmax_numerics
