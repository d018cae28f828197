// Run-time property tests of cxmat::q8 against an independent reference: TFLite's integer
// arithmetic rewritten plainly with __int128 (tflite_reference.hpp), TFLite's QuantizeMultiplier /
// PreprocessSoftmaxScaling / CalculateInputRadius written here with std::frexp, std::round and
// std::floor, and the real softmax (libm) as a sanity bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include <cxmat/cxmat.hpp>
#include <cxmat/quantized.hpp>

#include "test_support/catch.hpp"
#include "test_support/layer_support.hpp"
#include "test_support/tflite_reference.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

namespace q8 = cxmat::q8;
using cxmat::matrix;
constexpr std::int32_t min32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t max32 = std::numeric_limits<std::int32_t>::max();

// TFLite's QuantizeMultiplier, from its documented steps, with libm (unsaturated: the double-
// rounding build, whose shifts the softmax parameters use).
q8::requantizer quantize_multiplier_unsaturated_libm(double real) {
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

// With the saturation of TFLite's single-rounding build: a shift above 30 becomes
// {2^31 - 1, 30} (its sign kept for negative factors, which that build does not take).
q8::requantizer quantize_multiplier_libm(double real) {
  const q8::requantizer r = quantize_multiplier_unsaturated_libm(real);
  if (r.shift <= 30) return r;
  return {r.multiplier < 0 ? -max32 : max32, 30};
}

// TFLite's PreprocessSoftmaxScaling (5 integer bits) and -CalculateInputRadius, with libm.
q8::softmax_params softmax_params_libm(double scale, double beta) {
  const double real =
      std::min(beta * scale * static_cast<double>(1 << 26), static_cast<double>(std::int64_t{1} << 31) - 1.0);
  const q8::requantizer r = quantize_multiplier_unsaturated_libm(real);
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

// The multipliers a requantizer may hold, stated in 64-bit arithmetic: 0, or |m| in [2^30, 2^31).
bool normalized(std::int32_t m) {
  const std::int64_t a = m < 0 ? -std::int64_t{m} : std::int64_t{m};
  return a == 0 || (a >= (std::int64_t{1} << 30) && a < (std::int64_t{1} << 31));
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
    // A multiplier that is not normalized (edge_or_random's 1, 3, INT32_MIN ...) is TFLite's
    // arithmetic too (make_requantizer and q8::check refuse it where it is made).
    REQUIRE(q8::requantize(acc, r) == q8_ref::mbqm(acc, r.multiplier, r.shift));
    REQUIRE(q8::make_requantizer(r.multiplier, r.shift).ok() == normalized(r.multiplier));
  }
  // Left shifts whose acc · 2^shift overflows int32 saturate (TFLite's int32 product would wrap):
  // 4 · 2^30 · 0.5 = 2^31, one past INT32_MAX, and -4 · 2^30 · 0.5 = INT32_MIN exactly.
  CHECK(q8::requantize(4, {1 << 30, 30}) == max32);
  CHECK(q8::requantize(-4, {1 << 30, 30}) == min32);
  CHECK(q8::requantize(-5, {1 << 30, 30}) == min32);
  CHECK(q8::requantize(3, {1 << 30, 30}) == 3 << 29);  // 1.5 · 2^30 fits: exact
  CHECK(q8::requantize(max32, {max32, 30}) == max32);
  CHECK(q8::requantize(1 << 29, {1 << 30, 3}) == max32);
  CHECK(q8::requantize((1 << 29) + 1, {1 << 30, 2}) == (1 << 30) + 2);  // acc · 4 overflows, the result fits
  for (std::int32_t shift = 1; shift <= 30; ++shift) {
    for (const std::int32_t acc : {min32, -1000000, -3, -1, 0, 1, 2, 77, 1 << 20, max32}) {
      for (const std::int32_t m : {1 << 30, 1717986918, max32, -(1 << 30), -max32, 214748365}) {
        REQUIRE(q8::requantize(acc, {m, shift}) == q8_ref::mbqm(acc, m, shift));
      }
    }
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
    // The requantizer stands for the real factor within half a unit of its Q31 multiplier (below
    // the saturation at 2^30).
    if (got.multiplier != 0 && std::abs(real) < 0x1p30)
      REQUIRE(std::abs(q8::real_multiplier(got) / real - 1.0) <= 0x1p-30);
  }
  for (const double real : {0.5, 1.0, 0x1p-31, 0x1p-32, 0x1p-33, 1.0 - 0x1p-40, 0.5 + 0x1p-32, 12345.678, 1e-9, 0x1p29,
                            0x1p30, 1e12, -1e12, 1e300}) {
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
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t k = 0; k < 33; ++k) a(i, k) = static_cast<std::int8_t>(value(rng));
    for (std::size_t i = 0; i < 7; ++i)
      for (std::size_t k = 0; k < 33; ++k) bt(i, k) = static_cast<std::int8_t>(value(rng));
    for (std::size_t j = 0; j < 7; ++j) bias(0, j) = bias_value(rng);
    int lo = act(rng), hi = act(rng);
    if (t % 2 == 0 || lo > hi) lo = -128, hi = 127;
    const q8::matmul_params p{
        offset(rng), t % 3 == 0 ? 0 : offset(rng), offset(rng) - 1, q8::quantize_multiplier(std::exp2(log2(rng))), lo,
        hi};
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
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) flat_keep[i * N + j] = keep(0, j);
  const auto cal = q8::calibrate<H>(xs, wq, wk, wv, wo);
  const auto heads = q8::calibrate<H>(xs, wq, wk, wv, cxmat::causal);
  for (const auto& x : xs.items) {
    const auto x8 = q8::quantize(x, cal.input);
    std::int8_t want[N * DO]{}, want_heads[N * D]{};
    const auto check = [&](const auto& got, const bool* mask) {
      q8_test::run_reference<N, D, H, D / H, D / H, DO>(cal.layer, x8, mask, want);
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < DO; ++j) REQUIRE(got(i, j) == want[i * DO + j]);
    };
    check(q8::multi_head_attention(x8, cal.layer), nullptr);
    check(q8::multi_head_attention(x8, cal.layer, cxmat::mask(allowed)), flat_allowed);
    {
      std::int8_t probs[H * N * N]{};
      q8_test::run_reference<N, D, H, D / H, D / H, DO>(cal.layer, x8, flat_allowed, want, probs);
      const auto got = q8::attention_probabilities(x8, cal.layer, cxmat::mask(allowed));
      for (std::size_t h = 0; h < H; ++h) {
        for (std::size_t i = 0; i < N; ++i) {
          for (std::size_t j = 0; j < N; ++j) REQUIRE(got(h, i, j) == probs[(h * N + i) * N + j]);
        }
      }
    }
    check(q8::multi_head_attention(x8, cal.layer, cxmat::causal), flat_causal);
    {
      // K and V in the caller's workspace, which holds garbage first.
      q8::workspace_for<std::remove_cvref_t<decltype(cal.layer)>, N> ws;
      std::memset(&ws, 0xA5, sizeof ws);
      check(q8::multi_head_attention(x8, cal.layer, ws, cxmat::causal), flat_causal);
      check(q8::multi_head_attention(x8, cal.layer, ws), nullptr);
    }
    check(q8::multi_head_attention(x8, cal.layer, cxmat::key_padding(keep)), flat_keep);
    const auto x8h = q8::quantize(x, heads.input);
    q8_test::run_reference<N, D, H, D / H, D / H, 0>(heads.layer, x8h, flat_causal, want_heads);
    const auto got = q8::multi_head_attention(x8h, heads.layer, cxmat::causal_lower_right);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < D; ++j) REQUIRE(got(i, j) == want_heads[i * D + j]);
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

