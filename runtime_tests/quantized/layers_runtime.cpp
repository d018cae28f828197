// Run-time property tests of the int8 linear layer, residual add, layer norm and encoder layer
// against the independent reference (test_support/tflite_reference.hpp: TFLite's ADD and
// FULLY_CONNECTED arithmetic, and the integer layer norm's documented formula, with __int128),
// and of the layer norm against the float layer norm.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include <cxmat/quantized.hpp>
#include <cxmat/transformer.hpp>

#include "test_support/catch.hpp"
#include "test_support/layer_support.hpp"
#include "test_support/tflite_reference.hpp"

namespace {

namespace q8 = cxmat::q8;
using cxmat::matrix;

q8::quantization random_quantization(std::mt19937_64& rng, double log2_lo, double log2_hi) {
  std::uniform_real_distribution<double> log2(log2_lo, log2_hi);
  std::uniform_int_distribution<std::int32_t> zp(-128, 127);
  return {std::exp2(log2(rng)), zp(rng)};
}

template <class M>
M random_int8(std::mt19937_64& rng, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> v(lo, hi);
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = static_cast<std::int8_t>(v(rng));
  }
  return m;
}

}  // namespace

TEST_CASE("q8::add equals TFLite's int8 ADD for every pair of inputs", "[q8][add]") {
  std::mt19937_64 rng(11);
  double worst = 0;
  for (int t = 0; t < 40; ++t) {
    const q8::quantization a = random_quantization(rng, -8, 2), b = random_quantization(rng, -8, 2),
                           out = random_quantization(rng, -7, 3);
    const q8::add_params p = q8::make_add_params(a, b, out);
    REQUIRE(p.input1.shift <= 0);
    REQUIRE(p.input2.shift <= 0);
    matrix<std::int8_t, 256, 256> x{}, y{};
    for (std::size_t i = 0; i < 256; ++i) {
      for (std::size_t j = 0; j < 256; ++j) {
        x(i, j) = static_cast<std::int8_t>(static_cast<int>(i) - 128);
        y(i, j) = static_cast<std::int8_t>(static_cast<int>(j) - 128);
      }
    }
    const auto sum = std::make_unique<matrix<std::int8_t, 256, 256>>(q8::add(x, y, p));
    for (std::size_t i = 0; i < 256; ++i) {
      for (std::size_t j = 0; j < 256; ++j) {
        REQUIRE((*sum)(i, j) == q8_ref::add(x(i, j), y(i, j), q8_test::to_ref(p)));
        // Inside the output range, within a rounding (and the 2^-20-scale roundings before it)
        // of the real sum.
        const double real = a.scale * (x(i, j) - a.zero_point) + b.scale * (y(i, j) - b.zero_point);
        const double q = real / out.scale + out.zero_point;
        if (q > -127.5 && q < 126.5) worst = std::max(worst, std::abs((*sum)(i, j) - q));
      }
    }
  }
  CHECK(worst <= 0.5 + 0x1p-10);
}

namespace {
template <std::size_t D>
void check_layer_norm(std::mt19937_64& rng, int rows, double& worst) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int t = 0; t < rows; ++t) {
    const q8::quantization in = random_quantization(rng, -9, 1), out = random_quantization(rng, -7, -3);
    cxmat::layer_norm_module<double, D> f{};
    for (std::size_t j = 0; j < D; ++j) f.weight(0, j) = 1.0 + 0.5 * u(rng), f.bias(0, j) = 0.3 * u(rng);
    f.eps = t % 3 == 0 ? 1e-5 : (t % 3 == 1 ? 1e-12 : 0.1);
    const q8::layer_norm_module<D> l = q8::quantize_layer_norm(f, in, out);
    // Rows: uniform, narrow (a few values), constant, and one outlier.
    const int kind = t % 4;
    matrix<std::int8_t, 1, D> x =
        kind == 0 ? random_int8<matrix<std::int8_t, 1, D>>(rng) : random_int8<matrix<std::int8_t, 1, D>>(rng, -2, 2);
    if (kind == 2) {
      for (std::size_t j = 0; j < D; ++j) x(0, j) = x(0, 0);
    }
    if (kind == 3) x(0, D / 2) = 127;
    const auto y = l(x);
    std::int8_t want[D]{};
    q8_test::run_layer_norm_reference(l, x.elems[0], 1, want);
    for (std::size_t j = 0; j < D; ++j) REQUIRE(y(0, j) == want[j]);
    // Against the float layer norm of the dequantized row (the integer arithmetic's own error).
    const auto yf = cxmat::layer_norm(q8::dequantize(x, in), f.weight, f.bias, f.eps);
    for (std::size_t j = 0; j < D; ++j) {
      const double q = yf(0, j) / out.scale + out.zero_point;
      if (q > -127.5 && q < 126.5) worst = std::max(worst, std::abs(y(0, j) - q));
    }
  }
}
}  // namespace

