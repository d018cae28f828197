// Mistake: An int8 decoder layer of width d_model = 8 attending to an int8 memory of width 4.
// Rule: q8::decoder_layer(x, memory, ...): memory is s x d_model (the encoder's output), as x is n x d_model.
// Expect: shape_error::q8_decoder_memory_cols_must_equal_d_model<cxmat::dim<4, cxmat::anonymous> ?, 8>
// Expect-plain: error: static assertion failed: q8::decoder_layer\(x, memory\): memory's columns \(4\) must equal the layer's d_model = 8 \(the memory is s x d_model, as x is n x d_model\)\.
#include <cstdint>

#include <cxmat/quantized/decoder_layer.hpp>

constexpr cxmat::q8::decoder_layer<8, 2, 16> layer{};
constexpr cxmat::matrix<std::int8_t, 3, 8> x{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::int8_t, 5, 4> memory{};
#else
constexpr cxmat::matrix<std::int8_t, 5, 8> memory{};
#endif
inline constexpr auto y = layer(x, memory, cxmat::causal);
