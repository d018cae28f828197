// Mistake: An int8 input of width 8 passed to an int8 linear module that takes d_in = 6 (the weight is [d_out, d_in]).
// Rule: q8::linear_module(x): x is n x d_in of the module.
// Expect: shape_error::q8_linear_x_cols_must_equal_d_in<cxmat::dim<8, cxmat::anonymous> ?, 6>
// Expect-plain: error: static assertion failed: q8::linear_module\(x\): x's columns \(8\) must equal the module's d_in = 6 \(x is n x d_in, the weight \[d_out, d_in\]\)\.
#include <cstdint>

#include <cxmat/quantized/linear.hpp>

constexpr cxmat::q8::linear_module<6, 8> linear{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::int8_t, 3, 8> x{};
#else
constexpr cxmat::matrix<std::int8_t, 3, 6> x{};
#endif
inline constexpr auto y = linear(x);