namespace {
// TFLite's ChooseQuantizationParams for int8 (qmin -128, qmax 127), with libm.
q8::quantization choose_libm(double rmin, double rmax) {
  rmin = std::min(rmin, 0.0);
  rmax = std::max(rmax, 0.0);
  if (rmin == rmax) return {1.0, 0};
  const double scale = (rmax - rmin) / 255.0;
  const double zp_min = -128.0 - rmin / scale, zp_max = 127.0 - rmax / scale;
  const double err_min = 128.0 + std::abs(rmin / scale), err_max = 127.0 + std::abs(rmax / scale);
  const double zp = err_min < err_max ? zp_min : zp_max;
  return {scale, static_cast<std::int32_t>(zp < -128 ? -128 : (zp > 127 ? 127 : std::round(zp)))};
}
}  // namespace

TEST_CASE("choose_quantization, quantize and dequantize follow TFLite's formulas", "[q8][quantize]") {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(-10.0, 10.0);
  for (int t = 0; t < 20000; ++t) {
    double lo = u(rng), hi = u(rng);
    if (lo > hi) std::swap(lo, hi);
    const q8::quantization q = q8::choose_quantization(lo, hi), want = choose_libm(lo, hi);
    REQUIRE(q.scale == want.scale);
    REQUIRE(q.zero_point == want.zero_point);
    matrix<double, 1, 4> m{{{lo, hi, u(rng), 0.0}}};
    const auto m8 = q8::quantize(m, q);
    const auto back = q8::dequantize(m8, q);
    for (std::size_t j = 0; j < 4; ++j) {
      const double r = std::round(m(0, j) / q.scale) + q.zero_point;
      REQUIRE(m8(0, j) == static_cast<std::int8_t>(std::clamp(r, -128.0, 127.0)));
      // Inside the range, the round trip is within half a step.
      if (m(0, j) >= std::min(lo, 0.0) && m(0, j) <= std::max(hi, 0.0)) {
        REQUIRE(std::abs(back(0, j) - m(0, j)) <= 0.5 * q.scale * (1 + 1e-12));
      }
    }
    REQUIRE(q8::dequantize(q8::quantize(matrix<double, 1, 1>{}, q), q)(0, 0) == 0.0);  // 0 is exact
  }
  CHECK(q8::choose_symmetric_quantization(2.54) == q8::quantization{0.02, 0});
  CHECK(q8::quantize_bias(matrix<double, 1, 3>{{{0.25, -0.25, 1e12}}}, 0.5) ==
        matrix<std::int32_t, 1, 3>{{{1, -1, max32}}});  // ties away from zero, saturated
}

