// Mistake: V passed where K belongs (d_k = d_v = 2, so only the names tell them apart).
// Rule: attention: Q is L x d_k and K is S x d_k (the same width d_k).
// Expect: shape_error::attention_q_and_k_widths_must_match<cxmat::dim<2, d_k_dim>, cxmat::dim<2, d_v_dim> ?>
// Expect-plain: error: static assertion failed: attention\(Q, K, V\): Q's columns \(2, d_k\) must equal K's columns \(2, d_v\) \(Q is L x d_k, K is S x d_k\)\.
#include <cxmat/cxmat.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);

constexpr cxmat::matrix<double, n, d_k> Q{{{1, 2}, {3, 4}}}, K{{{2, 1}, {4, 3}}};
constexpr cxmat::matrix<double, n, d_v> V{{{1, -2}, {3, -4}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto head = cxmat::scaled_dot_product_attention(Q, V, V);
#else
constexpr auto head = cxmat::scaled_dot_product_attention(Q, K, V);
static_assert(head(0, 0) > 2.9 && head(0, 0) < 3.0);
#endif
