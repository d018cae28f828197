// Mistake: nn.Linear(8, 4)'s weight passed as PyTorch stores it (out x in = 4 x 8).
// Rule: linear(x, w, b): w is d_in x d_out, the transpose of PyTorch's weight.
// Expect: shape_error::linear_x_cols_must_equal_w_rows<cxmat::dim<8, d_model_dim> ?, cxmat::dim<4, cxmat::anonymous> ?, cxmat::dim<8, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: linear\(x, w, b\): x's columns \(8, d_model\) must equal w's rows \(4\) \(x is n x d_in, w is d_in x d_out\)\. w's columns fit x: w looks stored d_out x d_in, as PyTorch's nn.Linear stores its weight \(cxmat's w is its transpose\)\.
#include <cxmat/transformer.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 8);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 2, 3, 4, 5, 6, 7, 8}, {8, 7, 6, 5, 4, 3, 2, 1}}};
constexpr cxmat::matrix<double, 4, 8> weight{{{1}, {0, 1}, {0, 0, 1}, {0, 0, 0, 1}}};  // as nn.Linear holds it
constexpr cxmat::matrix<double, 1, 4> bias{};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Y = cxmat::linear(X, weight, bias);
#else
constexpr auto Y = cxmat::linear(X, cxmat::transpose(weight), bias);
static_assert(Y(0, 3) == 4.0);
#endif
