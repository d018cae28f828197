// Mistake: An int8 input whose width is not the d_model of the layer it runs through.
// Rule: q8::multi_head_attention(x, layer): x is n x d_model of the layer.
// Expect: shape_error::q8_attention_x_cols_must_equal_layer_d_model
// Expect-plain: error: static assertion failed: q8::multi_head_attention\(x, layer\): x's columns \(5\) must equal the layer's d_model = 4 \(x is n x d_model\)\.
#include <cstdint>

#include <cxmat/quantized/attention.hpp>

constexpr cxmat::q8::attention_heads<4, 2, 2, 2> heads{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::int8_t, 3, 5> x{};
#else
constexpr cxmat::matrix<std::int8_t, 3, 4> x{};
#endif
inline constexpr auto y = cxmat::q8::multi_head_attention(x, heads);