TEST_CASE("the integer layer norm equals its documented formula and the float layer norm within 0.51 LSB",
          "[q8][layer_norm]") {
  std::mt19937_64 rng(12);
  double worst = 0;
  check_layer_norm<7>(rng, 4000, worst);
  check_layer_norm<64>(rng, 2000, worst);
  check_layer_norm<512>(rng, 200, worst);
  CHECK(worst <= 0.51);
}

TEST_CASE("q8::linear_module equals TFLite's FULLY_CONNECTED, per channel and per tensor, with fused ReLU",
          "[q8][linear]") {
  std::mt19937_64 rng(13);
  q8_test::lcg g{13};
  for (int t = 0; t < 40; ++t) {
    cxmat::linear_module<double, 24, 40> f{q8_test::random_matrix<matrix<double, 24, 40>>(g, 0.3),
                                           q8_test::random_matrix<matrix<double, 1, 40>>(g, 0.5)};
    // One output channel much larger than the rest: per-channel scales keep the others.
    for (std::size_t i = 0; i < 24; ++i) f.weight(i, 3) *= 20.0;
    const q8::quantization in = random_quantization(rng, -7, -2), out = random_quantization(rng, -5, 0);
    const auto x = random_int8<matrix<std::int8_t, 6, 24>>(rng);
    const auto run = [&](const auto& l) {
      std::int8_t want[6 * 40]{};
      q8_test::run_linear_reference(l, x.elems[0], 6, want);
      const auto y = l(x);
      for (std::size_t i = 0; i < 6; ++i) {
        for (std::size_t j = 0; j < 40; ++j) REQUIRE(y(i, j) == want[i * 40 + j]);
      }
      return y;
    };
    const auto pc = run(q8::quantize_linear(f, in, out, t % 2 == 0));
    run(q8::quantize_linear<false>(f, in, out, t % 2 == 0));
    if (t % 2 == 0) {
      for (std::size_t i = 0; i < 6; ++i) {
        for (std::size_t j = 0; j < 40; ++j) REQUIRE(pc(i, j) >= std::max(-128, out.zero_point));
      }
    }
  }
}

namespace {
// A seeded encoder layer calibrated at run time on 12 inputs and run on 12 held-out ones, each
// output equal to the reference composition.
template <class Float, bool PerTensor>
void check_encoder(std::uint64_t seed) {
  constexpr std::size_t n = 10, d = Float::d_model.size;
  const Float f = q8_test::random_encoder_layer<Float>(seed);
  const auto xs = std::make_unique<cxmat::batch<double, 24, n, d>>(q8_test::random_inputs<double, 24, n, d>(seed, 1.5));
  const auto set = std::make_unique<cxmat::batch<double, 12, n, d>>();
  for (std::size_t b = 0; b < 12; ++b) set->items[b] = xs->items[b];
  const auto cal = [&] {
    if constexpr (PerTensor) {
      return q8::calibrate(*set, f, q8::per_tensor_weights);
    } else {
      return q8::calibrate(*set, f);
    }
  }();
  REQUIRE(cal.ok());
  // The caller's workspace, filled with a pattern first and then holding each call's leftovers
  // for the next: what it held must not matter.
  using layer = std::remove_cvref_t<decltype(cal.module)>;
  const auto ws = std::make_unique<q8::workspace_for<layer, n>>();
  std::memset(ws.get(), 0x5A, sizeof(*ws));
  for (std::size_t b = 12; b < 24; ++b) {
    const auto x = q8::quantize(xs->items[b], cal.input);
    std::int8_t want[n * d]{};
    q8_test::run_encoder_reference<n>(cal.module, x, nullptr, want);
    const auto y = cal.module(x);
    const auto y_ws = cal.module(x, *ws);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d; ++j) {
        REQUIRE(y(i, j) == want[i * d + j]);
        REQUIRE(y_ws(i, j) == want[i * d + j]);
      }
    }
  }
}
}  // namespace

TEST_CASE("the int8 encoder layer equals the reference composition, post-norm and pre-norm", "[q8][encoder]") {
  using cxmat::activation;
  check_encoder<cxmat::encoder_layer<double, 32, 4, 64>, false>(1);
  check_encoder<cxmat::encoder_layer<double, 32, 4, 64, activation::relu, true>, false>(2);
  check_encoder<cxmat::encoder_layer<double, 32, 4, 64, activation::gelu>, true>(3);
  check_encoder<cxmat::encoder_layer<float, 32, 4, 64, activation::gelu_tanh, true>, false>(4);
}

