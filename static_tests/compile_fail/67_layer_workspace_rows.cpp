// Mistake: A sequence of 5 rows computed in an encoder layer's workspace for 4 rows.
// Rule: layer(x, ws, ...): ws is the call's workspace_for<Layer, n>, n = x's rows.
// Expect: shape_error::layer_workspace_must_be_workspace_for_the_call<cxmat::float_encoder_workspace<float, 4,
// Expect-plain: error: static assertion failed: layer\(x, ws, \.\.\.\): ws must be the call's workspace_for<Layer, n> .*a workspace for 5 rows and 5 keys; ws is one for 4 rows and 4 keys\.
#include <cxmat/transformer.hpp>

constexpr cxmat::encoder_layer<float, 8, 2, 16> layer{};
constexpr cxmat::matrix<float, 5, 8> x{};
#ifdef CXMAT_COMPILE_FAIL
cxmat::workspace_for<decltype(layer), 4> ws;
#else
cxmat::workspace_for<decltype(layer), 5> ws;
#endif
const auto y = layer(x, ws, cxmat::causal);
