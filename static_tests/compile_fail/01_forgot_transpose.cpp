// Mistake: Forgot the transpose in the scores: Q·K instead of Q·Kᵀ (worksheet 001, all 2 x 2).
// Rule: matmul(a, b): a.cols must equal b.rows (sizes and names).
// Expect: shape_error::matmul_a_cols_must_equal_b_rows<cxmat::dim<2, n_dim>, cxmat::dim<2, d_k_dim>, cxmat::dim<2, n_dim>, cxmat::dim<2, d_k_dim> ?>
// Expect-plain: error: static assertion failed: matmul\(A, B\): A's columns \(2, d_k\) must equal B's rows \(2, n\)\. A is .* for Q·Kᵀ write matmul\(Q, transpose\(K\)\)\.
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 2);
CXMAT_DIM(d_k, 2);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<double, d_model, d_k> Wq{{{1, 0}, {0, 1}}}, Wk{{{0, 1}, {1, 0}}};
constexpr auto Q = X * Wq;
constexpr auto K = X * Wk;

#ifdef CXMAT_COMPILE_FAIL
constexpr auto scores = cxmat::matmul(Q, K);
#else
constexpr auto scores = cxmat::matmul(Q, cxmat::transpose(K));
static_assert(cxmat::shape_text(scores) == "2 x 2 (n x n)");
#endif
