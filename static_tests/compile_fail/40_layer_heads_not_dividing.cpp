// Mistake: An encoder layer of width d_model = 8 with H = 3 heads.
// Rule: encoder_layer / decoder_layer: H divides d_model (each head is d_model / H wide).
// Expect: shape_error::transformer_layer_h_must_divide_d_model<3, cxmat::dim<8, d_model_dim> ?>
// Expect-plain: error: static assertion failed: encoder_layer / decoder_layer with H = 3 heads: H must divide d_model \(8, d_model\), each head is d_model / H wide, but 8 = 3 \* 2 \+ 2\.
#include <cxmat/transformer.hpp>

CXMAT_DIM(d_model, 8);
CXMAT_DIM(d_ff, 16);

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::encoder_layer<double, d_model, 3, d_ff> layer{};
#else
constexpr cxmat::encoder_layer<double, d_model, 2, d_ff> layer{};
#endif
static_assert(decltype(layer)::heads > 0);
