// Mistake: Permuting the 3 rows of X with a repeated index (row 0 twice, row 2 never).
// Rule: permute_rows<P...>(m): P is 0 .. rows-1 in some order, each index exactly once.
// Expect: shape_error::permute_rows_needs_each_row_exactly_once
// Expect-plain: error: static assertion failed: permute_rows<P\.\.\.>\(m\): P = <1, 0, 0> must list each of m's rows \(3\) exactly once, 0 \.\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 3, 2> X{{{1, 2}, {3, 4}, {5, 6}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Y = cxmat::permute_rows<1, 0, 0>(X);
#else
constexpr auto Y = cxmat::permute_rows<1, 0, 2>(X);
static_assert(Y(0, 0) == 3 && Y(1, 0) == 1 && Y(2, 0) == 5);
#endif