TEST_CASE("calibrate derives every parameter from the float layer's ranges", "[q8][calibrate]") {
  // Worksheet 004 with W_o, one input; ranges recomputed here with the float API.
  using namespace worksheet_data::ws004;
  q8_test::lcg g{3};
  const auto Wo = q8_test::random_matrix<matrix<double, 6, 6>>(g, 1.0);
  const cxmat::batch<double, 1, 5, 6> set{{X}};
  const auto cal = q8::calibrate<3>(set, Wq, Wk, Wv, Wo);
  const auto range_of = [](const auto& m) {
    double lo = m(0, 0), hi = m(0, 0);
    for (std::size_t i = 0; i < m.rows; ++i)
      for (std::size_t j = 0; j < m.cols; ++j) lo = std::min(lo, m(i, j)), hi = std::max(hi, m(i, j));
    return choose_libm(lo, hi);
  };
  const auto max_abs = [](const auto& m) {
    double a = 0;
    for (std::size_t i = 0; i < m.rows; ++i)
      for (std::size_t j = 0; j < m.cols; ++j) a = std::max(a, std::abs(m(i, j)));
    return q8::quantization{a / 127.0, 0};
  };
  const auto Q = X * Wq, K = X * Wk, V = X * Wv;
  const auto C = cxmat::multi_head_attention<3>(X, Wq, Wk, Wv), Y = C * Wo;
  double slo = 1e300, shi = -1e300;  // the scaled scores Q_h·K_hᵀ / √2 of the three heads
  const auto S0 = cxmat::attention_scores(cxmat::column_block<0, 3>(Q), cxmat::column_block<0, 3>(K));
  const auto S1 = cxmat::attention_scores(cxmat::column_block<1, 3>(Q), cxmat::column_block<1, 3>(K));
  const auto S2 = cxmat::attention_scores(cxmat::column_block<2, 3>(Q), cxmat::column_block<2, 3>(K));
  for (const auto* s : {&S0, &S1, &S2}) {
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 5; ++j) slo = std::min(slo, (*s)(i, j)), shi = std::max(shi, (*s)(i, j));
  }
  const auto near = [](q8::quantization a, q8::quantization b) {
    return std::abs(a.scale / b.scale - 1) < 1e-12 && a.zero_point == b.zero_point;
  };
  CHECK(near(cal.input, range_of(X)));
  CHECK(near(cal.query, range_of(Q)));
  CHECK(near(cal.key, range_of(K)));
  CHECK(near(cal.value, range_of(V)));
  CHECK(near(cal.scores, choose_libm(slo, shi)));
  CHECK(near(cal.context, range_of(C)));
  CHECK(near(cal.output, range_of(Y)));
  CHECK(near(cal.wq, max_abs(Wq)));
  CHECK(near(cal.wo, max_abs(Wo)));
  // Weights in TFLite's [out, in] layout, rounded half away from zero.
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 6; ++j) {
      CHECK(cal.layer.wq(j, i) == static_cast<std::int8_t>(std::round(Wq(i, j) / cal.wq.scale)));
      CHECK(cal.layer.wo(j, i) == static_cast<std::int8_t>(std::round(Wo(i, j) / cal.wo.scale)));
    }
  }
  // Multipliers: the products' real factors, 1/√d_k in the scores', softmax from the scores' scale.
  const auto m = [](double real) { return quantize_multiplier_libm(real); };
  CHECK(cal.layer.query.output == m(cal.input.scale * cal.wq.scale / cal.query.scale));
  CHECK(cal.layer.value.output == m(cal.input.scale * cal.wv.scale / cal.value.scale));
  CHECK(cal.layer.scores.output == m(cal.query.scale * cal.key.scale / std::sqrt(2.0) / cal.scores.scale));
  CHECK(cal.layer.context.output == m(cal.value.scale / 256.0 / cal.context.scale));
  CHECK(cal.layer.output.output == m(cal.context.scale * cal.wo.scale / cal.output.scale));
  CHECK(cal.layer.softmax == softmax_params_libm(cal.scores.scale, 1.0));
  CHECK(cal.layer.query.lhs_offset == -cal.input.zero_point);
  CHECK(cal.layer.scores.lhs_offset == -cal.query.zero_point);
  CHECK(cal.layer.scores.rhs_offset == -cal.key.zero_point);
  CHECK(cal.layer.context.lhs_offset == 128);
  CHECK(cal.layer.context.rhs_offset == -cal.value.zero_point);
  CHECK(cal.layer.output.output_offset == cal.output.zero_point);
}

