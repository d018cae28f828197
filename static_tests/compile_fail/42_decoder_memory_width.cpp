// Mistake: A decoder layer of width d_model = 8 attending to a memory of width 4.
// Rule: decoder layer(x, memory, ...): memory is S x d_model (the encoder's output).
// Expect: shape_error::decoder_layer_memory_cols_must_equal_d_model<cxmat::dim<4, cxmat::anonymous> ?, cxmat::dim<8, d_model_dim> ?>
// Expect-plain: error: static assertion failed: layer\(x, memory, \.\.\.\): memory's columns \(4\) must equal the layer's d_model \(8, d_model\) \(memory is S x d_model, the encoder's output\)\.
#include <cxmat/transformer.hpp>

CXMAT_DIM(d_model, 8);
CXMAT_DIM(d_ff, 16);

constexpr cxmat::decoder_layer<double, d_model, 2, d_ff> layer{};
constexpr cxmat::matrix<double, 3, d_model> X{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 5, 4> memory{};
#else
constexpr cxmat::matrix<double, 5, d_model> memory{};
#endif
inline constexpr auto Y = layer(X, memory, cxmat::causal);
