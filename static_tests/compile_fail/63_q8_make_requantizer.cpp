// Mistake: A requantizer copied by hand from a model, its multiplier written as round(0.1 · 2^31) with shift 0.
// Rule: q8::make_requantizer: hand-written requantizers are checked where they are made (multiplier 0 or in [2^30, 2^31)).
// Expect: requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude
// Expect-plain: requantizer_multiplier_must_be_0_or_in_2_pow_30_to_2_pow_31_in_magnitude
#include <cxmat/quantized/requantize.hpp>

#ifdef CXMAT_COMPILE_FAIL
constexpr auto r = cxmat::q8::make_requantizer(214748365, 0);
#else
constexpr auto r = cxmat::q8::make_requantizer(1717986918, -3);  // quantize_multiplier(0.1)
#endif
static_assert(r.ok());