// Values TFLite cannot represent: every result is defined (this file runs under UBSan in the
// sanitized configuration) and documented.
TEST_CASE("refused values give documented results, never undefined behaviour", "[q8][refuse]") {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  SECTION("quantize_multiplier: non-finite factors are {0, 0}, shifts stay in [-31, 30]") {
    CHECK(q8::quantize_multiplier(nan) == q8::requantizer{0, 0});
    CHECK(q8::quantize_multiplier(inf) == q8::requantizer{0, 0});
    CHECK(q8::quantize_multiplier(-inf) == q8::requantizer{0, 0});
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> log2(-1000.0, 1000.0);
    for (int t = 0; t < 10000; ++t) {
      const q8::requantizer r = q8::quantize_multiplier(std::exp2(log2(rng)));
      REQUIRE(r.shift >= -31);
      REQUIRE(r.shift <= 30);
    }
  }
  SECTION("requantize computes a shift outside [-31, 30] exactly, saturated: never a clamp") {
    std::mt19937_64 rng(10);
    for (int t = 0; t < 10000; ++t) {
      const std::int32_t acc = edge_or_random(rng), m = edge_or_random(rng);
      const auto shift = static_cast<std::int32_t>(rng() % 200) - 100;
      REQUIRE(q8::requantize(acc, {m, shift}) == q8_ref::mbqm_any_shift(acc, m, shift));
    }
    for (const std::int32_t shift : {31, 32, 40, 61, 62, 63, 64, 100, max32, -32, -33, -64, min32}) {
      for (const std::int32_t acc : {min32, -7, -1, 0, 1, 7, max32}) {
        for (const std::int32_t m : {0, 1, -1, 1 << 30, max32, min32, 214748365}) {
          REQUIRE(q8::requantize(acc, {m, shift}) == q8_ref::mbqm_any_shift(acc, m, shift));
        }
      }
    }
    CHECK(q8::requantize(7, {1 << 30, 40}) == max32);  // 7 · 2^30 · 2^(40 - 31), saturated
    CHECK(q8::requantize(1, {1, 31}) == 1);            // 1 · 1 · 2^0
    CHECK(q8::requantize(-1, {1 << 30, 62}) == min32);
    CHECK(q8::requantize(max32, {max32, -32}) == 0);
    CHECK(q8::requantize(max32, {max32, min32}) == 0);
  }
  SECTION("a multiplier that is not normalized: TFLite's arithmetic, refused where it is made") {
    // 0.1 · 2^31 with shift 0: not what QuantizeMultiplier makes (it gives {1717986918, -3}), but
    // TFLite's formula is defined for it: 1000 · 0.1 = 100 (formerly 0, a silent wrong result).
    CHECK(q8::requantize(1000, {214748365, 0}) == 100);
    CHECK(q8::requantize(1000, {214748365, 0}) == q8_ref::mbqm(1000, 214748365, 0));
    const q8::checked_requantizer made = q8::make_requantizer(214748365, 0);
    CHECK_FALSE(made.ok());
    CHECK(made.status == q8::requantizer_status::multiplier_not_normalized);
    CHECK(made.value == q8::requantizer{0, 0});
    for (const std::int32_t m : {1, -1, 3, 12345, (1 << 30) - 1, -(1 << 30) + 1, min32}) {
      CHECK_FALSE(q8::valid_requantizer({m, 0}));
      CHECK(q8::make_requantizer(m, 0).status == q8::requantizer_status::multiplier_not_normalized);
      for (const std::int32_t acc : {0, 1, -1, 1000, min32, max32}) {
        for (const std::int32_t shift : {-31, -1, 0, 1, 30}) {
          REQUIRE(q8::requantize(acc, {m, shift}) == q8_ref::mbqm(acc, m, shift));
        }
      }
    }
    for (const std::int32_t shift : {31, 40, -32, max32, min32}) {
      CHECK(q8::make_requantizer(1 << 30, shift).status == q8::requantizer_status::shift_out_of_range);
      CHECK(q8::make_requantizer(1 << 30, shift).value == q8::requantizer{0, 0});
    }
    // The multiplier is reported first when both are wrong.
    CHECK(q8::make_requantizer(5, 40).status == q8::requantizer_status::multiplier_not_normalized);
    // The edges that stay: 2^30, 2^31 - 1 and their negatives, 0, and shifts -31 and 30.
    for (const std::int32_t m : {0, 1 << 30, max32, -(1 << 30), -max32}) {
      for (const std::int32_t shift : {-31, -3, 0, 30}) {
        const q8::checked_requantizer r = q8::make_requantizer(m, shift);
        REQUIRE(r.ok());
        REQUIRE(r.value == q8::requantizer{m, shift});
        REQUIRE(q8::requantize(123456, r.value) == q8_ref::mbqm(123456, m, shift));
      }
    }
    // A product with a hand-written multiplier that is not normalized: the reference's result.
    const matrix<std::int8_t, 2, 3> a{{{1, -2, 3}, {127, -128, 0}}};
    const matrix<std::int8_t, 2, 3> bt{{{4, 5, 6}, {-7, 8, -9}}};
    const matrix<std::int32_t, 1, 2> bias{{{100, -100}}};
    const q8::matmul_params p{1, -2, 3, {214748365, 0}}, relu{1, -2, 3, {214748365, 4}, 5, 127};
    for (const q8::matmul_params& params : {p, relu}) {
      matrix<std::int8_t, 2, 2> want{}, want_bias{};
      const q8_ref::product rp{params.lhs_offset,        params.rhs_offset,   params.output_offset,
                               params.output.multiplier, params.output.shift, params.activation_min,
                               params.activation_max};
      q8_ref::matmul_t(&a.elems[0][0], &bt.elems[0][0], nullptr, 2, 2, 3, rp, &want.elems[0][0]);
      q8_ref::matmul_t(&a.elems[0][0], &bt.elems[0][0], bias.elems[0], 2, 2, 3, rp, &want_bias.elems[0][0]);
      CHECK(q8::matmul_transposed(a, bt, params) == want);
      CHECK(q8::matmul_transposed(a, bt, bias, params) == want_bias);
    }
    // By hand: (1 + 1)(4 - 2) + (-2 + 1)(5 - 2) + (3 + 1)(6 - 2) = 4 - 3 + 16 = 17, + 100 = 117,
    // · 0.1 = 11.7 -> 12, + 3 = 15.
    CHECK(q8::matmul_transposed(a, bt, bias, p).elems[0][0] == 15);
  }
  SECTION("softmax refuses a multiplier out of range, clamps the shift, and keeps diff_min in range") {
    const matrix<std::int8_t, 1, 4> row{{{10, 7, 6, -128}}};
    const auto ref = [&](q8_ref::softmax_p rp) {
      matrix<std::int8_t, 1, 4> want{};
      q8_ref::softmax(row.elems[0], want.elems[0], 4, nullptr, rp);
      return want;
    };
    // A negative multiplier counts as 0: every entry from diff_min up has exp(0), equal shares. By
    // hand: three entries, 256/3 = 85.3 steps each, -128 + 85 = -43; the fourth is cut off (d = -138).
    for (const std::int32_t m : {-(1 << 30), min32, -1}) {
      CHECK_FALSE(q8::valid_softmax_params({m, 20, -4}));
      CHECK(q8::softmax_rows(row, {m, 20, -4}) == matrix<std::int8_t, 1, 4>{{{-43, -43, -43, -128}}});
      CHECK(q8::softmax_rows(row, {m, 20, -4}) == ref({0, 20, -4}));
    }
    // A positive one below 2^30 is TFLite's arithmetic as it stands.
    for (const std::int32_t m : {1, 12345, (1 << 30) - 1}) {
      CHECK_FALSE(q8::valid_softmax_params({m, 20, -4}));
      CHECK(q8::softmax_rows(row, {m, 20, -4}) == ref({m, 20, -4}));
    }
    // A left shift outside [0, 31] is clamped (31 keeps only d >= -(2^31 - 1) / 2^31, i.e. d = 0).
    CHECK(q8::softmax_rows(row, {1 << 30, 40, -200}) == ref({1 << 30, 31, 0}));
    CHECK(q8::softmax_rows(row, {1 << 30, -5, -200}) == ref({1 << 30, 0, -200}));
    // diff_min below -(2^31 - 1) / 2^left would let d · 2^left wrap (here d = -138, left 24, and
    // 138 · 2^24 > 2^31): such entries take no part, as below -(2^31 - 1) / 2^24 = -127.
    CHECK(q8::softmax_rows(row, {max32, 24, min32}) == ref({max32, 24, -127}));
    // A positive diff_min would cut off the maximum too (sum 0, an undefined shift in the
    // reciprocal before this check): it counts as 0.
    CHECK(q8::softmax_rows(row, {1 << 30, 20, 5}) == ref({1 << 30, 20, 0}));
    CHECK(q8::softmax_rows(row, {1 << 30, 20, 5}) == matrix<std::int8_t, 1, 4>{{{127, -128, -128, -128}}});
  }
  SECTION("NaN quantizes to the zero point; non-finite ranges are not valid quantizations") {
    const matrix<double, 1, 4> m{{{nan, inf, -inf, 1.0}}};
    CHECK(q8::quantize(m, {0.5, 3}) == matrix<std::int8_t, 1, 4>{{{3, 127, -128, 5}}});
    CHECK(q8::quantize(m, {nan, 3}) == matrix<std::int8_t, 1, 4>{{{3, 3, 3, 3}}});
    CHECK(q8::quantize_bias(m, 0.5) == matrix<std::int32_t, 1, 4>{{{0, max32, min32, 2}}});
    CHECK_FALSE(q8::valid(q8::choose_quantization(nan, 1.0)));
    CHECK_FALSE(q8::valid(q8::choose_quantization(-1.0, inf)));
    CHECK_FALSE(q8::valid(q8::choose_quantization(-1e308, 1e308)));  // the width overflows
    CHECK_FALSE(q8::valid(q8::choose_symmetric_quantization(nan)));
    CHECK_FALSE(q8::valid(q8::choose_symmetric_quantization(-inf)));
    CHECK_FALSE(q8::valid({0.0, 0}));
    CHECK_FALSE(q8::valid({1.0, 128}));
    CHECK(q8::valid(q8::choose_quantization(-1.0, 2.0)));
    CHECK(q8::make_softmax_params(nan) == q8::softmax_params{0, 0, 0});
    CHECK(q8::make_softmax_params(-1.0) == q8::softmax_params{0, 0, 0});
    CHECK(q8::make_softmax_params(0.1, nan) == q8::softmax_params{0, 0, 0});
  }
  SECTION("calibrate names a NaN or infinite input or weight, and a range that overflows") {
    // Worksheet 004 with W_o = W_q: the shapes of the test above (one instantiation of calibrate).
    using namespace worksheet_data::ws004;
    const cxmat::batch<double, 1, 5, 6> set{{X}};
    const auto good = q8::calibrate<3>(set, Wq, Wk, Wv, Wq);
    CHECK(good.ok());
    CHECK(good.tensor == q8::calibration_tensor::none);

    auto bad_x = set;
    bad_x(0, 2, 3) = nan;
    const auto c1 = q8::calibrate<3>(bad_x, Wq, Wk, Wv, Wq);
    CHECK(c1.status == q8::calibration_status::non_finite_input);
    CHECK((c1.tensor == q8::calibration_tensor::input && c1.item == 0 && c1.row == 2 && c1.col == 3));
    CHECK(c1.layer.wq == matrix<std::int8_t, 6, 6>{});  // nothing is computed from a refused tensor

    auto wk = Wk;
    wk(4, 1) = -inf;
    const auto c2 = q8::calibrate<3>(set, Wq, wk, Wv, Wq);
    CHECK(c2.status == q8::calibration_status::non_finite_weight);
    CHECK((c2.tensor == q8::calibration_tensor::wk && c2.row == 4 && c2.col == 1));

    auto wo = Wq;
    wo(0, 5) = nan;
    const auto c3 = q8::calibrate<3>(set, Wq, Wk, Wv, wo);
    CHECK((c3.status == q8::calibration_status::non_finite_weight && c3.tensor == q8::calibration_tensor::wo));
    CHECK((c3.row == 0 && c3.col == 5));

    // Finite weights whose products leave double's range: Q = X·Wq overflows.
    auto huge = Wq;
    huge(0, 0) = 1e308, huge(1, 0) = 1e308;
    const auto c4 = q8::calibrate<3>(set, huge, Wk, Wv, Wq);
    CHECK((c4.status == q8::calibration_status::non_finite_range && c4.tensor == q8::calibration_tensor::query));
  }
  SECTION("calibrate reports how much of the int8 range each weight tensor uses") {
    // 256 weights uniform in [-1, 1] and the same with one outlier of 50 (the outlier's scale
    // 50 / 127 rounds every weight below 0.2 in magnitude to 0; 50 is below the dominance rule's
    // 64 times the next largest weight, so calibration keeps it). With an outlier of 1e6 the rule
    // refuses the tensor (dominated_range, named wq).
    q8_test::lcg g{11};
    const auto w = q8_test::random_matrix<matrix<double, 16, 16>>(g, 1.0);
    auto w_out = w;
    w_out(3, 7) = 50;
    cxmat::batch<double, 4, 8, 16> xs{};  // the shapes of check_random_layer<8, 16, 2, 16>
    for (auto& x : xs.items) x = q8_test::random_matrix<matrix<double, 8, 16>>(g, 1.0);
    const auto fine = q8::calibrate<2>(xs, w, w, w, w);
    const auto spoilt = q8::calibrate<2>(xs, w_out, w, w, w);
    REQUIRE(spoilt.ok());
    std::size_t nonzero = 0;
    double mean = 0, mean_spoilt = 0;
    const double scale = 50.0 / 127.0;
    for (std::size_t i = 0; i < 16; ++i) {
      for (std::size_t j = 0; j < 16; ++j) {
        nonzero += w_out(i, j) != 0 && std::round(w_out(i, j) / scale) == 0 ? 1U : 0U;
        mean += std::abs(std::round(w(i, j) / fine.wq.scale)) / 256.0;
        mean_spoilt += std::abs(std::round(w_out(i, j) / scale)) / 256.0;
      }
    }
    CHECK(spoilt.wq_use.elements == 256);
    CHECK(spoilt.wq_use.zeroed == nonzero);
    CHECK(nonzero > 20);
    CHECK(std::abs(spoilt.wq_use.mean_abs_q - mean_spoilt) < 1e-9);
    auto w_dominated = w;
    w_dominated(3, 7) = 1e6;
    const auto refused = q8::calibrate<2>(xs, w_dominated, w, w, w);
    CHECK(refused.status == q8::calibration_status::dominated_range);
    CHECK(refused.tensor == q8::calibration_tensor::wq);
    CHECK(fine.wq_use.zeroed == 0);
    CHECK(std::abs(fine.wq_use.mean_abs_q - mean) < 1e-9);
    CHECK(fine.wk_use == fine.wq_use);
    CHECK(fine.wo_use == fine.wq_use);
  }
}

