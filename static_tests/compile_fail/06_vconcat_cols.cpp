// Mistake: Stacking a row of width 3 under a 2 x 4 matrix.
// Rule: vconcat(a, b, ...): every block has the same number of columns.
// Expect: shape_error::vconcat_cols_must_match<cxmat::dim<4, cxmat::anonymous>, cxmat::dim<3, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: vconcat\(blocks\.\.\.\) stacks blocks, so every block must have the same columns; the columns are \(4\), \(3\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 4> X{{{1, 2, 3, 4}, {5, 6, 7, 8}}};
constexpr cxmat::matrix<double, 1, 3> row{{{9, 10, 11}}};
constexpr cxmat::matrix<double, 1, 4> row_fixed{{{9, 10, 11, 12}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto stacked = cxmat::vconcat(X, row);
#else
constexpr auto stacked = cxmat::vconcat(X, row_fixed);
static_assert(stacked(2, 3) == 12 && row(0, 2) == 11);
#endif
