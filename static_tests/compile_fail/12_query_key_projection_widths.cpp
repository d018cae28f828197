// Mistake: W^V passed where W^K belongs, so Q and K have different widths (2 = 2, names differ).
// Rule: self-attention: W^Q and W^K have the same width d_k.
// Expect: shape_error::projection_wq_and_wk_widths_must_match<cxmat::dim<2, d_k_dim>, cxmat::dim<2, d_v_dim> ?>
// Expect-plain: error: static assertion failed: self-attention: Wq's columns \(2, d_k\) must equal Wk's columns \(2, d_v\): Q.+K.+ needs one width d_k for queries and keys\.
#include <cxmat/cxmat.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 2);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<double, d_model, d_k> Wq{{{1, 0}, {0, 1}}}, Wk{{{0, 1}, {1, 0}}};
constexpr cxmat::matrix<double, d_model, d_v> Wv{{{1, 0}, {0, -1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto head = cxmat::self_attention(X, Wq, Wv, Wv);
#else
constexpr auto head = cxmat::self_attention(X, Wq, Wk, Wv);
static_assert(head(0, 0) > 2.9 && head(0, 0) < 3.0);
#endif
