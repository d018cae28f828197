// The digit sorter in int8 (cxmat::q8): train.py's float model (sort_digits.safetensors, imported
// in the build) calibrated at run time on 64 random sequences (drawn here, not the held-out
// ones) the way TFLite's post-training quantization does it, then run in integers only: the
// embedding table and the positions as int8 tensors summed by TFLite's ADD, two int8 encoder
// layers, and the int8 head, whose largest logit is the prediction. Where the build made PyTorch's
// held-out sequences (CXMAT_SORT_DIGITS_REFERENCE), it prints the share of them the int8 model
// sorts beside the float model's, and fails below the floor int8_floor.
//   sort_digits_q8 [N]   the first N held-out sequences (default: all 10,000)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <utility>

#include <cxmat/quantized.hpp>
#include <cxmat/transformer.hpp>

#include "sort_embed.hpp"    // embed.weight: 10 x 32
#include "sort_encoder.hpp"  // encoder.layers.0. and .1.: 2 x nn.TransformerEncoderLayer(32, 4, 64)
#include "sort_head.hpp"     // head: nn.Linear(32, 10)
#include "sort_pos.hpp"      // pos: 8 x 32 learned positions
#if CXMAT_SORT_DIGITS_REFERENCE
#include "held_out.hpp"  // predictions.py: held-out sequences and PyTorch's predictions
#endif

namespace {

namespace q8 = cxmat::q8;
using cxmat::matrix;
using tokens8 = matrix<int, 1, 8>;
using float_layer = std::remove_cvref_t<decltype(sort_encoder.layers[0])>;
using layer_calibration = decltype(q8::calibrate(std::declval<const cxmat::batch<float, 64, 8, sort::d_model>&>(),
                                                 std::declval<const float_layer&>()));

// The share of held-out sequences the int8 model must sort: it sorted 9,999 of all 10,000 (99.99 %,
// as the float model; every int8 prediction equal to the float one) and all of the first 1,000
// when this example was written.
constexpr double int8_floor = 0.999;

// The float model's input, embedding + positions (n x d_model), as train.py's forward.
matrix<float, 8, sort::d_model> float_input(const tokens8& digits) {
  return sort_embed(digits) + sort_pos_weights::pos;
}

// The int8 model: every parameter derived from the float one and the calibration set.
struct int8_sorter {
  q8::quantization embed_q{}, pos_q{};
  matrix<std::int8_t, sort::digits, sort::d_model> embed{};
  matrix<std::int8_t, 8, sort::d_model> pos{};
  q8::add_params input{};
  layer_calibration layers[2]{};
  q8::quantization logits_q{};
  q8::linear_module<32, 10> head{};

  matrix<std::int8_t, 8, 10> logits(const tokens8& digits) const {
    matrix<std::int8_t, 8, sort::d_model> rows{};
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t j = 0; j < 32; ++j) rows(i, j) = embed(static_cast<std::size_t>(digits(0, i)), j);
    }
    const auto x0 = q8::add(rows, pos, input);
    const auto x1 = layers[0].module(x0);
    return head(layers[1].module(x1));
  }
};

// The asymmetric int8 quantization of a tensor's min/max (TFLite's ChooseQuantizationParams).
template <class M>
q8::quantization range_of(const M& m, double& lo, double& hi) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      lo = std::min(lo, static_cast<double>(m(i, j)));
      hi = std::max(hi, static_cast<double>(m(i, j)));
    }
  }
  return q8::choose_quantization(lo, hi);
}
template <class M>
q8::quantization range_of(const M& m) {
  double lo = 0, hi = 0;
  return range_of(m, lo, hi);
}

// Random digit sequences from a 64-bit LCG (Knuth's MMIX constants), uniform like train.py's.
struct lcg {
  std::uint64_t state;
  int digit() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % 10);
  }
};

