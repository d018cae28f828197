// Mistake: Selecting row 3 of a matrix with 3 rows (rows are numbered from 0).
// Rule: select_rows<I...>(m): every index I is a row of m, 0 .. rows-1.
// Expect: shape_error::select_rows_index_must_be_below_rows<3, cxmat::dim<3, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: select_rows<I\.\.\.>\(m\): row index 3 must be below m's rows \(3\); rows are numbered 0 \.\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 3, 2> X{{{1, 2}, {3, 4}, {5, 6}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Y = cxmat::select_rows<0, 3>(X);
#else
constexpr auto Y = cxmat::select_rows<0, 2>(X);
static_assert(Y(1, 1) == 6);
#endif
