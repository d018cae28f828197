// cxmat with a user-defined scalar: Q16.16 fixed point (a 32-bit integer counting 2^-16), the
// number format of microcontrollers without an FPU. The linear algebra needs only the type's
// arithmetic; softmax and attention also call exp(x) and sqrt(x), which they find by
// argument-dependent lookup in the type's namespace (docs/embedded.md lists what a scalar needs).
// The same multi-head attention runs at compile time (static_assert) and at run time, and is
// compared with double.
#include <compare>
#include <concepts>
#include <cstdint>
#include <cstdio>

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/ops/softmax.hpp>

namespace fx {

/// A Q16.16 fixed-point number: value = raw / 65536, range about ±32768, step 1.5e-5.
struct q16 {
  std::int32_t raw = 0;

  constexpr q16() = default;
  /// From an integer (cxmat writes T(0), T(1) and static_cast<T>(n) for sizes).
  template <std::integral I>
  constexpr explicit q16(I n) noexcept : raw(static_cast<std::int32_t>(n) * 65536) {}
  /// From a double, rounded to the nearest step (for constants).
  constexpr explicit q16(double x) noexcept : raw(static_cast<std::int32_t>(x * 65536.0 + (x < 0 ? -0.5 : 0.5))) {}
  static constexpr q16 from_raw(std::int64_t r) noexcept {
    q16 q;
    q.raw = static_cast<std::int32_t>(r);
    return q;
  }
  constexpr explicit operator double() const noexcept { return raw / 65536.0; }

