// Accuracy of the int8 layer against the float layer it was calibrated from: max and mean
// absolute error of the dequantized int8 output, in output steps (LSBs, the output scale), on
// worksheet 004 and on seeded random layers (calibrated on one input set, measured on the
// calibration set and on held-out inputs of the same distribution). Prints the Markdown table
// that stands in docs/quantized.md (checked by the CTest entry quantized.accuracy_table); with the
// argument `layers`, the table of the integer layer norm and the int8 encoder and decoder layers
// against their float layers (quantized.layer_accuracy_table).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string_view>

#include <cxmat/cxmat.hpp>
#include <cxmat/quantized.hpp>
#include <cxmat/transformer.hpp>

#include "test_support/layer_support.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

using cxmat::matrix;
namespace q8 = cxmat::q8;

struct error_stats {
  double max = 0, max_inside = 0, sum = 0;
  std::size_t count = 0, clipped = 0;
  void add(double e, bool outside) {
    max = std::max(max, e);
    if (!outside) max_inside = std::max(max_inside, e);
    sum += e;
    ++count;
    clipped += outside ? 1U : 0U;
  }
  double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
};

template <class Y8, class YF>
void accumulate(error_stats& s, const Y8& y8, const YF& yf, q8::quantization out) {
  const auto y = q8::dequantize(y8, out);
  for (std::size_t i = 0; i < YF::rows; ++i) {
    for (std::size_t j = 0; j < YF::cols; ++j) {
      const double lo = out.scale * (-128 - out.zero_point), hi = out.scale * (127 - out.zero_point);
      s.add(std::abs(y(i, j) - yf(i, j)) / out.scale, yf(i, j) < lo || yf(i, j) > hi);
    }
  }
}

void row(const char* layer, const char* masks, const char* inputs, const error_stats& s) {
  std::printf("| %s | %s | %s | %.2f | %.3f | %.2f %% | %.2f |\n", layer, masks, inputs, s.max, s.mean(),
              100.0 * static_cast<double>(s.clipped) / static_cast<double>(s.count), s.max_inside);
}

template <class M>
M random_matrix(std::mt19937_64& rng, double amplitude) {
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = u(rng);
  }
  return m;
}

// Random layers: weights uniform in ±1/√d (Xavier-like), inputs uniform in ±2; `layers` seeds,
// each calibrated on 16 inputs and measured on those and on 64 held-out inputs, then calibrated
// again on all 80 and measured on the same 64 (which shows what inputs outside the calibrated
// ranges cost).
template <std::size_t N, std::size_t D, std::size_t H, bool Causal>
void random_layers(const char* name, int layers) {
  error_stats seen, held_out, held_out_calibrated;
  for (int seed = 1; seed <= layers; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 1000 + N * 10 + D);
    const double a = 1.0 / std::sqrt(static_cast<double>(D));
    const auto wq = random_matrix<matrix<double, D, D>>(rng, a), wk = random_matrix<matrix<double, D, D>>(rng, a),
               wv = random_matrix<matrix<double, D, D>>(rng, a), wo = random_matrix<matrix<double, D, D>>(rng, a);
    const auto first = std::make_unique<cxmat::batch<double, 16, N, D>>();
    const auto all = std::make_unique<cxmat::batch<double, 80, N, D>>();
    for (std::size_t i = 0; i < 80; ++i) {
      all->items[i] = random_matrix<matrix<double, N, D>>(rng, 2.0);
      if (i < 16) first->items[i] = all->items[i];
    }
    const auto run = [&](const auto& cal, const matrix<double, N, D>& x, error_stats& s) {
      if constexpr (Causal) {
        accumulate(s, q8::multi_head_attention(q8::quantize(x, cal.input), cal.layer, cxmat::causal),
                   cxmat::multi_head_attention<H>(x, wq, wk, wv, wo, cxmat::causal), cal.output);
      } else {
        accumulate(s, q8::multi_head_attention(q8::quantize(x, cal.input), cal.layer),
                   cxmat::multi_head_attention<H>(x, wq, wk, wv, wo), cal.output);
      }
    };
    const auto calibrate = [&](const auto& xs) {
      if constexpr (Causal) {
        return q8::calibrate<H>(xs, wq, wk, wv, wo, cxmat::causal);
      } else {
        return q8::calibrate<H>(xs, wq, wk, wv, wo);
      }
    };
    const auto cal = calibrate(*first);
    const auto cal_all = calibrate(*all);
    for (std::size_t i = 0; i < 16; ++i) run(cal, all->items[i], seen);
    for (std::size_t i = 16; i < 80; ++i) {
      run(cal, all->items[i], held_out);
      run(cal_all, all->items[i], held_out_calibrated);
    }
  }
  row(name, Causal ? "causal" : "none", "calibration set", seen);
  row(name, Causal ? "causal" : "none", "held-out", held_out);
  row(name, Causal ? "causal" : "none", "held-out, also calibrated on", held_out_calibrated);
}

