// Mistake: A transposed W_o (worksheet 003 part 5: W_o is 4 x 4, so only the names differ).
// Rule: matmul(a, b): a.cols must equal b.rows; Concat(heads) is n x (H·d_h), W_o is (H·d_h) x d_model.
// Expect: shape_error::matmul_a_cols_must_equal_b_rows<cxmat::dim<2, n_dim>, cxmat::dim<4, cxmat::times<2, d_h_dim> ?>, cxmat::dim<4, d_model_dim>, cxmat::dim<4, cxmat::times<2, d_h_dim> ?> ?>
// Expect-plain: error: static assertion failed: matmul\(A, B\): A's columns \(4, 2\*d_h\) must equal B's rows \(4, d_model\)\. A is .*so B looks transposed: write matmul\(A, transpose\(B\)\)
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_h, 2);
using cxmat::times_v;

constexpr cxmat::matrix<double, n, times_v<2, d_h>> heads{{{1, 0, 2, 1}, {0, 1, 1, 2}}};
constexpr cxmat::matrix<double, times_v<2, d_h>, d_model> Wo{{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Y = heads * cxmat::transpose(Wo);
#else
constexpr auto Y = heads * Wo;
static_assert(cxmat::shape_text(Y) == "2 x 4 (n x d_model)");
#endif
