// Mistake: 3 heads over projections of width 4.
// Rule: multi-head attention: H divides the projection widths H·d_k and H·d_v.
// Expect: shape_error::multi_head_h_must_divide_q_width<3, cxmat::dim<4, d_model_dim> ?>
// Expect-plain: error: static assertion failed: multi-head attention with H = 3 heads: H must divide the query width \(4, d_model\) into equal blocks: head h reads column block h\.
#include <cxmat/cxmat.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 0, 1, 0}, {0, 1, 0, 1}}};
constexpr auto W = cxmat::identity<double, d_model>();

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Y = cxmat::multi_head_attention<3>(X, W, W, W, W);
#else
constexpr auto Y = cxmat::multi_head_attention<2>(X, W, W, W, W);
static_assert(Y(0, 0) > 0);
#endif
