// Mistake: A NaN weight (a diverged training run, a bad export) calibrated in a constant expression.
// Rule: q8::calibrate: every weight and every representative input is finite (the tensor is named).
// Expect: calibrate_refuses_nan_or_infinity_in.*calibration_tensor::wk
// Expect-plain: calibrate_refuses_nan_or_infinity_in.*calibration_tensor::wk
#include <limits>

#include <cxmat/quantized/calibrate.hpp>

constexpr cxmat::matrix<double, 2, 2> W{{{1, 0}, {0, 1}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 2, 2> Wk{{{1, 0}, {std::numeric_limits<double>::quiet_NaN(), 1}}};
#else
constexpr cxmat::matrix<double, 2, 2> Wk{{{1, 0}, {0.5, 1}}};
#endif
constexpr cxmat::batch<double, 1, 3, 2> xs{{{{{1, 2}, {-1, 0.5}, {0, 1}}}}};
constexpr auto cal = cxmat::q8::calibrate<1>(xs, W, Wk, W);
static_assert(cal.ok());
