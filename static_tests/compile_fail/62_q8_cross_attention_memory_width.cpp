// Mistake: int8 cross-attention of width d_model = 8 given a memory of width 4 (the encoder's output taken from a narrower layer).
// Rule: q8::cross_attention(x, memory, layer): memory is s x d_model, as x is n x d_model; keys and values are projected from it with the layer's W_k and W_v.
// Expect: shape_error::q8_cross_attention_memory_cols_must_equal_layer_d_model<cxmat::dim<4, cxmat::anonymous> ?, 8>
// Expect-plain: error: static assertion failed: q8::cross_attention\(x, memory, layer\): memory's columns \(4\) must equal the layer's d_model = 8 \(the memory is s x d_model, as x is n x d_model\)\.
#include <cstdint>

#include <cxmat/quantized/attention.hpp>

constexpr cxmat::q8::attention_layer<8, 2, 4, 4, 8> layer{};
constexpr cxmat::matrix<std::int8_t, 3, 8> x{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::int8_t, 5, 4> memory{};
#else
constexpr cxmat::matrix<std::int8_t, 5, 8> memory{};
#endif
inline constexpr auto y = cxmat::q8::cross_attention(x, memory, layer);
