// Run-time tests of cxmat::exp and cxmat::sqrt. Built three times (see CMakeLists.txt): with
// the project's flags, with -march=native (FMA available, so GCC would contract a*b+c), and
// with -ffast-math (CXMAT_TEST_FAST_MATH: bitwise identity is not promised there, see
// docs/math.md, so that build checks accuracy and finite special values only).
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "test_support/catch.hpp"
#include "test_support/math_checks.hpp"
#include "test_support/math_hard_floats.hpp"

// The -march=native build must really exercise the FMA hazard: GCC then uses the explicit-fma
// formulation, Clang the contraction-off pragmas with FMA instructions available.
#if defined(CXMAT_TEST_NATIVE) && defined(__FMA__) && !defined(__clang__)
static_assert(CXMAT_DETAIL_EXPLICIT_FMA == 1, "GCC with FMA must use the explicit-fma kernel");
#endif

namespace {

using namespace cxmat_test;

// Opaque copy: the optimizer cannot see the value, so calls on it are really run-time calls.
struct opaque {
  template <class T>
  T operator()(T x) const {
    volatile T v = x;
    return v;
  }
};

#if !defined(CXMAT_TEST_FAST_MATH)
constexpr std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// Inputs for the compile-time/run-time comparison: uniform over the whole exp range, a dense
// softmax-like range, tiny magnitudes, the subnormal-result range, and special values.
template <class T, std::size_t N>
constexpr std::array<T, N> exp_inputs(T lo, T hi) {
  std::array<T, N> xs{};
  std::uint64_t s = 12345;
  for (std::size_t i = 0; i < N; ++i) {
    const auto u = static_cast<T>(static_cast<double>(splitmix(s) >> 11) * 0x1p-53);
    switch (i % 4) {
      case 0:
        xs[i] = lo + (hi - lo) * u;
        break;
      case 1:
        xs[i] = T{-30} * u;
        break;
      case 2:
        xs[i] = (i % 8 == 2 ? T{-1} : T{1}) * u * static_cast<T>(0x1p-20);
        break;
      default:
        xs[i] = lo + T{40} * u;
        break;
    }
  }
  xs[0] = 0;
  xs[1] = -T{0};
  xs[2] = lo;
  xs[3] = hi;
  xs[4] = std::numeric_limits<T>::infinity();
  xs[5] = -std::numeric_limits<T>::infinity();
  xs[6] = std::numeric_limits<T>::denorm_min();
  xs[7] = std::numeric_limits<T>::max();
  return xs;
}

template <class T, std::size_t N>
constexpr std::array<T, N> sqrt_inputs() {
  std::array<T, N> xs{};
  std::uint64_t s = 777;
  for (std::size_t i = 0; i < N; ++i) {
    if constexpr (sizeof(T) == 4) {
      xs[i] = std::bit_cast<T>(static_cast<std::uint32_t>(splitmix(s) % 0x7f800001u));
    } else {
      xs[i] = std::bit_cast<T>(splitmix(s) % 0x7ff0000000000001u);
    }
  }
  return xs;
}

template <class T, std::size_t N, class F>
constexpr std::array<T, N> map(const std::array<T, N>& xs, F f) {
  std::array<T, N> ys{};
  for (std::size_t i = 0; i < N; ++i) ys[i] = f(xs[i]);
  return ys;
}

// Inputs for log, tanh, erf, sin and cos: a quarter each in [-8, 8] (every erf cell, tanh's
// range), [-2^20, 2^20] (the Cody-Waite range of sin/cos), tiny magnitudes, and random bit
// patterns (huge arguments: the Payne-Hanek range). log takes |x|.
template <class T, std::size_t N>
constexpr std::array<T, N> elementary_inputs() {
  std::array<T, N> xs{};
  std::uint64_t s = 4242;
  for (std::size_t i = 0; i < N; ++i) {
    const double u = static_cast<double>(splitmix(s) >> 11) * 0x1p-53 - 0.5;
    switch (i % 4) {
      case 0:
        xs[i] = static_cast<T>(16 * u);
        break;
      case 1:
        xs[i] = static_cast<T>(0x1p21 * u);
        break;
      case 2:
        xs[i] = static_cast<T>(u * 0x1p-20);
        break;
      default:
        if constexpr (sizeof(T) == 4) {
          xs[i] =
              std::bit_cast<T>(static_cast<std::uint32_t>(splitmix(s) % 0x7f800000u) | (i % 8 == 3 ? 0x80000000u : 0u));
        } else {
          xs[i] = static_cast<T>(
              std::bit_cast<double>((splitmix(s) % 0x7ff0000000000000u) | (i % 8 == 3 ? 1ull << 63 : 0)));
        }
        break;
    }
  }
  return xs;
}

constexpr std::size_t n_inputs = 1024;
constexpr auto exp_x_d = exp_inputs<double, n_inputs>(-745.2, 709.9);
constexpr auto exp_x_f = exp_inputs<float, n_inputs>(-104.0f, 88.8f);
constexpr auto exp_x_l = exp_inputs<long double, n_inputs / 4>(-11400.0L, 11357.0L);
constexpr auto sqrt_x_d = sqrt_inputs<double, n_inputs>();
constexpr auto sqrt_x_f = sqrt_inputs<float, n_inputs>();

// Results computed by the compiler, in constant expressions.
constexpr auto exp_ct_d = map(exp_x_d, [](double x) { return cxmat::exp(x); });
constexpr auto exp_ct_f = map(exp_x_f, [](float x) { return cxmat::exp(x); });
constexpr auto exp_ct_l = map(exp_x_l, [](long double x) { return cxmat::exp(x); });
constexpr auto sqrt_ct_d = map(sqrt_x_d, [](double x) { return cxmat::sqrt(x); });
constexpr auto sqrt_ct_f = map(sqrt_x_f, [](float x) { return cxmat::sqrt(x); });

constexpr auto elem_x_d = elementary_inputs<double, n_inputs / 2>();
constexpr auto elem_x_f = elementary_inputs<float, n_inputs / 2>();
constexpr auto elem_x_l = elementary_inputs<long double, n_inputs / 8>();
template <class T>
constexpr T absolute(T x) {
  return x < 0 ? -x : x;
}
#define CXMAT_TEST_ELEMENTARY(name, expr)                                    \
  constexpr auto name##_ct_d = map(elem_x_d, [](double x) { return expr; }); \
  constexpr auto name##_ct_f = map(elem_x_f, [](float x) { return expr; });  \
  constexpr auto name##_ct_l = map(elem_x_l, [](long double x) { return expr; });
CXMAT_TEST_ELEMENTARY(log, cxmat::log(absolute(x)))
CXMAT_TEST_ELEMENTARY(tanh, cxmat::tanh(x))
CXMAT_TEST_ELEMENTARY(erf, cxmat::erf(x))
CXMAT_TEST_ELEMENTARY(sin, cxmat::sin(x))
CXMAT_TEST_ELEMENTARY(cos, cxmat::cos(x))
#undef CXMAT_TEST_ELEMENTARY

// The hardest float inputs (results within 2^-50 of a float rounding boundary): the fallback of
// the float fast paths, computed by the compiler.
template <std::size_t N, class F>
constexpr std::array<float, N> map_list(const float (&xs)[N], F f) {
  std::array<float, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = f(xs[i]);
  return out;
}
template <std::size_t N>
constexpr std::array<float, N> as_array(const float (&xs)[N]) {
  return map_list(xs, [](float x) { return x; });
}
constexpr auto hard_log_ct = map_list(cxmat_test::hard_log_floats, [](float x) { return cxmat::log(x); });
constexpr auto hard_tanh_ct = map_list(cxmat_test::hard_tanh_floats, [](float x) { return cxmat::tanh(x); });
constexpr auto hard_erf_ct = map_list(cxmat_test::hard_erf_floats, [](float x) { return cxmat::erf(x); });
constexpr auto hard_sin_ct = map_list(cxmat_test::hard_sin_floats, [](float x) { return cxmat::sin(x); });
constexpr auto hard_cos_ct = map_list(cxmat_test::hard_cos_floats, [](float x) { return cxmat::cos(x); });

// Counts results that differ bitwise from the compile-time ones, computing the run-time ones
// both one call at a time on opaque values and in a plain loop the compiler may vectorize.
template <class T, std::size_t N, class F>
std::size_t mismatches(const std::array<T, N>& xs, const std::array<T, N>& ct, F f) {
  std::vector<T> in(N), out(N);
  for (std::size_t i = 0; i < N; ++i) in[i] = opaque{}(xs[i]);
  for (std::size_t i = 0; i < N; ++i) out[i] = f(in[i]);  // vectorizable loop
  std::size_t bad = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const T scalar = f(opaque{}(xs[i]));
    if (!same_bits(out[i], ct[i]) || !same_bits(scalar, ct[i])) {
      if (bad == 0) {
        UNSCOPED_INFO("first mismatch at x = " << static_cast<double>(xs[i]));
      }
      ++bad;
    }
  }
  return bad;
}
#endif

}  // namespace