TEST_CASE("the causal int8 encoder layer equals the reference", "[q8][encoder]") {
  using Float = cxmat::encoder_layer<double, 16, 2, 32>;
  const Float f = q8_test::random_encoder_layer<Float>(5);
  const auto xs = q8_test::random_inputs<double, 6, 8, 16>(5, 1.5);
  const auto cal = q8::calibrate(xs, f, cxmat::causal);
  REQUIRE(cal.ok());
  bool mask[64]{};
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j <= i; ++j) mask[i * 8 + j] = true;
  }
  for (std::size_t b = 0; b < 6; ++b) {
    const auto x = q8::quantize(xs[b], cal.input);
    std::int8_t want[8 * 16]{};
    q8_test::run_encoder_reference<8>(cal.module, x, mask, want);
    const auto y = cal.module(x, cxmat::causal);
    q8::workspace_for<std::remove_cvref_t<decltype(cal.module)>, 8> ws;
    std::memset(&ws, static_cast<int>(b * 37), sizeof ws);
    const auto y_ws = cal.module(x, ws, cxmat::causal);
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t j = 0; j < 16; ++j) {
        REQUIRE(y(i, j) == want[i * 16 + j]);
        REQUIRE(y_ws(i, j) == want[i * 16 + j]);
      }
    }
  }
}

TEST_CASE("calibrating a linear or encoder layer refuses NaN and infinity", "[q8][refuse]") {
  using Float = cxmat::encoder_layer<double, 16, 2, 32>;
  auto xs = q8_test::random_inputs<double, 2, 4, 16>(6, 1.0);
  Float f = q8_test::random_encoder_layer<Float>(6);
  f.linear2.weight(5, 3) = std::numeric_limits<double>::quiet_NaN();
  auto cal = q8::calibrate(xs, f);
  CHECK(cal.status == q8::calibration_status::non_finite_weight);
  CHECK((cal.tensor == q8::calibration_tensor::linear2_weight && cal.row == 5 && cal.col == 3));
  f = q8_test::random_encoder_layer<Float>(6);
  f.self_attn.w_k(1, 2) = std::numeric_limits<double>::infinity();
  cal = q8::calibrate(xs, f);
  CHECK((cal.status == q8::calibration_status::non_finite_weight && cal.tensor == q8::calibration_tensor::wk));
  f = q8_test::random_encoder_layer<Float>(6);
  xs(1, 2, 3) = -std::numeric_limits<double>::infinity();
  cal = q8::calibrate(xs, f);
  CHECK((cal.status == q8::calibration_status::non_finite_input && cal.item == 1 && cal.row == 2 && cal.col == 3));
  CHECK(cal.module.linear1.weight == matrix<std::int8_t, 32, 16>{});
  // Finite weights whose products leave double's range: the computed tensor is named.
  f = q8_test::random_encoder_layer<Float>(6);
  xs = q8_test::random_inputs<double, 2, 4, 16>(6, 1.0);
  for (std::size_t i = 0; i < 16; ++i) f.linear1.weight(i, 7) = 1e308;
  cal = q8::calibrate(xs, f);
  CHECK((cal.status == q8::calibration_status::non_finite_range &&
         cal.tensor == q8::calibration_tensor::feed_forward_hidden));
  cxmat::linear_module<double, 16, 4> lin{};
  lin.bias(0, 2) = std::numeric_limits<double>::quiet_NaN();
  const auto lc = q8::calibrate(q8_test::random_inputs<double, 2, 4, 16>(7, 1.0), lin);
  CHECK((lc.status == q8::calibration_status::non_finite_weight && lc.tensor == q8::calibration_tensor::linear_bias));
}

