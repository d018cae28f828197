// Mistake: A transposed W^Q passed to trace_multi_head_attention<2> (the trace reports the error of the call it traces).
// Rule: projections: X's width d_model equals W^Q's rows (X is n x d_model, W^Q is d_model x H·d_k), checked before the trace is computed.
// Expect: shape_error::projection_x_cols_must_equal_wq_rows<cxmat::dim<3, d_model_dim> ?, cxmat::dim<4, cxmat::times<2, d_k_dim> ?> ?>
// Expect-plain: error: static assertion failed: Q = X·Wq: X's columns \(3, d_model\) must equal Wq's rows \(4, 2\*d_k\) \(X is n x d_model, Wq is d_model x d_k\)\. Is Wq transposed\?
#include <cxmat/cxmat.hpp>
#include <cxmat/io/trace.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 3);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);
using cxmat::times_v;

constexpr cxmat::matrix<double, n, d_model> X{{{1, 0, 1}, {0, 1, 0}}};
constexpr cxmat::matrix<double, d_model, times_v<2, d_k>> Wq{{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}}};
constexpr cxmat::matrix<double, d_model, times_v<2, d_v>> Wv{{{1, 0, 0, 1}, {0, 1, 1, 0}, {0, 0, 1, 1}}};
constexpr cxmat::matrix<double, times_v<2, d_v>, d_model> Wo{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto t = cxmat::trace_multi_head_attention<2>(X, cxmat::transpose(Wq), Wq, Wv, Wo);
#else
constexpr auto t = cxmat::trace_multi_head_attention<2>(X, Wq, Wq, Wv, Wo);
static_assert(t.output == cxmat::multi_head_attention<2>(X, Wq, Wq, Wv, Wo));
#endif
