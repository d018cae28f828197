// Run-time property tests of cxmat::q8 against an independent reference: TFLite's integer
// arithmetic rewritten plainly with __int128 (tflite_reference.hpp), TFLite's QuantizeMultiplier /
// PreprocessSoftmaxScaling / CalculateInputRadius written here with std::frexp, std::round and
// std::floor, and the real softmax (libm) as a sanity bound.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <cxmat/attention/options.hpp>
#include <cxmat/quantized.hpp>

#include "catch.hpp"
#include "quantized/layer_support.hpp"
#include "quantized/tflite_reference.hpp"

namespace {

namespace q8 = cxmat::q8;
using cxmat::matrix;
constexpr std::int32_t min32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t max32 = std::numeric_limits<std::int32_t>::max();

// TFLite's QuantizeMultiplier, from its documented steps, with libm.
q8::requantizer quantize_multiplier_libm(double real) {
  if (real == 0.0) return {0, 0};
  int shift = 0;
  const double q = std::frexp(real, &shift);
  auto fixed = static_cast<std::int64_t>(std::round(q * static_cast<double>(std::int64_t{1} << 31)));
  if (fixed == (std::int64_t{1} << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {0, 0};
  return {static_cast<std::int32_t>(fixed), shift};
}

// TFLite's PreprocessSoftmaxScaling (5 integer bits) and -CalculateInputRadius, with libm.
q8::softmax_params softmax_params_libm(double scale, double beta) {
  const double real = std::min(beta * scale * static_cast<double>(1 << 26), static_cast<double>(std::int64_t{1} << 31) - 1.0);
  const q8::requantizer r = quantize_multiplier_libm(real);
  const double radius = std::floor(31.0 * static_cast<double>(1 << 26) / std::ldexp(1.0, r.shift));
  return {r.multiplier, r.shift, -static_cast<std::int32_t>(radius)};
}

std::int32_t edge_or_random(std::mt19937_64& rng) {
  static constexpr std::int32_t edges[] = {min32, min32 + 1, -(1 << 30), -3, -1, 0, 1, 3, 1 << 30, max32 - 1, max32};
  std::uniform_int_distribution<int> pick(0, 15);
  const int k = pick(rng);
  if (k < 11) return edges[k];
  std::uniform_int_distribution<std::int32_t> any(min32, max32);
  // Small values too, where ties are frequent.
  return k < 13 ? any(rng) : static_cast<std::int32_t>(any(rng) >> (k * 2));
}

}  // namespace

TEST_CASE("doubling high multiply and rounding shift equal the reference", "[q8][arithmetic]") {
  std::mt19937_64 rng(1);
  for (int t = 0; t < 200000; ++t) {
    const std::int32_t a = edge_or_random(rng), b = edge_or_random(rng);
    REQUIRE(q8::saturating_rounding_doubling_high_mul(a, b) == q8_ref::srdhm(a, b));
    const std::int32_t e = static_cast<std::int32_t>(rng() % 32);
    REQUIRE(q8::rounding_divide_by_pot(a, e) == q8_ref::rdbpot(a, static_cast<int>(e)));
  }
  CHECK(q8::saturating_rounding_doubling_high_mul(min32, min32) == max32);
}

TEST_CASE("requantize equals MultiplyByQuantizedMultiplier for every shift", "[q8][requantize]") {
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<std::int32_t> mult(1 << 30, max32);
  for (int t = 0; t < 200000; ++t) {
    const std::int32_t acc = edge_or_random(rng);
    const q8::requantizer r{t % 7 == 0 ? edge_or_random(rng) : mult(rng), static_cast<std::int32_t>(rng() % 62) - 31};
    REQUIRE(q8::requantize(acc, r) == q8_ref::mbqm(acc, r.multiplier, r.shift));
  }
}

TEST_CASE("quantize_multiplier equals QuantizeMultiplier with frexp and round", "[q8][requantize]") {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> log2(-45.0, 40.0);
  for (int t = 0; t < 100000; ++t) {
    const double real = std::exp2(log2(rng)) * (t % 5 == 0 ? -1.0 : 1.0);
    const q8::requantizer got = q8::quantize_multiplier(real), want = quantize_multiplier_libm(real);
    REQUIRE(got.multiplier == want.multiplier);
    REQUIRE(got.shift == want.shift);
    // The requantizer stands for the real factor within half a unit of its Q31 multiplier.
    if (got.multiplier != 0) REQUIRE(std::abs(q8::real_multiplier(got) / real - 1.0) <= 0x1p-30);
  }
  for (const double real : {0.5, 1.0, 0x1p-31, 0x1p-32, 0x1p-33, 1.0 - 0x1p-40, 0.5 + 0x1p-32, 12345.678, 1e-9}) {
    CHECK(q8::quantize_multiplier(real) == quantize_multiplier_libm(real));
  }
}

TEST_CASE("make_softmax_params equals PreprocessSoftmaxScaling and CalculateInputRadius", "[q8][softmax]") {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> log2(-20.0, 6.0), beta(0.1, 4.0);
  for (int t = 0; t < 20000; ++t) {
    const double s = std::exp2(log2(rng)), b = t % 2 ? 1.0 : beta(rng);
    REQUIRE(q8::make_softmax_params(s, b) == softmax_params_libm(s, b));
  }
}

TEST_CASE("softmax_rows equals arm_softmax_s8's arithmetic and the real softmax within 1 LSB", "[q8][softmax]") {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> value(-128, 127), spread(0, 3);
  std::uniform_real_distribution<double> log2(-9.0, 1.0);
  double worst = 0;
  for (int t = 0; t < 20000; ++t) {
    matrix<std::int8_t, 1, 12> m{};
    const int s = spread(rng);
    for (std::size_t j = 0; j < 12; ++j) {
      // Narrow rows (many equal values), wide rows, and rows with a single outlier.
      const int v = s == 0 ? value(rng) % 4 : (s == 1 ? value(rng) : (j == 0 ? 127 : value(rng) / 8));
      m(0, j) = static_cast<std::int8_t>(v);
    }
    const double scale = std::exp2(log2(rng));
    const q8::softmax_params p = q8::make_softmax_params(scale);
    const auto got = q8::softmax_rows(m, p);
    std::int8_t want[12]{};
    q8_ref::softmax(m.elems[0], want, 12, nullptr, {p.multiplier, p.left_shift, p.diff_min});
    double sum = 0, mx = -1e300;
    for (std::size_t j = 0; j < 12; ++j) mx = std::max(mx, scale * m(0, j));
    for (std::size_t j = 0; j < 12; ++j) sum += std::exp(scale * m(0, j) - mx);
    for (std::size_t j = 0; j < 12; ++j) {
      REQUIRE(got(0, j) == want[j]);
      const double real = std::exp(scale * m(0, j) - mx) / sum;
      worst = std::max(worst, std::abs((got(0, j) + 128) / 256.0 - std::min(real, 255.0 / 256)) * 256);
    }
  }
  INFO("largest distance from the real softmax, in output steps: " << worst);
  CHECK(worst <= 1.0);
}

TEST_CASE("matmul_transposed equals arm_fully_connected_s8's arithmetic", "[q8][matmul]") {
  std::mt19937_64 rng(6);
  std::uniform_int_distribution<int> value(-128, 127), offset(-127, 128), act(-128, 127);
  std::uniform_int_distribution<std::int32_t> bias_value(-100000, 100000);
  std::uniform_real_distribution<double> log2(-16.0, 0.0);
  for (int t = 0; t < 3000; ++t) {
    matrix<std::int8_t, 5, 33> a{};
    matrix<std::int8_t, 7, 33> bt{};
    matrix<std::int32_t, 1, 7> bias{};
    for (std::size_t i = 0; i < 5; ++i) for (std::size_t k = 0; k < 33; ++k) a(i, k) = static_cast<std::int8_t>(value(rng));
    for (std::size_t i = 0; i < 7; ++i) for (std::size_t k = 0; k < 33; ++k) bt(i, k) = static_cast<std::int8_t>(value(rng));
    for (std::size_t j = 0; j < 7; ++j) bias(0, j) = bias_value(rng);
    int lo = act(rng), hi = act(rng);
    if (t % 2 == 0 || lo > hi) lo = -128, hi = 127;
    const q8::matmul_params p{offset(rng), t % 3 == 0 ? 0 : offset(rng), offset(rng) - 1,
                              q8::quantize_multiplier(std::exp2(log2(rng))), lo, hi};
    const auto got = q8::matmul_transposed(a, bt, bias, p);
    const auto got_nobias = q8::matmul_transposed(a, bt, p);
    std::int8_t want[35]{}, want_nobias[35]{};
    std::int8_t af[5 * 33]{}, bf[7 * 33]{};
    q8_test::flatten(a, af), q8_test::flatten(bt, bf);
    const q8_ref::product rp = q8_test::to_ref(p);
    q8_ref::matmul_t(af, bf, bias.elems[0], 5, 7, 33, rp, want);
    q8_ref::matmul_t(af, bf, nullptr, 5, 7, 33, rp, want_nobias);
    for (std::size_t i = 0; i < 5; ++i) {
      for (std::size_t j = 0; j < 7; ++j) {
        REQUIRE(got(i, j) == want[i * 7 + j]);
        REQUIRE(got_nobias(i, j) == want_nobias[i * 7 + j]);
        REQUIRE(got(i, j) >= lo);
        REQUIRE(got(i, j) <= hi);
      }
    }
  }
}

namespace {
// A random float layer, calibrated, and its int8 run compared with the reference, with masks.
template <std::size_t N, std::size_t D, std::size_t H, std::size_t DO>
void check_random_layer(std::uint64_t seed) {
  q8_test::lcg g{seed};
  cxmat::batch<double, 4, N, D> xs{};
  for (auto& x : xs.items) x = q8_test::random_matrix<matrix<double, N, D>>(g, 2.0);
  const auto wq = q8_test::random_matrix<matrix<double, D, D>>(g, 0.6);
  const auto wk = q8_test::random_matrix<matrix<double, D, D>>(g, 0.6);
  const auto wv = q8_test::random_matrix<matrix<double, D, D>>(g, 0.6);
  const auto wo = q8_test::random_matrix<matrix<double, D, DO>>(g, 0.6);
  matrix<bool, N, N> allowed{};
  matrix<bool, 1, N> keep{};
  bool flat_allowed[N * N]{}, flat_causal[N * N]{}, flat_keep[N * N]{};
  for (std::size_t i = 0; i < N; ++i) {
    keep(0, i) = g.next() > -0.5;
    for (std::size_t j = 0; j < N; ++j) {
      allowed(i, j) = g.next() > -0.3;
      flat_allowed[i * N + j] = allowed(i, j);
      flat_causal[i * N + j] = j <= i;
    }
  }
  for (std::size_t i = 0; i < N; ++i) for (std::size_t j = 0; j < N; ++j) flat_keep[i * N + j] = keep(0, j);
  const auto cal = q8::calibrate<H>(xs, wq, wk, wv, wo);
  const auto heads = q8::calibrate<H>(xs, wq, wk, wv, cxmat::causal);
  for (const auto& x : xs.items) {
    const auto x8 = q8::quantize(x, cal.input);
    std::int8_t want[N * DO]{}, want_heads[N * D]{};
    const auto check = [&](const auto& got, const bool* mask) {
      q8_test::run_reference<N, D, H, D / H, D / H, DO>(cal.layer, x8, mask, want);
      for (std::size_t i = 0; i < N; ++i) for (std::size_t j = 0; j < DO; ++j) REQUIRE(got(i, j) == want[i * DO + j]);
    };
    check(q8::multi_head_attention(x8, cal.layer), nullptr);
    check(q8::multi_head_attention(x8, cal.layer, cxmat::mask(allowed)), flat_allowed);
    check(q8::multi_head_attention(x8, cal.layer, cxmat::causal), flat_causal);
    check(q8::multi_head_attention(x8, cal.layer, cxmat::key_padding(keep)), flat_keep);
    const auto x8h = q8::quantize(x, heads.input);
    q8_test::run_reference<N, D, H, D / H, D / H, 0>(heads.layer, x8h, flat_causal, want_heads);
    const auto got = q8::multi_head_attention(x8h, heads.layer, cxmat::causal_lower_right);
    for (std::size_t i = 0; i < N; ++i) for (std::size_t j = 0; j < D; ++j) REQUIRE(got(i, j) == want_heads[i * D + j]);
  }
}
}  // namespace

TEST_CASE("the int8 layer equals the reference layer, with and without masks", "[q8][attention]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    check_random_layer<8, 16, 2, 16>(seed);
    check_random_layer<5, 6, 3, 4>(seed + 100);
    check_random_layer<12, 8, 4, 8>(seed + 200);
  }
}

TEST_CASE("a fully masked query row gives the output zero point", "[q8][attention]") {
  q8_test::lcg g{7};
  cxmat::batch<double, 1, 4, 4> xs{};
  xs.items[0] = q8_test::random_matrix<matrix<double, 4, 4>>(g, 1.0);
  const auto w = q8_test::random_matrix<matrix<double, 4, 4>>(g, 1.0);
  const auto cal = q8::calibrate<2>(xs, w, w, w);
  matrix<bool, 4, 4> allowed{{{1, 1, 1, 1}, {0, 0, 0, 0}, {1, 0, 0, 0}, {1, 1, 1, 1}}};
  const auto y = q8::multi_head_attention(q8::quantize(xs[0], cal.input), cal.layer, cxmat::mask(allowed));
  for (std::size_t j = 0; j < 4; ++j) CHECK(y(1, j) == cal.context.zero_point);
}
