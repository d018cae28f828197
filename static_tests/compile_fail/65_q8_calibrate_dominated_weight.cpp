// Mistake: A feed-forward weight of 1e6 among weights below 1 (a corrupted export): its scale would round every other weight to 0.
// Rule: q8::calibrate: no tensor's range is set by one value more than CXMAT_Q8_CALIBRATION_DOMINANCE times the next (the tensor is named).
// Expect: calibrate_refuses_range_dominated_by_one_value_of.*calibration_tensor::linear_weight
// Expect-plain: calibrate_refuses_range_dominated_by_one_value_of.*calibration_tensor::linear_weight
#include <cxmat/quantized/linear.hpp>

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::linear_module<double, 2, 2> lin{{{{1e6, 0.5}, {-0.25, 1}}}, {{{0, 0.1}}}};
#else
constexpr cxmat::linear_module<double, 2, 2> lin{{{{1, 0.5}, {-0.25, 1}}}, {{{0, 0.1}}}};
#endif
constexpr cxmat::batch<double, 2, 2, 2> xs{{{{{0.5, -1}, {2, 0.25}}}, {{{-0.5, 1.5}, {0, 1}}}}};
constexpr auto cal = cxmat::q8::calibrate(xs, lin);
static_assert(cal.ok());
