// Compile-time checks of cxmat::exp, sqrt, log, tanh, erf, sin and cos (building this file is the test).
#include <type_traits>

#include "test_support/math_checks.hpp"

using namespace cxmat_test;

// Overload resolution picks the argument's precision; integers go to double like std::exp.
static_assert(std::is_same_v<decltype(cxmat::exp(1.0f)), float>);
static_assert(std::is_same_v<decltype(cxmat::exp(1.0)), double>);
static_assert(std::is_same_v<decltype(cxmat::exp(1.0L)), long double>);
static_assert(std::is_same_v<decltype(cxmat::exp(1)), double>);
static_assert(std::is_same_v<decltype(cxmat::sqrt(2.0f)), float>);
static_assert(std::is_same_v<decltype(cxmat::sqrt(2u)), double>);
static_assert(noexcept(cxmat::exp(1.0)) && noexcept(cxmat::sqrt(1.0)));

// A user type's own exp is still found by ADL next to `using cxmat::exp;` (cxmat::exp is not
// an unconstrained template).
namespace user {
struct dual {
  double v;
};
constexpr int exp(dual) { return 42; }
}  // namespace user
constexpr int adl_call() {
  using cxmat::exp;
  return exp(user::dual{1.0});
}
static_assert(adl_call() == 42);
template <class T>
concept cxmat_exp_accepts = requires(T t) {
  cxmat::exp(t);
};
static_assert(cxmat_exp_accepts<double> && cxmat_exp_accepts<int>);
static_assert(!cxmat_exp_accepts<user::dual>);

static_assert(exp_special_values<float>());
static_assert(exp_special_values<double>());
static_assert(exp_special_values<long double>());
static_assert(exp_thresholds());
static_assert(sqrt_special_values<float>());
static_assert(sqrt_special_values<double>());
static_assert(sqrt_special_values<long double>());
static_assert(exp_double_references());
static_assert(exp_float_references());
static_assert(exp_long_references());
static_assert(sqrt_double_references());
static_assert(sqrt_float_references());
static_assert(sqrt_long_references());
static_assert(exp_paths_agree());
static_assert(log_special_values<float>() && log_special_values<double>() && log_special_values<long double>());
static_assert(tanh_special_values<float>() && tanh_special_values<double>() && tanh_special_values<long double>());
static_assert(erf_special_values<float>() && erf_special_values<double>() && erf_special_values<long double>());
static_assert(sin_cos_special_values<float>() && sin_cos_special_values<double>() &&
              sin_cos_special_values<long double>());
static_assert(new_function_values());
static_assert(elementary_references());
static_assert(std::is_same_v<decltype(cxmat::log(1.0f)), float> &&
              std::is_same_v<decltype(cxmat::tanh(1.0L)), long double> &&
              std::is_same_v<decltype(cxmat::erf(1)), double> && std::is_same_v<decltype(cxmat::sin(1u)), double> &&
              std::is_same_v<decltype(cxmat::cos(1.0)), double>);
static_assert(noexcept(cxmat::log(1.0)) && noexcept(cxmat::tanh(1.0)) && noexcept(cxmat::erf(1.0)) && noexcept(
    cxmat::sin(1.0)) && noexcept(cxmat::cos(1.0)));

// Hand-derived: e^1 and sqrt(2) correctly rounded (published digits), exp(ln 2) = 2 within
// 0.52 ulp.
static_assert(cxmat::exp(1.0) == 0x1.5bf0a8b145769p+1);
static_assert(cxmat::exp(1.0f) == 0x1.5bf0a8p+1f);
static_assert(cxmat::sqrt(2.0) == 0x1.6a09e667f3bcdp+0);
static_assert(cxmat::exp(0x1.62e42fefa39efp-1) == 2.0 || cxmat::exp(0x1.62e42fefa39efp-1) == 0x1.fffffffffffffp+0);

// The float fma of constant evaluation (cxmat/math/fp.hpp; Clang's explicit fusion on 32-bit Arm
// uses it), by hand. (1 + 2^-13)(1 - 2^-13) = 1 - 2^-26: fused, minus 1 leaves -2^-26, where the
// rounded product gives 0. (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is halfway between two floats, and
// adding ±2^-70 decides the rounding, which rounding the sum to double first (1 + 2^-70 is 1 in
// double) would lose to the tie-to-even rule: 1 + 2^-11 both ways.
static_assert(cxmat::detail::fused_multiply_add_exact(1 + 0x1p-13f, 1 - 0x1p-13f, -1.0f) == -0x1p-26f);
static_assert((1 + 0x1p-13f) * (1 - 0x1p-13f) - 1.0f == 0.0f);
static_assert(cxmat::detail::fused_multiply_add_exact(1 + 0x1p-12f, 1 + 0x1p-12f, 0x1p-70f) == 1 + 0x1p-11f + 0x1p-23f);
static_assert(cxmat::detail::fused_multiply_add_exact(1 + 0x1p-12f, 1 + 0x1p-12f, -0x1p-70f) == 1 + 0x1p-11f);
static_assert(cxmat::detail::fused_multiply_add_exact(1 + 0x1p-12f, 1 + 0x1p-12f, 0.0f) == 1 + 0x1p-11f);
static_assert(cxmat::detail::fused_multiply_add_exact(-(1 + 0x1p-12f), 1 + 0x1p-12f, -0x1p-70f) ==
              -(1 + 0x1p-11f + 0x1p-23f));
// Infinities pass through.
static_assert(cxmat::detail::fused_multiply_add_exact(__builtin_huge_valf(), 2.0f, 1.0f) == __builtin_huge_valf());
static_assert(cxmat::detail::fused_multiply_add_exact(2.0f, 3.0f, -__builtin_huge_valf()) == -__builtin_huge_valf());