  friend constexpr q16 operator+(q16 a, q16 b) noexcept { return from_raw(std::int64_t{a.raw} + b.raw); }
  friend constexpr q16 operator-(q16 a, q16 b) noexcept { return from_raw(std::int64_t{a.raw} - b.raw); }
  friend constexpr q16 operator-(q16 a) noexcept { return from_raw(-std::int64_t{a.raw}); }
  // Products and quotients rounded to the nearest step.
  friend constexpr q16 operator*(q16 a, q16 b) noexcept {
    return from_raw((std::int64_t{a.raw} * b.raw + (std::int64_t{1} << 15)) >> 16);
  }
  friend constexpr q16 operator/(q16 a, q16 b) noexcept {
    const std::int64_t n = std::int64_t{a.raw} * 65536;
    const std::int64_t half = (b.raw < 0 ? -b.raw : b.raw) / 2;
    return from_raw(((n < 0) == (b.raw < 0) ? n + half : n - half) / b.raw);
  }
  constexpr q16& operator+=(q16 b) noexcept { return *this = *this + b; }
  friend constexpr auto operator<=>(q16, q16) = default;
};

/// e^x in Q16.16: 2^k e^r with x = k ln2 + r, |r| <= ln2/2, e^r by Taylor to degree 6 in 2^-30
/// units. Underflows to 0 below -11.1 (e^x under half a step); softmax only passes x <= 0.
constexpr q16 exp(q16 x) noexcept {
  if (x.raw < -727'000) return q16{};  // x < -11.093
  constexpr std::int64_t one = std::int64_t{1} << 30;
  constexpr std::int64_t ln2 = 744'261'118;  // ln 2 * 2^30
  const std::int64_t x30 = std::int64_t{x.raw} << 14;
  const std::int64_t k = (x30 >= 0 ? x30 + ln2 / 2 : x30 - ln2 / 2) / ln2;
  const std::int64_t r = x30 - k * ln2;
  std::int64_t term = one;
  std::int64_t sum = one;
  for (std::int64_t i = 1; i <= 6; ++i) {
    term = (term * r / one) / i;
    sum += term;
  }
  const std::int64_t shift = 14 - k;  // from 2^-30 units to 2^-16, times 2^k
  return q16::from_raw(shift >= 0 ? (sum + (std::int64_t{1} << shift >> 1)) >> shift : sum << -shift);
}

/// √x in Q16.16 for x >= 0 (0 otherwise): the integer square root of raw * 2^16.
constexpr q16 sqrt(q16 x) noexcept {
  if (x.raw <= 0) return q16{};
  const std::uint64_t n = static_cast<std::uint64_t>(x.raw) << 16;
  std::uint64_t r = n;
  std::uint64_t y = (r + 1) / 2;
  while (y < r) {
    r = y;
    y = (r + n / r) / 2;
  }
  return q16::from_raw(static_cast<std::int64_t>(r));
}

}  // namespace fx

namespace {

using fx::q16;
constexpr std::size_t n = 4, d = 4, heads = 2;

template <class T, std::size_t R, std::size_t C>
constexpr cxmat::matrix<T, R, C> converted(const double (&values)[R][C]) {
  cxmat::matrix<T, R, C> m{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) m(i, j) = T(values[i][j]);
  }
  return m;
}

template <class T>
constexpr cxmat::matrix<T, n, d> input() {
  constexpr double x[n][d] = {
      {0.5, -1.0, 0.25, 2.0}, {1.5, 0.75, -0.5, 0.0}, {-0.25, 0.5, 1.0, -1.5}, {0.0, 1.25, -0.75, 0.5}};
  return converted<T>(x);
}

template <class T>
constexpr cxmat::matrix<T, d, d> weight(double a, double b) {
  cxmat::matrix<T, d, d> w{};
  for (std::size_t i = 0; i < d; ++i) {
    for (std::size_t j = 0; j < d; ++j) {
      const double s = static_cast<double>((i * 3 + j * 5) % 7) - 3.0;
      w(i, j) = T(a * s + (i == j ? b : 0.0));
    }
  }
  return w;
}

template <class T>
constexpr cxmat::matrix<T, n, d> layer(const cxmat::matrix<T, n, d>& x) {
  return cxmat::multi_head_attention<heads>(x, weight<T>(0.25, 0.5), weight<T>(-0.2, 0.25), weight<T>(0.15, 1.0),
                                            weight<T>(0.1, 0.75));
}

// Largest |fixed - double| over a result.
template <class F, class D>
constexpr double largest_difference(const F& fixed, const D& exact) {
  double worst = 0.0;
  for (std::size_t i = 0; i < F::rows; ++i) {
    for (std::size_t j = 0; j < F::cols; ++j) {
      const double e = static_cast<double>(fixed(i, j)) - exact(i, j);
      worst = e > worst ? e : (-e > worst ? -e : worst);
    }
  }
  return worst;
}

// The whole layer in fixed point, by the compiler, within 1e-4 of double (3.2e-5 measured): steps
// of 1.5e-5 rounded through products of four terms, exp, and a division per weight. Integer
// arithmetic: every compiler gets the same bits.
constexpr auto fixed_at_compile_time = layer(input<q16>());
static_assert(largest_difference(fixed_at_compile_time, layer(input<double>())) < 1e-4);

// Softmax in fixed point: a row of weights still sums to 1 within a few steps.
constexpr double scores[1][4] = {{1.0, 2.0, -0.5, 0.25}};
constexpr auto weights = cxmat::softmax_rows(converted<q16>(scores));
static_assert(weights(0, 0) + weights(0, 1) + weights(0, 2) + weights(0, 3) - q16(1) < q16(4e-5) &&
              q16(1) - (weights(0, 0) + weights(0, 1) + weights(0, 2) + weights(0, 3)) < q16(4e-5));

}  // namespace

int main() {
  // The same layer at run time, on an input the compiler cannot see.
  auto x = input<q16>();
  volatile std::int32_t raw = x(0, 0).raw;
  x(0, 0) = q16::from_raw(raw);
  const auto at_run_time = layer(x);
  const auto exact = layer(input<double>());

  std::printf("multi-head attention in Q16.16 (run time) vs double:\n");
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) {
      std::printf(" %9.5f (%9.5f)", static_cast<double>(at_run_time(i, j)), exact(i, j));
    }
    std::printf("\n");
  }
  const double error = largest_difference(at_run_time, exact);
  std::printf("largest difference: %.2e; run time equals compile time: %s\n", error,
              at_run_time == fixed_at_compile_time ? "yes" : "no");
  // Fixed point has no rounding mode or fused multiply-add to differ in: the two paths agree
  // to the bit.
  return (error < 1e-4 && at_run_time == fixed_at_compile_time) ? 0 : 1;
}
