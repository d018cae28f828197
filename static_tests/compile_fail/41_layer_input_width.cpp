// Mistake: A sequence of width 6 passed to an encoder layer of width d_model = 8.
// Rule: layer(x, ...): x is n x d_model of the layer.
// Expect: shape_error::transformer_layer_x_cols_must_equal_d_model<cxmat::dim<6, cxmat::anonymous> ?, cxmat::dim<8, d_model_dim> ?>
// Expect-plain: error: static assertion failed: layer\(x, \.\.\.\): x's columns \(6\) must equal the layer's d_model \(8, d_model\) \(x is n x d_model\)\.
#include <cxmat/transformer.hpp>

CXMAT_DIM(d_model, 8);
CXMAT_DIM(d_ff, 16);

constexpr cxmat::encoder_layer<double, d_model, 2, d_ff> layer{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 3, 6> X{};
#else
constexpr cxmat::matrix<double, 3, 8> X{};
#endif
inline constexpr auto Y = layer(X, cxmat::causal);
