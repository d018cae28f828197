// Mistake: Calibration inputs that are all the same value (a placeholder set, a sensor stuck at one reading).
// Rule: q8::calibrate: every input and computed tensor's range has a width (the tensor is named).
// Expect: calibrate_refuses_zero_width_range_of.*calibration_tensor::input
// Expect-plain: calibrate_refuses_zero_width_range_of.*calibration_tensor::input
#include <cxmat/quantized/linear.hpp>

constexpr cxmat::linear_module<double, 2, 2> lin{{{{1, 0.5}, {-0.25, 1}}}, {{{0, 0.1}}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::batch<double, 2, 2, 2> xs{{{{{0.5, 0.5}, {0.5, 0.5}}}, {{{0.5, 0.5}, {0.5, 0.5}}}}};
#else
constexpr cxmat::batch<double, 2, 2, 2> xs{{{{{0.5, -1}, {2, 0.25}}}, {{{-0.5, 1.5}, {0, 1}}}}};
#endif
constexpr auto cal = cxmat::q8::calibrate(xs, lin);
static_assert(cal.ok());
