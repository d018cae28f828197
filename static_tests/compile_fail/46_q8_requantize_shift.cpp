// Mistake: A requantizer written by hand with a shift TFLite cannot represent (beyond 2^30).
// Rule: q8::requantize: the shift is in [-31, 30], as quantize_multiplier makes it (it saturates larger factors).
// Expect: requantizer_shift_must_be_in_minus_31_to_30
// Expect-plain: requantizer_shift_must_be_in_minus_31_to_30
#include <cxmat/quantized/requantize.hpp>

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::q8::requantizer r{1953125000, 40};  // 1e12 as frexp gives it
#else
constexpr cxmat::q8::requantizer r = cxmat::q8::quantize_multiplier(1e12);  // {2^31 - 1, 30}
#endif
inline constexpr std::int32_t y = cxmat::q8::requantize(3, r);