#if !defined(CXMAT_TEST_FAST_MATH)
TEST_CASE("exp and sqrt give the same bits at compile time and at run time", "[math]") {
  SECTION("exp double") {
    CHECK(mismatches(exp_x_d, exp_ct_d, [](double x) { return cxmat::exp(x); }) == 0);
  }
  SECTION("exp float") {
    CHECK(mismatches(exp_x_f, exp_ct_f, [](float x) { return cxmat::exp(x); }) == 0);
  }
  SECTION("exp long double") {
    CHECK(mismatches(exp_x_l, exp_ct_l, [](long double x) { return cxmat::exp(x); }) == 0);
  }
  SECTION("sqrt double") {
    CHECK(mismatches(sqrt_x_d, sqrt_ct_d, [](double x) { return cxmat::sqrt(x); }) == 0);
  }
  SECTION("sqrt float") {
    CHECK(mismatches(sqrt_x_f, sqrt_ct_f, [](float x) { return cxmat::sqrt(x); }) == 0);
  }
}

TEST_CASE("log, tanh, erf, sin and cos give the same bits at compile time and at run time", "[math]"){
#define CXMAT_TEST_ELEMENTARY(name, expr)                                              \
  SECTION(#name) {                                                                     \
    CHECK(mismatches(elem_x_d, name##_ct_d, [](double x) { return expr; }) == 0);      \
    CHECK(mismatches(elem_x_f, name##_ct_f, [](float x) { return expr; }) == 0);       \
    CHECK(mismatches(elem_x_l, name##_ct_l, [](long double x) { return expr; }) == 0); \
  }
    CXMAT_TEST_ELEMENTARY(log, cxmat::log(absolute(x))) CXMAT_TEST_ELEMENTARY(tanh, cxmat::tanh(x))
        CXMAT_TEST_ELEMENTARY(erf, cxmat::erf(x)) CXMAT_TEST_ELEMENTARY(sin, cxmat::sin(x))
            CXMAT_TEST_ELEMENTARY(cos, cxmat::cos(x))
#undef CXMAT_TEST_ELEMENTARY
}

TEST_CASE(
    "log, tanh, erf, sin and cos of floats next to a rounding boundary: the same bits at compile time and at run time",
    "[math]") {
  CHECK(mismatches(as_array(cxmat_test::hard_log_floats), hard_log_ct, [](float x) { return cxmat::log(x); }) == 0);
  CHECK(mismatches(as_array(cxmat_test::hard_tanh_floats), hard_tanh_ct, [](float x) { return cxmat::tanh(x); }) == 0);
  CHECK(mismatches(as_array(cxmat_test::hard_erf_floats), hard_erf_ct, [](float x) { return cxmat::erf(x); }) == 0);
  CHECK(mismatches(as_array(cxmat_test::hard_sin_floats), hard_sin_ct, [](float x) { return cxmat::sin(x); }) == 0);
  CHECK(mismatches(as_array(cxmat_test::hard_cos_floats), hard_cos_ct, [](float x) { return cxmat::cos(x); }) == 0);
}

TEST_CASE("log, tanh, erf, sin and cos special values and reference values at run time", "[math]") {
  CHECK(log_special_values<float>(opaque{}));
  CHECK(log_special_values<double>(opaque{}));
  CHECK(log_special_values<long double>(opaque{}));
  CHECK(tanh_special_values<float>(opaque{}));
  CHECK(tanh_special_values<double>(opaque{}));
  CHECK(tanh_special_values<long double>(opaque{}));
  CHECK(erf_special_values<float>(opaque{}));
  CHECK(erf_special_values<double>(opaque{}));
  CHECK(erf_special_values<long double>(opaque{}));
  CHECK(sin_cos_special_values<float>(opaque{}));
  CHECK(sin_cos_special_values<double>(opaque{}));
  CHECK(sin_cos_special_values<long double>(opaque{}));
  CHECK(is_nan(cxmat::log(opaque{}(-1.0))));
  CHECK(is_nan(cxmat::log(opaque{}(-std::numeric_limits<float>::infinity()))));
  CHECK(is_nan(cxmat::log(opaque{}(-2.0L))));
}

TEST_CASE("exp and sqrt special values at run time", "[math]") {
  CHECK(exp_special_values<float>(opaque{}));
  CHECK(exp_special_values<double>(opaque{}));
  CHECK(exp_special_values<long double>(opaque{}));
  CHECK(exp_thresholds(opaque{}));
  CHECK(sqrt_special_values<float>(opaque{}));
  CHECK(sqrt_special_values<double>(opaque{}));
  CHECK(sqrt_special_values<long double>(opaque{}));
}

TEST_CASE("sqrt of a negative number is NaN at run time", "[math]") {
  CHECK(is_nan(cxmat::sqrt(opaque{}(-1.0))));
  CHECK(is_nan(cxmat::sqrt(opaque{}(-0x1p-1074))));
  CHECK(is_nan(cxmat::sqrt(opaque{}(-2.0f))));
  CHECK(is_nan(cxmat::sqrt(opaque{}(-std::numeric_limits<double>::infinity()))));
  CHECK(is_nan(cxmat::sqrt(opaque{}(-3.0L))));
}
#else
TEST_CASE("exp under -ffast-math: finite special values", "[math]") {
  CHECK(cxmat::exp(opaque{}(0.0)) == 1.0);
  CHECK(cxmat::exp(opaque{}(-1000.0)) == 0.0);
  CHECK(cxmat::exp(opaque{}(1.0)) == 0x1.5bf0a8b145769p+1);
}
#endif

TEST_CASE("exp and sqrt agree with MPFR reference values at run time", "[math]") {
#if defined(CXMAT_TEST_FAST_MATH)
  constexpr bool normal_only = true;  // subnormal results are flushed to zero
#else
  constexpr bool normal_only = false;
#endif
  CHECK(exp_double_references(opaque{}, normal_only));
  CHECK(exp_float_references(opaque{}, normal_only));
  CHECK(exp_long_references(opaque{}, normal_only));
  CHECK(sqrt_double_references(opaque{}, normal_only));
  CHECK(sqrt_float_references(opaque{}, normal_only));
  CHECK(sqrt_long_references(opaque{}, normal_only));
  CHECK(elementary_references(opaque{}, normal_only));
}
