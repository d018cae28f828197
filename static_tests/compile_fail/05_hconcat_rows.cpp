// Mistake: Concatenating heads computed for different sequence lengths (2 and 3 rows).
// Rule: hconcat(a, b, ...): every block has the same number of rows.
// Expect: shape_error::hconcat_rows_must_match<cxmat::dim<2, cxmat::anonymous>, cxmat::dim<3, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: hconcat\(blocks\.\.\.\) puts blocks side by side, so every block must have the same rows; the rows are \(2\), \(3\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 2> head0{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<double, 3, 2> head1{{{5, 6}, {7, 8}, {9, 10}}};
constexpr cxmat::matrix<double, 2, 2> head1_fixed{{{5, 6}, {7, 8}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto concat = cxmat::hconcat(head0, head1);
#else
constexpr auto concat = cxmat::hconcat(head0, head1_fixed);
static_assert(concat(1, 3) == 8 && head1(2, 1) == 10);
#endif