// The integer layer norm of width 64 against the float layer norm, 20 seeds of γ (1 ± 0.5) and
// β (± 0.3) with 256 rows each (uniform in ±2, or one outlier of 6 among them), input quantized
// over [-6, 6], output over the float outputs' range: from the dequantized input (the integer
// arithmetic alone) and from the float input (with the input's quantization).
void layer_norms() {
  error_stats arithmetic, whole;
  for (int seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 7919);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    cxmat::layer_norm_module<double, 64> f{};
    for (std::size_t j = 0; j < 64; ++j) f.weight(0, j) = 1.0 + 0.5 * u(rng), f.bias(0, j) = 0.3 * u(rng);
    const auto xs = std::make_unique<matrix<double, 256, 64>>(random_matrix<matrix<double, 256, 64>>(rng, 2.0));
    for (std::size_t i = 0; i < 256; i += 2) (*xs)(i, i % 64) = 6.0;
    const q8::quantization in = q8::choose_quantization(-6.0, 6.0);
    const auto yf = std::make_unique<matrix<double, 256, 64>>(cxmat::layer_norm(*xs, f.weight, f.bias, f.eps));
    double lo = 0, hi = 0;
    for (std::size_t i = 0; i < 256; ++i) {
      for (std::size_t j = 0; j < 64; ++j) lo = std::min(lo, (*yf)(i, j)), hi = std::max(hi, (*yf)(i, j));
    }
    const q8::quantization out = q8::choose_quantization(lo, hi);
    const auto l = q8::quantize_layer_norm(f, in, out);
    const auto x8 = std::make_unique<matrix<std::int8_t, 256, 64>>(q8::quantize(*xs, in));
    const auto y8 = std::make_unique<matrix<std::int8_t, 256, 64>>(l(*x8));
    accumulate(whole, *y8, *yf, out);
    accumulate(arithmetic, *y8, cxmat::layer_norm(q8::dequantize(*x8, in), f.weight, f.bias, f.eps), out);
  }
  row("layer norm, d = 64 (20 seeds, 256 rows each)", "-", "dequantized int8 input", arithmetic);
  row("layer norm, d = 64 (20 seeds, 256 rows each)", "-", "float input", whole);
}

// Random encoder layers (n = 16, d_model = 32, H = 4, d_ff = 64; weights uniform in ±1/√fan-in,
// γ around 1, small β and biases, as test_support/layer_support.hpp builds them), calibrated on
// 16 inputs uniform in ±2 and measured as random_layers does, against the float layer.
template <class Float>
void encoder_layers(const char* name, int layers) {
  constexpr std::size_t n = 16, d = Float::d_model.size;
  error_stats seen, held_out, held_out_calibrated;
  for (int seed = 1; seed <= layers; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 1000 + 7);
    const Float f = q8_test::random_encoder_layer<Float>(static_cast<std::uint64_t>(seed));
    const auto first = std::make_unique<cxmat::batch<double, 16, n, d>>();
    const auto all = std::make_unique<cxmat::batch<double, 80, n, d>>();
    for (std::size_t i = 0; i < 80; ++i) {
      all->items[i] = random_matrix<matrix<double, n, d>>(rng, 2.0);
      if (i < 16) first->items[i] = all->items[i];
    }
    const auto cal = q8::calibrate(*first, f);
    const auto cal_all = q8::calibrate(*all, f);
    const auto run = [&](const auto& c, const matrix<double, n, d>& x, error_stats& s) {
      accumulate(s, c.module(q8::quantize(x, c.input)), f(x), c.output);
    };
    for (std::size_t i = 0; i < 16; ++i) run(cal, all->items[i], seen);
    for (std::size_t i = 16; i < 80; ++i) {
      run(cal, all->items[i], held_out);
      run(cal_all, all->items[i], held_out_calibrated);
    }
  }
  row(name, "none", "calibration set", seen);
  row(name, "none", "held-out", held_out);
  row(name, "none", "held-out, also calibrated on", held_out_calibrated);
}

