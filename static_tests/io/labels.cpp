// Label lists whose length is known at compile time: a heatmap (terminal or SVG) accepts one label
// per row and per column, or none, and rejects any other count with the labels' shape error (the
// learner's mistake, 3 labels for 4 tokens, and its compiler output: compile-fail snippet 58).
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cxmat/io/heatmap.hpp>

#include "test_support/rejection.hpp"

namespace io_labels {

CXMAT_DIM(n, 4);
CXMAT_DIM(s, 3);
using cxmat::matrix;
using weights = matrix<double, n, s>;
using heads = cxmat::batch<double, cxmat::heads_v<2>, n, s>;

using four = std::array<const char*, 4>;
using three = std::array<std::string_view, 3>;
using c_three = const char* const[3];
using dynamic = std::vector<std::string>;
using fixed_span = std::span<const std::string, 3>;

// The rule list: lengths in the type are checked, a vector's is not (it is checked at run time).
static_assert(cxmat::rules_hold<cxmat::rules_of::heatmap_labels<four, n, three, s>>);
static_assert(cxmat::rules_hold<cxmat::rules_of::heatmap_labels<dynamic, n, c_three, s>>);
static_assert(cxmat::rules_hold<cxmat::rules_of::heatmap_labels<std::array<const char*, 0>, n, fixed_span, s>>);
static_assert(!cxmat::rules_hold<cxmat::rules_of::heatmap_labels<three, n, three, s>>);  // 3 labels, 4 rows
static_assert(!cxmat::rules_hold<cxmat::rules_of::heatmap_labels<four, n, four, s>>);    // 4 labels, 3 columns
static_assert(!cxmat::rules_hold<cxmat::rules_of::heatmap_labels<dynamic, n, c_three, n>>);
static_assert(cxmat::LabelList<four> && cxmat::LabelList<c_three> && cxmat::LabelList<dynamic>);
static_assert(!cxmat::LabelList<const char*> && !cxmat::LabelList<std::string>);  // a string is not a list of labels

// The calls: accepted with the right counts, rejected with the wrong ones (matrix and batch,
// terminal and SVG).
template <class W, class Rows, class Cols>
constexpr bool accepts = requires(std::ostream& os, const W& w, const Rows& rows, const Cols& cols) {
  cxmat::print_heatmap(os, "w", w, rows, cols);
  cxmat::write_svg_heatmap(os, w, rows, cols);
};
static_assert(accepts<weights, four, three> && accepts<heads, four, three>);
static_assert(accepts<weights, dynamic, three> && accepts<heads, four, dynamic>);
static_assert(accepts<weights, four, c_three> && accepts<heads, dynamic, fixed_span>);
CXMAT_ASSERT_REJECTED(!accepts<weights, three, three> && !accepts<heads, three, three>);
CXMAT_ASSERT_REJECTED(!accepts<weights, four, four> && !accepts<heads, four, four>);
CXMAT_ASSERT_REJECTED(!accepts<weights, c_three, c_three>);

// A call with fixed-size lists of the right lengths.
[[maybe_unused]] void draw(std::ostream& os, const weights& w) {
  const std::array tokens{"The", "cat", "sat", "down"};
  const std::array keys{"a", "b", "c"};
  cxmat::print_heatmap(os, "w", w, tokens, keys);
}

}  // namespace io_labels
