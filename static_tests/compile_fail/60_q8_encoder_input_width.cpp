// Mistake: An int8 sequence of width 6 passed to an int8 encoder layer of width d_model = 8.
// Rule: q8::encoder_layer(x, ...): x is n x d_model of the layer.
// Expect: shape_error::q8_encoder_x_cols_must_equal_d_model<cxmat::dim<6, cxmat::anonymous> ?, 8>
// Expect-plain: error: static assertion failed: q8::encoder_layer\(x\): x's columns \(6\) must equal the layer's d_model = 8 \(x is n x d_model\)\.
#include <cstdint>

#include <cxmat/quantized/encoder_layer.hpp>

constexpr cxmat::q8::encoder_layer<8, 2, 16> layer{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::int8_t, 3, 6> x{};
#else
constexpr cxmat::matrix<std::int8_t, 3, 8> x{};
#endif
inline constexpr auto y = layer(x, cxmat::causal);