namespace {
// The float layer with biases, written plainly in double (an independent reference, and cheaper
// to compile than the float API's kernels): Q = X·Wq + bq, ..., per head softmax(Q_h·K_hᵀ/√d_k)·V_h,
// heads side by side, Y = C·Wo + bo. n = 8, d_model = 16, H = 2.
using m8x16 = matrix<double, 8, 16>;
using m16 = matrix<double, 16, 16>;
using row16 = matrix<double, 1, 16>;
m8x16 float_layer(const m8x16& x, const m16& wq, const m16& wk, const m16& wv, const m16& wo, const row16& bq,
                  const row16& bk, const row16& bv, const row16& bo) {
  const auto project = [&x](const m16& w, const row16& b) {
    m8x16 out{};
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t j = 0; j < 16; ++j) {
        double acc = 0;
        for (std::size_t t = 0; t < 16; ++t) acc += x(i, t) * w(t, j);
        out(i, j) = acc + b(0, j);
      }
    }
    return out;
  };
  const m8x16 q = project(wq, bq), k = project(wk, bk), v = project(wv, bv);
  m8x16 c{}, y{};
  for (std::size_t h = 0; h < 2; ++h) {
    for (std::size_t i = 0; i < 8; ++i) {
      double s[8]{}, mx = -1e300, sum = 0;
      for (std::size_t j = 0; j < 8; ++j) {
        for (std::size_t t = 0; t < 8; ++t) s[j] += q(i, h * 8 + t) * k(j, h * 8 + t);
        s[j] /= std::sqrt(8.0);
        mx = std::max(mx, s[j]);
      }
      for (double& e : s) sum += (e = std::exp(e - mx));
      for (std::size_t t = 0; t < 8; ++t) {
        for (std::size_t j = 0; j < 8; ++j) c(i, h * 8 + t) += s[j] / sum * v(j, h * 8 + t);
      }
    }
  }
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 16; ++j) {
      double acc = 0;
      for (std::size_t t = 0; t < 16; ++t) acc += c(i, t) * wo(t, j);
      y(i, j) = acc + bo(0, j);
    }
  }
  return y;
}
}  // namespace

