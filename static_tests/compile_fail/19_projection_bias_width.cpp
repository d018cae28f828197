// Mistake: A query bias as wide as the model (4) on a query projection of width 2.
// Rule: projection bias: the bias row is as wide as the projection it is added to.
// Expect: shape_error::projection_bias_width_must_match_projection
// Expect-plain: error: static assertion failed: query_bias \(X_q.+W_q \+ b\): the bias width \(4\) must equal the projection's width \(2\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 3, 4> X{};
constexpr cxmat::matrix<double, 4, 2> Wq{}, Wk{}, Wv{};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 1, 4> bq{};
#else
constexpr cxmat::matrix<double, 1, 2> bq{};
#endif
constexpr auto out = cxmat::self_attention(X, Wq, Wk, Wv, cxmat::query_bias(bq));
#ifndef CXMAT_COMPILE_FAIL
static_assert(out.rows == 3 && out.cols == 2);
#endif