namespace {
// Cross-attention from L queries to S memory rows, calibrated at run time on 8 pairs (queries and
// memories of different ranges, so that the memory's quantization differs from the input's) and
// run on 8 held-out pairs with the masks given (as N x S booleans for the reference).
template <std::size_t L, std::size_t S, bool PerChannel, class... O>
void check_cross(std::uint64_t seed, const bool* mask, const O&... masks) {
  constexpr std::size_t d = 16, h = 2;
  q8_test::lcg g{seed};
  using W = matrix<double, d, d>;
  const auto wq = q8_test::random_matrix<W>(g, 0.25), wk = q8_test::random_matrix<W>(g, 0.25),
             wv = q8_test::random_matrix<W>(g, 0.25), wo = q8_test::random_matrix<W>(g, 0.25);
  const auto bq = q8_test::random_matrix<matrix<double, 1, d>>(g, 0.1),
             bk = q8_test::random_matrix<matrix<double, 1, d>>(g, 0.1),
             bv = q8_test::random_matrix<matrix<double, 1, d>>(g, 0.1),
             bo = q8_test::random_matrix<matrix<double, 1, d>>(g, 0.1);
  const auto xs = q8_test::random_inputs<double, 16, L, d>(seed + 1, 1.0);
  const auto ms = q8_test::random_inputs<double, 16, S, d>(seed + 2, 3.0);
  cxmat::batch<double, 8, L, d> xset{};
  cxmat::batch<double, 8, S, d> mset{};
  for (std::size_t b = 0; b < 8; ++b) xset.items[b] = xs[b], mset.items[b] = ms[b];
  const auto calibrate = [&](const auto&... per_channel) {
    return q8::calibrate<h>(xset, mset, wq, wk, wv, wo, cxmat::query_bias(bq), cxmat::key_bias(bk),
                            cxmat::value_bias(bv), cxmat::output_bias(bo), per_channel..., masks...);
  };
  const auto cal = [&] {
    if constexpr (PerChannel) {
      return calibrate(q8::per_channel_weights);
    } else {
      return calibrate();
    }
  }();
  REQUIRE(cal.ok());
  REQUIRE(cal.memory.scale > 2 * cal.input.scale);  // the memory's own quantization
  for (std::size_t b = 8; b < 16; ++b) {
    const auto x = q8::quantize(xs[b], cal.input);
    const auto m = q8::quantize(ms[b], cal.memory);
    std::int8_t m_flat[S * d]{}, want[L * d]{};
    q8_test::flatten(m, m_flat);
    q8_test::run_reference<L, d, h, d / h, d / h, d>(cal.layer, x, mask, want, nullptr, m_flat, S);
    const auto y = q8::cross_attention(x, m, cal.layer, masks...);
    q8::workspace_for<std::remove_cvref_t<decltype(cal.layer)>, S> ws;  // the memory's S keys and values
    std::memset(&ws, static_cast<int>(b * 41), sizeof ws);
    const auto y_ws = q8::cross_attention(x, m, cal.layer, ws, masks...);
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < d; ++j) {
        REQUIRE(y(i, j) == want[i * d + j]);
        REQUIRE(y_ws(i, j) == want[i * d + j]);
      }
    }
  }
}
}  // namespace

TEST_CASE("q8::cross_attention equals the reference, with masks over the memory", "[q8][cross]") {
  // (Without a mask: the decoder layers' tests at compile time.) Key padding of the memory; causal with L < S (upper
  // left: query i sees keys 0..i) and with L > S at the lower right (the first L - S queries see no key: zero context,
  // the bias alone); an explicit L x S mask.
  const matrix<bool, 1, 9> keep{{{true, false, true, true, false, true, true, true, false}}};
  bool padded[6 * 9]{}, upper_left[6 * 9]{}, lower_right[7 * 4]{}, explicit_mask[6 * 9]{};
  matrix<bool, 6, 9> allowed{};
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 9; ++j) {
      padded[i * 9 + j] = keep(0, j);
      upper_left[i * 9 + j] = j <= i;
      allowed(i, j) = explicit_mask[i * 9 + j] = (i * 7 + j * 3) % 4 != 0;
    }
  }
  for (std::size_t i = 0; i < 7; ++i) {
    for (std::size_t j = 0; j < 4; ++j) lower_right[i * 4 + j] = j + 7 <= i + 4;
  }
  check_cross<6, 9, true>(23, padded, cxmat::key_padding(keep));
  check_cross<6, 9, false>(24, upper_left, cxmat::causal);
  check_cross<7, 4, true>(25, lower_right, cxmat::causal_lower_right);
  check_cross<6, 9, true>(26, explicit_mask, cxmat::mask(allowed));
}

