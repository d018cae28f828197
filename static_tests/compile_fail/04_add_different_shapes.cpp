// Mistake: Adding the attention weights (n x n) to the values (n x d_v): both 2 x 2, names differ.
// Rule: a + b, a - b, a == b: same rows and same columns (sizes and names).
// Expect: shape_error::elementwise_shapes_must_match<cxmat::dim<2, n_dim>, cxmat::dim<2, n_dim>, cxmat::dim<2, n_dim>, cxmat::dim<2, d_v_dim> ?>
// Expect-plain: error: static assertion failed: A \+ B, A - B, A == B: A is \(2, n\) x \(2, n\) and B is \(2, n\) x \(2, d_v\); both must have the same rows and the same columns \(sizes and names\)\.
#include <cxmat/cxmat.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_v, 2);

constexpr cxmat::matrix<double, n, n> A{{{0.5, 0.5}, {0.25, 0.75}}};
constexpr cxmat::matrix<double, n, d_v> V{{{1, 2}, {3, 4}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto H = A + V;
#else
constexpr auto H = A * V;
static_assert(H(0, 0) == 2);
#endif
