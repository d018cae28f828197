// Mistake: The projection written as W·X instead of X·W (plain sizes: X is 2 x 4, Wq is 4 x 3).
// Rule: matmul(a, b): a.cols must equal b.rows.
// Expect: shape_error::matmul_a_cols_must_equal_b_rows<cxmat::dim<4, cxmat::anonymous>, cxmat::dim<3, cxmat::anonymous>, cxmat::dim<2, cxmat::anonymous>, cxmat::dim<4, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: matmul\(A, B\): A's columns \(3\) must equal B's rows \(2\)\. A is .*B·A fits, so the operands look swapped: write matmul\(B, A\)
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 4> X{{{1, 2, 3, 4}, {5, 6, 7, 8}}};
constexpr cxmat::matrix<double, 4, 3> Wq{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Q = Wq * X;
#else
constexpr auto Q = X * Wq;
static_assert(Q(1, 2) == 15);
#endif
