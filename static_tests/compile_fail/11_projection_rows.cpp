// Mistake: A transposed W^Q passed to self-attention (X is n x d_model, W^Q must be d_model x d_k).
// Rule: projections: X's width d_model equals the rows of W^Q, W^K and W^V.
// Expect: shape_error::projection_x_cols_must_equal_wq_rows<cxmat::dim<4, d_model_dim>, cxmat::dim<2, d_k_dim> ?>
// Expect-plain: error: static assertion failed: Q = X.+Wq: X's columns \(4, d_model\) must equal Wq's rows \(2, d_k\) \(X is n x d_model, Wq is d_model x d_k\)\.
#include <cxmat/cxmat.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_k, 2);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 2, 3, 4}, {5, 6, 7, 8}}};
constexpr cxmat::matrix<double, d_model, d_k> W{{{0.1, 0.2}, {0.3, 0.4}, {0.5, 0.6}, {0.7, 0.8}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Z = cxmat::self_attention(X, cxmat::transpose(W), W, W);
#else
constexpr auto Z = cxmat::self_attention(X, W, W, W);
static_assert(Z(0, 0) > 0);
#endif
