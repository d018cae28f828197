// Mistake: A uint8 input to the int8 layer (TFLite's older asymmetric uint8 scheme).
// Rule: q8::multi_head_attention(x, layer): x is int8; uint8 q with zero point z is int8 q - 128 with zero point z - 128.
// Expect: shape_error::q8_input_must_be_int8_not_uint8
// Expect-plain: error: static assertion failed: q8::multi_head_attention\(x, layer\): x is uint8 \(3\) x \(4\), the int8 layer takes int8 \(as TFLite's int8 kernels\): uint8 q with zero point z is int8 q - 128 with zero point z - 128, same scale\.
#include <cstdint>

#include <cxmat/quantized/attention.hpp>

constexpr cxmat::q8::attention_heads<4, 2, 2, 2> heads{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::uint8_t, 3, 4> x{{{200, 128, 0, 255}, {128, 128, 128, 128}, {0, 1, 2, 3}}};
#else
constexpr cxmat::matrix<std::int8_t, 3, 4> x{{{72, 0, -128, 127}, {0, 0, 0, 0}, {-128, -127, -126, -125}}};
#endif
inline constexpr auto y = cxmat::q8::multi_head_attention(x, heads);
