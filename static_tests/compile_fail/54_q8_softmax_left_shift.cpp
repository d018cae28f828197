// Mistake: Softmax parameters written by hand with the left shift negated (a right shift, as CMSIS-NN's shift for products).
// Rule: q8::softmax_params: the left shift is in [0, 31], the multiplier 0 or in [2^30, 2^31) (make_softmax_params).
// Expect: softmax_left_shift_must_be_in_0_to_31
// Expect-plain: softmax_left_shift_must_be_in_0_to_31
#include <cstdint>

#include <cxmat/quantized/softmax.hpp>

constexpr cxmat::matrix<std::int8_t, 1, 3> scores{{{10, 7, 6}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::q8::softmax_params p{1717986918, -23, -248};
#else
constexpr cxmat::q8::softmax_params p{1717986918, 23, -248};  // make_softmax_params(0.1)
#endif
inline constexpr auto probabilities = cxmat::q8::softmax_rows(scores, p);
