// Mistake: A product's requantizer written by hand as round(0.1 · 2^31), a Q31 number below 0.5, with shift 0.
// Rule: q8 requantizers: the multiplier is 0 or in [2^30, 2^31) in magnitude (quantize_multiplier normalizes it).
// Expect: requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude
// Expect-plain: requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude
#include <cstdint>

#include <cxmat/quantized/matmul.hpp>

constexpr cxmat::matrix<std::int8_t, 2, 3> a{{{1, -2, 3}, {4, 5, -6}}};
constexpr cxmat::matrix<std::int8_t, 2, 3> bt{{{7, 8, 9}, {-1, 0, 1}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::q8::matmul_params p{0, 0, 0, {214748365, 0}};  // 0.1 · 2^31: not normalized
#else
constexpr cxmat::q8::matmul_params p{0, 0, 0, cxmat::q8::quantize_multiplier(0.1)};  // {1717986918, -3}
#endif
inline constexpr auto y = cxmat::q8::matmul_transposed(a, bt, p);