TEST_CASE("calibrate takes float weights and PyTorch's projection biases", "[q8][calibrate]") {
  q8_test::lcg g{21};
  cxmat::batch<double, 4, 8, 16> xs{};
  for (auto& x : xs.items) x = q8_test::random_matrix<matrix<double, 8, 16>>(g, 2.0);
  const auto wq = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto wk = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto wv = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto wo = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto bq = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  const auto bk = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  const auto bv = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  const auto bo = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  const auto cal = q8::calibrate<2>(xs, wq, wk, wv, wo, cxmat::query_bias(bq), cxmat::key_bias(bk),
                                    cxmat::value_bias(bv), cxmat::output_bias(bo));
  REQUIRE(cal.ok());

  // The ranges of Q = X·Wq + bq and V = X·Wv + bv over the set, by plain loops.
  double qlo = 1e300, qhi = -1e300, vlo = 1e300, vhi = -1e300;
  for (const auto& x : xs.items) {
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t j = 0; j < 16; ++j) {
        double q = 0, v = 0;
        for (std::size_t t = 0; t < 16; ++t) q += x(i, t) * wq(t, j), v += x(i, t) * wv(t, j);
        q += bq(0, j), v += bv(0, j);
        qlo = std::min(qlo, q), qhi = std::max(qhi, q), vlo = std::min(vlo, v), vhi = std::max(vhi, v);
      }
    }
  }
  const auto near = [](q8::quantization a, q8::quantization b) {
    return std::abs(a.scale / b.scale - 1) < 1e-12 && a.zero_point == b.zero_point;
  };
  CHECK(near(cal.query, choose_libm(qlo, qhi)));
  CHECK(near(cal.value, choose_libm(vlo, vhi)));

  // int32 biases with scale input scale · weight scale, rounded half away from zero (TFLite).
  for (std::size_t j = 0; j < 16; ++j) {
    CHECK(cal.layer.bq(0, j) == static_cast<std::int32_t>(std::round(bq(0, j) / (cal.input.scale * cal.wq.scale))));
    CHECK(cal.layer.bk(0, j) == static_cast<std::int32_t>(std::round(bk(0, j) / (cal.input.scale * cal.wk.scale))));
    CHECK(cal.layer.bv(0, j) == static_cast<std::int32_t>(std::round(bv(0, j) / (cal.input.scale * cal.wv.scale))));
    CHECK(cal.layer.bo(0, j) == static_cast<std::int32_t>(std::round(bo(0, j) / (cal.context.scale * cal.wo.scale))));
  }

  // The int8 layer with its biases equals the reference layer, and stays close to the float
  // layer with the same biases.
  double worst = 0;
  for (const auto& x : xs.items) {
    const auto x8 = q8::quantize(x, cal.input);
    const auto y8 = q8::multi_head_attention(x8, cal.layer);
    std::int8_t want[8 * 16]{};
    q8_test::run_reference<8, 16, 2, 8, 8, 16>(cal.layer, x8, nullptr, want);
    const auto y = float_layer(x, wq, wk, wv, wo, bq, bk, bv, bo);
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t j = 0; j < 16; ++j) {
        REQUIRE(y8(i, j) == want[i * 16 + j]);
        worst = std::max(worst,
                         std::abs(cal.output.scale * (y8(i, j) - cal.output.zero_point) - y(i, j)) / cal.output.scale);
      }
    }
  }
  // docs/quantized.md's accuracy table: at most 3.29 steps on the calibration set at this shape
  // without biases; 4 allows for the biases' own rounding (3.21 measured).
  INFO("largest distance from the float layer, in output steps: " << worst);
  CHECK(worst <= 4.0);

  // float weights and biases are taken at their exact double values.
  matrix<float, 16, 16> wqf{}, wkf{}, wvf{}, wof{};
  matrix<double, 16, 16> wqd{}, wkd{}, wvd{}, wod{};
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = 0; j < 16; ++j) {
      wqf(i, j) = static_cast<float>(wq(i, j)), wkf(i, j) = static_cast<float>(wk(i, j));
      wvf(i, j) = static_cast<float>(wv(i, j)), wof(i, j) = static_cast<float>(wo(i, j));
      wqd(i, j) = wqf(i, j), wkd(i, j) = wkf(i, j), wvd(i, j) = wvf(i, j), wod(i, j) = wof(i, j);
    }
  }
  const auto from_float = q8::calibrate<2>(xs, wqf, wkf, wvf, wof);
  const auto from_double = q8::calibrate<2>(xs, wqd, wkd, wvd, wod);
  CHECK(from_float.layer.wq == from_double.layer.wq);
  CHECK(from_float.layer.wo == from_double.layer.wo);
  CHECK(from_float.layer.scores == from_double.layer.scores);
  CHECK(from_float.layer.softmax == from_double.layer.softmax);
  CHECK(from_float.layer.output == from_double.layer.output);
  CHECK(from_float.context == from_double.context);

  // A NaN bias is refused like a NaN weight.
  auto bad = bv;
  bad(0, 3) = std::numeric_limits<double>::quiet_NaN();
  const auto refused = q8::calibrate<2>(xs, wq, wk, wv, wo, cxmat::query_bias(bq), cxmat::key_bias(bk),
                                        cxmat::value_bias(bad), cxmat::output_bias(bo));
  CHECK((refused.status == q8::calibration_status::non_finite_weight && refused.tensor == q8::calibration_tensor::bv));
  CHECK(refused.col == 3);
}

