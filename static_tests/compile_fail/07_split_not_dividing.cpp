// Mistake: Splitting a width of 4 into 3 heads.
// Rule: split_columns<H>(m): H divides the number of columns.
// Expect: shape_error::split_columns_h_must_divide_cols<3, cxmat::dim<4, d_model_dim> ?>
// Expect-plain: error: static assertion failed: split_columns<H>\(m\) / column_block<I, H>\(m\): H = 3 must divide m's columns \(4, d_model\) into H equal blocks, but 4 = 3 \* 1 \+ 1\.
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);

constexpr cxmat::matrix<double, n, d_model> Q{{{1, 2, 3, 4}, {5, 6, 7, 8}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto heads = cxmat::split_columns<3>(Q);
#else
constexpr auto heads = cxmat::split_columns<2>(Q);
static_assert(cxmat::shape_text(heads[1]) == "2 x 2 (n x d_model/2)");
#endif
