// Mistake: Softmax parameters written by hand with beta · input_scale in Q5.26 (0.1 · 2^26) as the multiplier.
// Rule: q8::softmax_params: the multiplier is 0 or in [2^30, 2^31), the left shift in [0, 31] (make_softmax_params).
// Expect: softmax_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31
// Expect-plain: softmax_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31
#include <cstdint>

#include <cxmat/quantized/softmax.hpp>

constexpr cxmat::matrix<std::int8_t, 1, 3> scores{{{10, 7, 6}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::q8::softmax_params p{6710886, 0, -248};
#else
constexpr cxmat::q8::softmax_params p = cxmat::q8::make_softmax_params(0.1);  // {1717986918, 23, -248}
#endif
inline constexpr auto probabilities = cxmat::q8::softmax_rows(scores, p);
