// Mistake: A sequence of width 6 traced through an encoder layer of width d_model = 8 (the trace reports the layer's error).
// Rule: layer(x, ...): x is n x d_model of the layer, checked by trace_encoder_layer before the trace is computed.
// Expect: shape_error::transformer_layer_x_cols_must_equal_d_model<cxmat::dim<6, cxmat::anonymous> ?, cxmat::dim<8, d_model_dim> ?>
// Expect-plain: error: static assertion failed: layer\(x, \.\.\.\): x's columns \(6\) must equal the layer's d_model \(8, d_model\) \(x is n x d_model\)\.
#include <cxmat/io/layer_trace.hpp>
#include <cxmat/transformer.hpp>

CXMAT_DIM(d_model, 8);
CXMAT_DIM(d_ff, 16);

constexpr cxmat::encoder_layer<double, d_model, 2, d_ff> layer{};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto t = cxmat::trace_encoder_layer(layer, cxmat::matrix<double, 3, 6>{}, cxmat::causal);
#else
constexpr auto t = cxmat::trace_encoder_layer(layer, cxmat::matrix<double, 3, 8>{}, cxmat::causal);
static_assert(t.output == layer(cxmat::matrix<double, 3, 8>{}, cxmat::causal));
#endif