// Random decoder layers (n = 16 queries, s = 12 memory rows, d_model = 32, H = 4, d_ff = 64, drawn
// as test_support/layer_support.hpp draws them), causal self-attention, calibrated on 16 input /
// memory pairs uniform in ±2 and measured as encoder_layers does, against the float layer.
template <class Float>
void decoder_layers(const char* name, int layers) {
  constexpr std::size_t n = 16, s = 12, d = Float::d_model.size;
  error_stats seen, held_out, held_out_calibrated;
  for (int seed = 1; seed <= layers; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 1000 + 11);
    const Float f = q8_test::random_decoder_layer<Float>(static_cast<std::uint64_t>(seed));
    const auto first = std::make_unique<cxmat::batch<double, 16, n, d>>();
    const auto all = std::make_unique<cxmat::batch<double, 80, n, d>>();
    const auto first_m = std::make_unique<cxmat::batch<double, 16, s, d>>();
    const auto all_m = std::make_unique<cxmat::batch<double, 80, s, d>>();
    for (std::size_t i = 0; i < 80; ++i) {
      all->items[i] = random_matrix<matrix<double, n, d>>(rng, 2.0);
      all_m->items[i] = random_matrix<matrix<double, s, d>>(rng, 2.0);
      if (i < 16) first->items[i] = all->items[i], first_m->items[i] = all_m->items[i];
    }
    const auto cal = q8::calibrate(*first, *first_m, f, cxmat::causal);
    const auto cal_all = q8::calibrate(*all, *all_m, f, cxmat::causal);
    const auto run = [&](const auto& c, std::size_t i, error_stats& e) {
      accumulate(e,
                 c.module(q8::quantize(all->items[i], c.input), q8::quantize(all_m->items[i], c.memory), cxmat::causal),
                 f(all->items[i], all_m->items[i], cxmat::causal), c.output);
    };
    for (std::size_t i = 0; i < 16; ++i) run(cal, i, seen);
    for (std::size_t i = 16; i < 80; ++i) {
      run(cal, i, held_out);
      run(cal_all, i, held_out_calibrated);
    }
  }
  row(name, "causal", "calibration set", seen);
  row(name, "causal", "held-out", held_out);
  row(name, "causal", "held-out, also calibrated on", held_out_calibrated);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "layers") {
    std::printf(
        "| layer | masks | inputs | max error (LSB) | mean error (LSB) | outside output range | max error inside "
        "it (LSB) |\n");
    std::printf("|---|---|---|---:|---:|---:|---:|\n");
    layer_norms();
    using cxmat::activation;
    encoder_layers<cxmat::encoder_layer<double, 32, 4, 64>>(
        "encoder layer, post-norm, ReLU, n = 16, d_model = 32, H = 4, d_ff = 64 (5 seeds)", 5);
    encoder_layers<cxmat::encoder_layer<double, 32, 4, 64, activation::relu, true>>(
        "encoder layer, pre-norm, ReLU, n = 16, d_model = 32, H = 4, d_ff = 64 (5 seeds)", 5);
    encoder_layers<cxmat::encoder_layer<double, 32, 4, 64, activation::gelu>>(
        "encoder layer, post-norm, GELU (table), n = 16, d_model = 32, H = 4, d_ff = 64 (5 seeds)", 5);
    decoder_layers<cxmat::decoder_layer<double, 32, 4, 64>>(
        "decoder layer, post-norm, ReLU, n = 16, s = 12, d_model = 32, H = 4, d_ff = 64 (5 seeds)", 5);
    decoder_layers<cxmat::decoder_layer<double, 32, 4, 64, activation::relu, true>>(
        "decoder layer, pre-norm, ReLU, n = 16, s = 12, d_model = 32, H = 4, d_ff = 64 (5 seeds)", 5);
    decoder_layers<cxmat::decoder_layer<double, 32, 4, 64, activation::gelu>>(
        "decoder layer, post-norm, GELU (table), n = 16, s = 12, d_model = 32, H = 4, d_ff = 64 (5 seeds)", 5);
    return 0;
  }
  std::printf(
      "| layer | masks | inputs | max error (LSB) | mean error (LSB) | outside output range | max error inside it "
      "(LSB) |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|\n");
  {
    // Worksheet 004, as in examples/quantized_attention.cpp: calibrated on X and X reversed.
    using namespace worksheet_data::ws004;
    const cxmat::batch<double, 2, 5, 6> set{{X, cxmat::permute_rows<4, 3, 2, 1, 0>(X)}};
    error_stats s, sc;
    const auto cal = q8::calibrate<3>(set, Wq, Wk, Wv);
    accumulate(s, q8::multi_head_attention(q8::quantize(X, cal.input), cal.layer),
               cxmat::multi_head_attention<3>(X, Wq, Wk, Wv), cal.output);
    row("worksheet 004 (5 x 6, H = 3, no W_o)", "none", "X", s);
    const auto calc = q8::calibrate<3>(set, Wq, Wk, Wv, cxmat::causal);
    accumulate(sc, q8::multi_head_attention(q8::quantize(X, calc.input), calc.layer, cxmat::causal),
               cxmat::multi_head_attention<3>(X, Wq, Wk, Wv, cxmat::causal), calc.output);
    row("worksheet 004 (5 x 6, H = 3, no W_o)", "causal", "X", sc);
  }
  random_layers<8, 16, 2, false>("random, n = 8, d_model = 16, H = 2, W_o (20 seeds)", 20);
  random_layers<8, 16, 2, true>("random, n = 8, d_model = 16, H = 2, W_o (20 seeds)", 20);
  random_layers<16, 32, 4, false>("random, n = 16, d_model = 32, H = 4, W_o (10 seeds)", 10);
  random_layers<32, 64, 8, false>("random, n = 32, d_model = 64, H = 8, W_o (5 seeds)", 5);
  return 0;
}
