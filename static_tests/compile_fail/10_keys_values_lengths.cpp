// Mistake: Cross-attention with keys for 3 source tokens but values for only 2.
// Rule: attention: K is S x d_k and V is S x d_v (one value row per key row).
// Expect: shape_error::attention_k_and_v_lengths_must_match<cxmat::dim<3, S_dim>, cxmat::dim<2, L_dim> ?>
// Expect-plain: error: static assertion failed: attention\(Q, K, V\): K's rows \(3, S\) must equal V's rows \(2, L\): one value row per key row \(K is S x d_k, V is S x d_v\)\.
#include <cxmat/cxmat.hpp>

CXMAT_DIM(L, 2);
CXMAT_DIM(S, 3);
CXMAT_DIM(d_k, 2);

constexpr cxmat::matrix<double, L, d_k> Q{{{1, 0}, {0, 1}}};
constexpr cxmat::matrix<double, S, d_k> K{{{1, 0}, {0, 1}, {1, 1}}};
constexpr cxmat::matrix<double, L, d_k> V_of_queries{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<double, S, d_k> V{{{1, 2}, {3, 4}, {5, 6}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto out = cxmat::scaled_dot_product_attention(Q, K, V_of_queries);
#else
constexpr auto out = cxmat::scaled_dot_product_attention(Q, K, V);
static_assert(out(0, 0) > 1 && V_of_queries(1, 1) == 4);
#endif