// calibrate's options: an output bias needs W_o, each bias is as wide as its projection.
template <class... A>
constexpr bool calibrates = requires(const A&... a) {
  q8::calibrate<2>(a...);
};
using xs_t = cxmat::batch<double, 1, 4, 8>;
using w_t = matrix<double, 8, 8>;
static_assert(calibrates<xs_t, w_t, w_t, w_t, cxmat::projection_bias<cxmat::projection::key, double, 8>>);
static_assert(!calibrates<xs_t, w_t, w_t, w_t, cxmat::projection_bias<cxmat::projection::key, double, 6>>);
static_assert(!calibrates<xs_t, w_t, w_t, w_t, cxmat::projection_bias<cxmat::projection::output, double, 8>>);
static_assert(calibrates<xs_t, w_t, w_t, w_t, w_t, cxmat::projection_bias<cxmat::projection::output, float, 8>>);
static_assert(!calibrates<xs_t, w_t, w_t, w_t, cxmat::projection_bias<cxmat::projection::value, int, 8>>);

TEST_CASE("calibrate with per_channel_weights: one scale per output channel, as TFLite's fully-connected weights",
          "[q8][calibrate]") {
  q8_test::lcg g{31};
  cxmat::batch<double, 4, 8, 16> xs{};
  for (auto& x : xs.items) x = q8_test::random_matrix<matrix<double, 8, 16>>(g, 2.0);
  auto wq = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto wk = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto wv = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto wo = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.6);
  const auto bq = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  const auto bk = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  const auto bv = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  const auto bo = q8_test::random_matrix<matrix<double, 1, 16>>(g, 0.5);
  // Channel 5 of W_q 40 times larger than the rest: per tensor it flattens the other channels.
  for (std::size_t i = 0; i < 16; ++i) wq(i, 5) *= 40.0;
  const auto pc = q8::calibrate<2>(xs, wq, wk, wv, wo, q8::per_channel_weights, cxmat::query_bias(bq),
                                   cxmat::key_bias(bk), cxmat::value_bias(bv), cxmat::output_bias(bo));
  const auto pt = q8::calibrate<2>(xs, wq, wk, wv, wo, cxmat::query_bias(bq), cxmat::key_bias(bk),
                                   cxmat::value_bias(bv), cxmat::output_bias(bo));
  REQUIRE(pc.ok());
  static_assert(decltype(pc.layer)::per_channel && !decltype(pt.layer)::per_channel);
  // Per channel adds exactly the 64 requantizers; a per-tensor layer carries nothing for them.
  static_assert(sizeof(pc.layer) - sizeof(pt.layer) == 64 * sizeof(q8::requantizer));

  // Scales, weights, biases and multipliers of each channel, recomputed here: scale_j = max_i
  // |W(i, j)| / 127, q = round(W / scale_j), bias = round(b_j / (s_x·scale_j)), and the
  // requantizer of s_x·scale_j / s_q (TFLite's QuantizeMultiplier with libm).
  const auto check_channels = [&](const matrix<double, 16, 16>& w, const auto& scales, const auto& weights,
                                  const q8::requantizer* reqs, double in_scale, double out_scale) {
    for (std::size_t j = 0; j < 16; ++j) {
      double m = 0;
      for (std::size_t i = 0; i < 16; ++i) m = std::max(m, std::abs(w(i, j)));
      REQUIRE(scales(0, j) == m / 127.0);
      for (std::size_t i = 0; i < 16; ++i) REQUIRE(weights(j, i) == std::round(w(i, j) / scales(0, j)));
      REQUIRE(reqs[j] == quantize_multiplier_libm(in_scale * scales(0, j) / out_scale));
    }
  };
  check_channels(wq, pc.wq_scales, pc.layer.wq, pc.layer.channels.query, pc.input.scale, pc.query.scale);
  check_channels(wk, pc.wk_scales, pc.layer.wk, pc.layer.channels.key, pc.input.scale, pc.key.scale);
  check_channels(wv, pc.wv_scales, pc.layer.wv, pc.layer.channels.value, pc.input.scale, pc.value.scale);
  check_channels(wo, pc.wo_scales, pc.layer.wo, pc.layer.output_channels.values, pc.context.scale, pc.output.scale);
  for (std::size_t j = 0; j < 16; ++j) {
    CHECK(pc.layer.bq(0, j) == std::round(bq(0, j) / (pc.input.scale * pc.wq_scales(0, j))));
    CHECK(pc.layer.bo(0, j) == std::round(bo(0, j) / (pc.context.scale * pc.wo_scales(0, j))));
    CHECK(pt.wq_scales(0, j) == pt.wq.scale);
  }
  CHECK(pc.wq.scale == pt.wq.scale);  // the largest channel's scale is the tensor's

  // Bit for bit with the reference layer (per-column multipliers) (masks are the same code with
  // either kind of layer); and
  // closer to the float layer than per tensor, whose small channels lose their bits.
  double worst_pc = 0, worst_pt = 0;
  for (const auto& x : xs.items) {
    const auto y = float_layer(x, wq, wk, wv, wo, bq, bk, bv, bo);
    const auto x8 = q8::quantize(x, pc.input);
    std::int8_t want[8 * 16]{};
    q8_test::run_reference<8, 16, 2, 8, 8, 16>(pc.layer, x8, nullptr, want);
    const auto y8 = q8::multi_head_attention(x8, pc.layer);
    const auto y8t = q8::multi_head_attention(q8::quantize(x, pt.input), pt.layer);
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t j = 0; j < 16; ++j) {
        REQUIRE(y8(i, j) == want[i * 16 + j]);
        worst_pc = std::max(worst_pc, std::abs(pc.output.scale * (y8(i, j) - pc.output.zero_point) - y(i, j)));
        worst_pt = std::max(worst_pt, std::abs(pt.output.scale * (y8t(i, j) - pt.output.zero_point) - y(i, j)));
      }
    }
  }
  INFO("largest error from the float layer (real units): per channel " << worst_pc << ", per tensor " << worst_pt);
  CHECK(worst_pc < worst_pt);
  CHECK(pc.wq_use.zeroed < pt.wq_use.zeroed);
}