namespace {
constexpr std::size_t dec_n = 8, dec_s = 6;
using dec_inputs = cxmat::batch<double, 10, dec_n, 32>;
using dec_memories = cxmat::batch<double, 10, dec_s, 32>;
constexpr matrix<bool, 1, dec_s> dec_keep{{{true, true, false, true, true, false}}};

// calibrate(xs, memories, f) with a causal self-attention and a key padding of the memory (one
// instantiation per layer type, shared by the bit-exactness and the refusal tests).
template <class Float, bool PerTensor>
auto calibrate_decoder(const dec_inputs& xs, const dec_memories& ms, const Float& f) {
  if constexpr (PerTensor) {
    return q8::calibrate(xs, ms, f, q8::per_tensor_weights, cxmat::causal,
                         cxmat::on_memory(cxmat::key_padding(dec_keep)));
  } else {
    return q8::calibrate(xs, ms, f, cxmat::causal, cxmat::on_memory(cxmat::key_padding(dec_keep)));
  }
}

// A seeded decoder layer calibrated at run time on 10 input / memory pairs and run on 10 held-out
// ones, each output equal to the reference composition.
template <class Float, bool PerTensor>
void check_decoder(std::uint64_t seed) {
  constexpr std::size_t n = dec_n, s = dec_s, d = 32;
  const Float f = q8_test::random_decoder_layer<Float>(seed);
  const auto xs = std::make_unique<cxmat::batch<double, 20, n, d>>(q8_test::random_inputs<double, 20, n, d>(seed, 1.5));
  const auto ms =
      std::make_unique<cxmat::batch<double, 20, s, d>>(q8_test::random_inputs<double, 20, s, d>(seed + 9, 2.5));
  const auto xset = std::make_unique<dec_inputs>();
  const auto mset = std::make_unique<dec_memories>();
  for (std::size_t b = 0; b < 10; ++b) xset->items[b] = xs->items[b], mset->items[b] = ms->items[b];
  bool causal[n * n]{}, padded[n * s]{};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) causal[i * n + j] = j <= i;
    for (std::size_t j = 0; j < s; ++j) padded[i * s + j] = dec_keep(0, j);
  }
  const auto cal = calibrate_decoder<Float, PerTensor>(*xset, *mset, f);
  REQUIRE(cal.ok());
  for (std::size_t b = 10; b < 20; ++b) {
    const auto x = q8::quantize(xs->items[b], cal.input);
    const auto m = q8::quantize(ms->items[b], cal.memory);
    std::int8_t want[n * d]{};
    q8_test::run_decoder_reference<n, s>(cal.module, x, m, causal, padded, want);
    const auto y = cal.module(x, m, cxmat::causal, cxmat::on_memory(cxmat::key_padding(dec_keep)));
    q8::workspace_for<std::remove_cvref_t<decltype(cal.module)>, n, s> ws;
    std::memset(&ws, static_cast<int>(b * 29), sizeof ws);
    const auto y_ws = cal.module(x, m, ws, cxmat::causal, cxmat::on_memory(cxmat::key_padding(dec_keep)));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d; ++j) {
        REQUIRE(y(i, j) == want[i * d + j]);
        REQUIRE(y_ws(i, j) == want[i * d + j]);
      }
    }
  }
}
}  // namespace

// Two kinds between them cover post-norm and pre-norm, ReLU and a table (tanh GELU), double and
// float, per-channel and per-tensor weights (static_tests/quantized/layers.cpp has a pre-norm
// GELU layer without masks).
TEST_CASE("the int8 decoder layer equals the reference composition, post-norm and pre-norm", "[q8][decoder]") {
  using cxmat::activation;
  check_decoder<cxmat::decoder_layer<double, 32, 4, 64>, false>(1);
  check_decoder<cxmat::decoder_layer<float, 32, 4, 64, activation::gelu_tanh, true>, true>(4);
}