// Calibration: the float model on 64 random sequences, each layer calibrated on its float inputs.
// Layer 1's input is layer 0's output, so its quantization must be layer 0's output quantization
// (one tensor, one quantization, as in a TFLite model): checked, not assumed.
bool calibrate(int8_sorter& m) {
  const auto xs = std::make_unique<cxmat::batch<float, 64, 8, sort::d_model>>();
  lcg g{20261126};
  for (std::size_t b = 0; b < 64; ++b) {
    tokens8 digits{};
    for (std::size_t i = 0; i < 8; ++i) digits(0, i) = g.digit();
    xs->items[b] = float_input(digits);
  }
  // The embedding table and the positions: int8 tensors over their own ranges.
  m.embed_q = range_of(sort_embed_weights::weight);
  m.pos_q = range_of(sort_pos_weights::pos);
  m.embed = q8::quantize(sort_embed_weights::weight, m.embed_q);
  m.pos = cxmat::with_dims<8, sort::d_model>(q8::quantize(sort_pos_weights::pos, m.pos_q));
  m.layers[0] = q8::calibrate(*xs, sort_encoder.layers[0]);
  const auto hidden = std::make_unique<cxmat::batch<float, 64, 8, sort::d_model>>();
  for (std::size_t b = 0; b < 64; ++b) hidden->items[b] = sort_encoder.layers[0](xs->items[b]);
  m.layers[1] = q8::calibrate(*hidden, sort_encoder.layers[1]);
  double lo = 0, hi = 0;
  for (std::size_t b = 0; b < 64; ++b) {
    m.logits_q = range_of(sort_head(sort_encoder.layers[1](hidden->items[b])), lo, hi);
  }
  m.head = q8::quantize_linear(sort_head, m.layers[1].output, m.logits_q);
  m.input = q8::make_add_params(m.embed_q, m.pos_q, m.layers[0].input);
  return m.layers[0].ok() && m.layers[1].ok() && m.layers[1].input == m.layers[0].output;
}

}  // namespace

int main(int argc, char** argv) {
  const auto model = std::make_unique<int8_sorter>();
  if (!calibrate(*model)) {
    std::printf("calibration failed, or layer 1's input quantization is not layer 0's output quantization\n");
    return 1;
  }
  const tokens8 example{{{3, 1, 4, 1, 5, 9, 2, 6}}};
  const auto p = cxmat::argmax_rows(model->logits(example));
  std::printf("31415926 -> ");
  for (std::size_t i = 0; i < 8; ++i) std::printf("%zu", p(0, i));
  std::printf(" (int8)\n");
#if CXMAT_SORT_DIGITS_REFERENCE
  std::size_t count = held_out_count;
  if (argc > 1) count = static_cast<std::size_t>(std::strtoul(argv[1], nullptr, 10));
  if (count > held_out_count) count = held_out_count;
  std::size_t sorted_int8 = 0, sorted_float = 0, same = 0;
  for (std::size_t s = 0; s < count; ++s) {
    tokens8 digits{};
    for (std::size_t i = 0; i < 8; ++i) digits(0, i) = held_out_digits[s][i];
    const auto p8 = cxmat::argmax_rows(model->logits(digits));
    const auto pf = cxmat::argmax_rows(sort_head(sort_encoder(float_input(digits))));
    // Fully sorted: the prediction is the sorted sequence (the digits counted, then laid out).
    unsigned counts[10]{};
    for (std::size_t i = 0; i < 8; ++i) ++counts[held_out_digits[s][i]];
    std::size_t want[8]{}, k = 0;
    for (std::size_t d = 0; d < 10; ++d) {
      for (unsigned c = 0; c < counts[d]; ++c) want[k++] = d;
    }
    bool ok8 = true, okf = true, agree = true;
    for (std::size_t i = 0; i < 8; ++i) {
      ok8 = ok8 && p8(0, i) == want[i];
      okf = okf && pf(0, i) == want[i];
      agree = agree && p8(0, i) == pf(0, i);
    }
    sorted_int8 += ok8 ? 1U : 0U;
    sorted_float += okf ? 1U : 0U;
    same += agree ? 1U : 0U;
  }
  const double share = static_cast<double>(sorted_int8) / static_cast<double>(count);
  std::printf(
      "held-out: int8 sorts %zu of %zu sequences (%.2f %%), float %zu (%.2f %%); the int8 prediction equals the "
      "float one on %zu\n",
      sorted_int8, count, 100.0 * share, sorted_float,
      100.0 * static_cast<double>(sorted_float) / static_cast<double>(count), same);
  return share >= int8_floor ? 0 : 1;
#else
  (void)argc;
  (void)argv;
  std::printf("(PyTorch's held-out sequences were not made in this build: accuracy not measured)\n");
  return 0;
#endif
}
