// Mistake: Scores of a batch of 2 sequences against the keys of a batch of 3.
// Rule: batched operations: both operands hold the same number B of matrices.
// Expect: shape_error::batch_sizes_must_match<cxmat::dim<2, B_dim>, cxmat::dim<3, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: batched operation: the batches must hold the same number of matrices, but one holds \(2, B\) and the other \(3\)\.
#include <cxmat/attention/batched.hpp>
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(B, 2);
CXMAT_DIM(n, 2);
CXMAT_DIM(d_k, 2);

constexpr cxmat::batch<double, B, n, d_k> Q{};
constexpr cxmat::batch<double, 3, n, d_k> K_of_3{};
constexpr cxmat::batch<double, B, n, d_k> K{};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto scores = Q * cxmat::transpose(K_of_3);
#else
constexpr auto scores = Q * cxmat::transpose(K);
static_assert(cxmat::shape_text(scores) == "2 x 2 x 2 (B x n x n)" && K_of_3.count == 3);
#endif