TEST_CASE("calibrating a decoder layer refuses NaN and infinity, and names the tensor", "[q8][decoder][refuse]") {
  using Float = cxmat::decoder_layer<double, 32, 4, 64>;
  const auto xs = std::make_unique<dec_inputs>(q8_test::random_inputs<double, 10, dec_n, 32>(8, 1.0));
  const auto fresh = std::make_unique<dec_memories>(q8_test::random_inputs<double, 10, dec_s, 32>(9, 1.0));
  const auto ms = std::make_unique<dec_memories>(*fresh);
  Float f = q8_test::random_decoder_layer<Float>(8);
  (*ms)(1, 2, 5) = std::numeric_limits<double>::quiet_NaN();
  const auto calibrate = [&] { return calibrate_decoder<Float, false>(*xs, *ms, f); };
  auto cal = calibrate();
  CHECK((cal.status == q8::calibration_status::non_finite_input && cal.tensor == q8::calibration_tensor::memory &&
         cal.item == 1 && cal.row == 2 && cal.col == 5));
  *ms = *fresh;
  f.multihead_attn.w_k(3, 4) = std::numeric_limits<double>::infinity();
  cal = calibrate();
  CHECK((cal.status == q8::calibration_status::non_finite_weight && cal.tensor == q8::calibration_tensor::cross_wk &&
         cal.row == 3 && cal.col == 4));
  f = q8_test::random_decoder_layer<Float>(8);
  f.multihead_attn.b_o(0, 1) = std::numeric_limits<double>::quiet_NaN();
  cal = calibrate();
  CHECK((cal.status == q8::calibration_status::non_finite_weight && cal.tensor == q8::calibration_tensor::cross_bo));
  f = q8_test::random_decoder_layer<Float>(8);
  f.norm3.bias(0, 7) = -std::numeric_limits<double>::infinity();
  cal = calibrate();
  CHECK((cal.status == q8::calibration_status::non_finite_weight && cal.tensor == q8::calibration_tensor::norm3_bias));
  CHECK(cal.module.multihead_attn.wq == matrix<std::int8_t, 32, 32>{});
  // Finite weights whose products leave double's range in the cross-attention's output (values
  // of about 1e150 times weights of about 1e160).
  f = q8_test::random_decoder_layer<Float>(8);
  for (std::size_t i = 0; i < 32; ++i) {
    for (std::size_t j = 0; j < 32; ++j) f.multihead_attn.w_v(i, j) *= 1e150, f.multihead_attn.w_o(i, j) *= 1e160;
  }
  cal = calibrate();
  CHECK((cal.status == q8::calibration_status::non_finite_range &&
         cal.tensor == q8::calibration_tensor::cross_attention_output));
  f = q8_test::random_decoder_layer<Float>(8);
  CHECK(calibrate().ok());
}

TEST_CASE("q8::check names the first hand-written parameter TFLite could not have made", "[q8][check]") {
  using Float = cxmat::encoder_layer<double, 16, 2, 32>;
  const auto xs = q8_test::random_inputs<double, 4, 8, 16>(11, 1.0);
  const auto cal = q8::calibrate(xs, q8_test::random_encoder_layer<Float>(11));
  REQUIRE(cal.ok());
  CHECK(q8::check(cal.module).ok());
  const auto field = [](const q8::parameter_check& c) { return std::string(c.field); };
  auto l = cal.module;
  l.linear1.channels.values[3] = {214748365, 0};  // round(0.1 · 2^31): not normalized
  auto c = q8::check(l);
  CHECK(c.status == q8::parameter_status::multiplier_not_normalized);
  CHECK(field(c) == "linear1.channels");
  CHECK(c.index == 3);
  l = cal.module;
  l.self_attn.output.output.shift = 40;
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::shift_out_of_range && field(c) == "self_attn.output.output"));
  l = cal.module;
  l.self_attn.channels.key[5].shift = -32;
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::shift_out_of_range && field(c) == "self_attn.channels.key" && c.index == 5));
  l = cal.module;
  l.self_attn.softmax.left_shift = 32;
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::softmax_left_shift_out_of_range && field(c) == "self_attn.softmax"));
  l = cal.module;
  l.add2.left_shift = 31;
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::add_left_shift_out_of_range && field(c) == "add2.left_shift"));
  l = cal.module;
  l.norm2.scale[15] = {1, 0};
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::multiplier_not_normalized && field(c) == "norm2.scale" && c.index == 15));
  l = cal.module;
  l.linear2.params.lhs_offset = 129;  // -z for z = -129: no int8 zero point
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::offset_out_of_range && field(c) == "linear2.params.lhs_offset"));
  l = cal.module;
  l.linear2.params.activation_min = 5, l.linear2.params.activation_max = 4;
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::activation_range_invalid && field(c) == "linear2.params.activation_min"));
  // The first broken field in member order is the one reported.
  l = cal.module;
  l.norm1.scale[0] = {1, 0};
  l.self_attn.query.output = {1 << 30, 31};
  c = q8::check(l);
  CHECK((c.status == q8::parameter_status::shift_out_of_range && field(c) == "self_attn.query.output"));
  // Single parameter sets and requantizers.
  CHECK(q8::check(q8::requantizer{1 << 30, 30}).ok());
  CHECK(q8::check(q8::requantizer{214748365, 0}).status == q8::parameter_status::multiplier_not_normalized);
  CHECK(q8::check(q8::make_softmax_params(0.1)).ok());
  CHECK(q8::check(q8::softmax_params{1 << 30, 20, 1}).status == q8::parameter_status::softmax_diff_min_positive);
  const q8::matmul_params p{0, 0, 0, {1 << 30, -3}};
  CHECK(q8::check(p).ok());
  CHECK(field(q8::check(q8::matmul_params{0, 0, 200, {1 << 30, -3}})) == "output_offset");
}

