// Mistake: Trying to turn a d_k-wide matrix into a d_v-wide one by renaming its columns.
// Rule: named dimensions: a name can be added to a plain size or dropped, never changed.
// Expect: shape_error::with_dims_must_keep_sizes_and_names<cxmat::dim<2, n_dim>, cxmat::dim<2, d_k_dim>, cxmat::dim<2, n_dim>, cxmat::dim<2, d_v_dim> ?>
// Expect-plain: error: static assertion failed: with_dims<R, C>\(m\): m is \(2, n\) x \(2, d_k\) and cannot become \(2, n\) x \(2, d_v\); with_dims keeps the sizes and may add or drop a name, not change one \(use plain sizes to drop it first\)\.
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);

constexpr cxmat::matrix<double, n, d_k> K{{{2, 1}, {4, 3}}};
constexpr cxmat::matrix<double, 2, 2> plain{{{1, -2}, {3, -4}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto V = cxmat::with_dims<n, d_v>(K);
#else
constexpr auto V = cxmat::with_dims<n, d_v>(plain);
static_assert(cxmat::shape_text(V) == "2 x 2 (n x d_v)" && K(0, 0) == 2);
#endif