TEST_CASE("q8::check of a calibrated decoder layer, and of a broken cross-attention channel", "[q8][check][decoder]") {
  using Float = cxmat::decoder_layer<double, 32, 4, 64>;
  const auto xs = std::make_unique<dec_inputs>(q8_test::random_inputs<double, 10, dec_n, 32>(12, 1.0));
  const auto ms = std::make_unique<dec_memories>(q8_test::random_inputs<double, 10, dec_s, 32>(13, 1.0));
  const auto cal = calibrate_decoder<Float, false>(*xs, *ms, q8_test::random_decoder_layer<Float>(12));
  REQUIRE(cal.ok());
  CHECK(q8::check(cal.module).ok());
  auto l = std::make_unique<decltype(cal.module)>(cal.module);
  l->multihead_attn.channels.value[7] = {-(1 << 30) + 1, -4};
  const auto c = q8::check(*l);
  CHECK(c.status == q8::parameter_status::multiplier_not_normalized);
  CHECK(std::string(c.field) == "multihead_attn.channels.value");
  CHECK(c.index == 7);
}

TEST_CASE("calibration refuses, and names, a constant or all-zero set and a dominated weight", "[q8][refuse]") {
  using Float = cxmat::encoder_layer<double, 16, 2, 32>;
  const Float f = q8_test::random_encoder_layer<Float>(21);
  cxmat::batch<double, 3, 4, 16> constant{}, zero{};
  for (auto& x : constant.items) {
    for (auto& row : x.elems) {
      for (auto& v : row) v = 0.75;
    }
  }
  auto cal = q8::calibrate(constant, f);
  CHECK((cal.status == q8::calibration_status::zero_width_range && cal.tensor == q8::calibration_tensor::input));
  CHECK(cal.report.count == 0);
  cal = q8::calibrate(zero, f);
  CHECK((cal.status == q8::calibration_status::zero_width_range && cal.tensor == q8::calibration_tensor::input));
  const auto xs = q8_test::random_inputs<double, 3, 4, 16>(21, 1.0);
  REQUIRE(q8::calibrate(xs, f).ok());
  Float spoilt = f;
  spoilt.linear1.weight(2, 9) = 1e6;  // the others are within about ±0.25
  cal = q8::calibrate(xs, spoilt);
  CHECK(
      (cal.status == q8::calibration_status::dominated_range && cal.tensor == q8::calibration_tensor::linear1_weight));
  // Two values of 1e6 are not one value dominating: the rule looks at the largest against the second.
  spoilt.linear1.weight(3, 9) = -1e6;
  CHECK(q8::calibrate(xs, spoilt).ok());
  // One input value of 1e6 among values within ±1: the input's range is dominated.
  auto outlier = xs;
  outlier(1, 2, 3) = 1e6;
  cal = q8::calibrate(outlier, f);
  CHECK((cal.status == q8::calibration_status::dominated_range && cal.tensor == q8::calibration_tensor::input));
  // The linear module and the attention refuse the same sets.
  cxmat::linear_module<double, 16, 4> lin{};
  for (std::size_t i = 0; i < 16; ++i) lin.weight(i, i % 4) = 0.5;
  const auto lc = q8::calibrate(zero, lin);
  CHECK((lc.status == q8::calibration_status::zero_width_range && lc.tensor == q8::calibration_tensor::input));
  const auto ac = q8::calibrate<2>(constant, f.self_attn.w_q, f.self_attn.w_k, f.self_attn.w_v);
  CHECK((ac.status == q8::calibration_status::zero_width_range && ac.tensor == q8::calibration_tensor::input));
  // A decoder's constant memory is named as the memory.
  using Dec = cxmat::decoder_layer<double, 16, 2, 32>;
  cxmat::batch<double, 3, 5, 16> memories{};
  for (auto& m : memories.items) {
    for (auto& row : m.elems) {
      for (auto& v : row) v = -2.0;
    }
  }
  const auto dc = q8::calibrate(xs, memories, q8_test::random_decoder_layer<Dec>(22));
  CHECK((dc.status == q8::calibration_status::zero_width_range && dc.tensor == q8::calibration_tensor::memory));
}

TEST_CASE("the calibration report: every quantized tensor's range, scale, use of int8 and clipping", "[q8][report]") {
  const auto xs = q8_test::random_inputs<double, 3, 4, 16>(23, 1.0);
  cxmat::linear_module<double, 16, 8> lin{};
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(-0.5, 0.25);
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = 0; j < 8; ++j) lin.weight(i, j) = u(rng);
  }
  const auto lc = q8::calibrate(xs, lin);
  REQUIRE(lc.ok());
  REQUIRE(lc.report.count == 3);
  // The input's range, from the set directly; its quantization; its use of int8 by TFLite's formula.
  double lo = xs(0, 0, 0), hi = lo, wlo = lin.weight(0, 0), whi = wlo;
  for (std::size_t b = 0; b < 3; ++b) {
    for (std::size_t i = 0; i < 4; ++i) {
      for (std::size_t j = 0; j < 16; ++j) lo = std::min(lo, xs(b, i, j)), hi = std::max(hi, xs(b, i, j));
    }
  }
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = 0; j < 8; ++j) wlo = std::min(wlo, lin.weight(i, j)), whi = std::max(whi, lin.weight(i, j));
  }
  const auto steps = [](double v, double scale, std::int32_t zp) { return std::round(v / scale) + zp; };
  const q8::tensor_report* in = lc.report.find(q8::calibration_tensor::input);
  REQUIRE(in != nullptr);
  CHECK((in->min == lo && in->max == hi));
  CHECK((in->scale == lc.input.scale && in->zero_point == lc.input.zero_point));
  CHECK(in->range_used == (steps(hi, in->scale, in->zero_point) - steps(lo, in->scale, in->zero_point)) / 255.0);
  CHECK(in->range_used > 0.99);  // min/max calibration of a range around 0 fills int8
  CHECK(in->clipped == 0);
  const q8::tensor_report* w = lc.report.find(q8::calibration_tensor::linear_weight);
  REQUIRE(w != nullptr);
  CHECK((w->min == wlo && w->max == whi && w->zero_point == 0));
  CHECK(w->scale == -wlo / 127.0);  // symmetric: the largest magnitude, here the most negative weight
  // Lopsided weights in [-0.5, 0.25) use about (127 + 0.25 / 0.5 · 127) / 255 of int8.
  CHECK(w->range_used == (127.0 + std::round(whi / w->scale)) / 255.0);
  CHECK(w->range_used < 0.76);
  const q8::tensor_report* out = lc.report.find(q8::calibration_tensor::output);
  REQUIRE(out != nullptr);
  CHECK((out->scale == lc.output.scale && out->zero_point == lc.output.zero_point && out->min < out->max));
  CHECK(lc.report.find(q8::calibration_tensor::wq) == nullptr);

  // An encoder layer reports every tensor it quantizes, in calibration order.
  using Float = cxmat::encoder_layer<double, 16, 2, 32, cxmat::activation::gelu>;
  const auto ec = q8::calibrate(xs, q8_test::random_encoder_layer<Float>(23));
  REQUIRE(ec.ok());
  using t = q8::calibration_tensor;
  const t want[] = {t::input,
                    t::attention_input,
                    t::wq,
                    t::wk,
                    t::wv,
                    t::query,
                    t::key,
                    t::value,
                    t::scores,
                    t::context,
                    t::wo,
                    t::attention_output,
                    t::residual1,
                    t::norm1_output,
                    t::feed_forward_hidden,
                    t::feed_forward_activation,
                    t::linear1_weight,
                    t::linear2_weight,
                    t::feed_forward_output,
                    t::residual2,
                    t::output};
  REQUIRE(ec.report.count == std::size(want));
  for (std::size_t k = 0; k < std::size(want); ++k) {
    REQUIRE(ec.report.tensors[k].tensor == want[k]);
    REQUIRE(ec.report.tensors[k].min <= ec.report.tensors[k].max);
    REQUIRE(ec.report.tensors[k].range_used > 0);
    REQUIRE(ec.report.tensors[k].range_used <= 1);
  }
  CHECK(ec.report.find(t::input)->scale == ec.input.scale);
  CHECK(ec.report.find(t::output)->scale == ec.output.scale);
  CHECK(ec.report.find(t::output)->zero_point == ec.output.zero_point);
  // A quantization that clips: an end of the range quantizing outside int8 is counted.
  q8::calibration_report r{};
  r.add(t::input, -1.0, 1.0, {1.0 / 127.0, 0});   // -127 .. 127: nothing clipped
  r.add(t::output, -1.0, 2.0, {1.0 / 127.0, 0});  // 254 > 127: the top end clipped
  r.add(t::query, -3.0, 3.0, {1.0 / 127.0, 0});   // both ends
  CHECK((r.tensors[0].clipped == 0 && r.tensors[1].clipped == 1 && r.tensors[2].clipped == 2));
  CHECK(r.tensors[0].range_used == 254.0 / 255.0);
  CHECK(r.tensors[2].range_used == 1.0);
}
