// The digit sorter in int8 (cxmat::q8): train.py's float model (sort_model.hpp, on the imported
// headers) calibrated on random digit sequences the way TFLite's post-training quantization does
// it, then run in integers only: the embedding table and the positions as int8 tensors summed by
// TFLite's ADD, two int8 encoder layers, and the int8 head, whose largest logit is the prediction.
//
// Each calibration step is a constexpr function, so the same code calibrates at run time
// (sort_digits_q8.cpp, on 64 sequences) and in the compiler: `calibrated` is the model the
// compiler calibrates on the first compile_time_sequences of those sequences, one constant
// expression per step (each with its own evaluation budget). It holds only integers; the
// Cortex-M firmware (examples/embedded/layers_sort_q8.hpp) runs it with no float weight in its
// image, and sort_digits_q8 measures its accuracy on the held-out sequences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/quantized/add.hpp>
#include <cxmat/quantized/encoder_layer.hpp>
#include <cxmat/quantized/linear.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/transformer/embedding.hpp>
#include <cxmat/transformer/layers.hpp>
#include <cxmat/transformer/linear.hpp>

#include "sort_model.hpp"

namespace sort_model_q8 {

namespace q8 = cxmat::q8;
inline constexpr std::size_t length = sort_model::length;
using tokens = cxmat::matrix<int, 1, length>;
template <std::size_t B>
using batch = cxmat::batch<double, B, length, sort::d_model>;
using float_layer = std::remove_cvref_t<decltype(sort_encoder.layers[0])>;
using int8_layer = q8::encoder_layer<sort::d_model.size, float_layer::heads, sort::d_ff.size>;

/// The int8 model: everything it runs, nothing else (no quantization of its own input).
struct model {
  cxmat::matrix<std::int8_t, sort::digits, sort::d_model> embed{};
  cxmat::matrix<std::int8_t, length, sort::d_model> pos{};
  q8::add_params input{};  // embedding + positions, into layer 0's input quantization
  int8_layer layers[2]{};
  q8::linear_module<sort::d_model.size, sort::digits.size> head{};

  /// The memory a call works in, besides rows and frames: one encoder layer's (the layers run
  /// one after the other and share it). q8::scratch_bytes<model, length> is its size.
  template <std::size_t N>
  using workspace = int8_layer::workspace<N>;

  /// The int8 logits of a row of 8 digit tokens (0 to 9): 8 x 10, the layers computing in ws.
  constexpr cxmat::matrix<std::int8_t, length, sort::digits.size> logits(const tokens& digits,
                                                                         workspace<length>& ws) const noexcept {
    cxmat::matrix<std::int8_t, length, sort::d_model> rows{};
    for (std::size_t i = 0; i < length; ++i) {
      for (std::size_t j = 0; j < sort::d_model.size; ++j)
        rows(i, j) = embed(static_cast<std::size_t>(digits(0, i)), j);
    }
    return head(layers[1](layers[0](q8::add(rows, pos, input), ws), ws));
  }
  /// The same with the workspace on the stack.
  constexpr cxmat::matrix<std::int8_t, length, sort::digits.size> logits(const tokens& digits) const noexcept {
    workspace<length> ws;
    return logits(digits, ws);
  }
  /// The sorted sequence the int8 model predicts: the largest logit at each position.
  constexpr cxmat::matrix<std::size_t, 1, length> predict(const tokens& digits) const noexcept {
    return cxmat::argmax_rows(logits(digits));
  }
  /// The same, the layers computing in ws.
  constexpr cxmat::matrix<std::size_t, 1, length> predict(const tokens& digits, workspace<length>& ws) const noexcept {
    return cxmat::argmax_rows(logits(digits, ws));
  }
};

/// Random digit sequences from a 64-bit LCG (Knuth's MMIX constants), uniform like train.py's.
struct lcg {
  std::uint64_t state;
  constexpr int digit() noexcept {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % 10);
  }
};
inline constexpr std::uint64_t calibration_seed = 20261126;

/// The calibration runs the float model in double (the float weights converted exactly): cxmat
/// fuses no double multiply-add on x86-64 (without -mfma) nor on a Cortex-M4F (no double FPU),
/// while GCC fuses float ones on the Cortex-M4F and not on x86-64 (cxmat/math/fp.hpp), so in
/// double the host's compiler and the firmware's round alike and calibrate the same model (the
/// firmware test compares the two models' logits, byte for byte).
template <class M>
constexpr cxmat::matrix<double, M::row_extent, M::col_extent> in_double(const M& m) noexcept {
  cxmat::matrix<double, M::row_extent, M::col_extent> d{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) d(i, j) = static_cast<double>(m(i, j));
  }
  return d;
}
using double_layer = cxmat::encoder_layer<double, sort::d_model, float_layer::heads, sort::d_ff>;
constexpr double_layer in_double(const float_layer& f) noexcept {
  double_layer d{};
  d.self_attn = {in_double(f.self_attn.w_q), in_double(f.self_attn.w_k), in_double(f.self_attn.w_v),
                 in_double(f.self_attn.b_q), in_double(f.self_attn.b_k), in_double(f.self_attn.b_v),
                 in_double(f.self_attn.w_o), in_double(f.self_attn.b_o)};
  d.linear1 = {in_double(f.linear1.weight), in_double(f.linear1.bias)};
  d.linear2 = {in_double(f.linear2.weight), in_double(f.linear2.bias)};
  d.norm1 = {in_double(f.norm1.weight), in_double(f.norm1.bias), static_cast<double>(f.norm1.eps)};
  d.norm2 = {in_double(f.norm2.weight), in_double(f.norm2.bias), static_cast<double>(f.norm2.eps)};
  return d;
}
inline constexpr double_layer double_layers[2] = {in_double(sort_encoder.layers[0]), in_double(sort_encoder.layers[1])};
inline constexpr cxmat::linear_module<double, sort::d_model, sort::digits> double_head = {in_double(sort_head.weight),
                                                                                          in_double(sort_head.bias)};

/// The float model's inputs (embedding + positions, n x d_model, computed in float, then
/// converted) for the first B sequences of the calibration stream.
template <std::size_t B>
constexpr batch<B> calibration_inputs() noexcept {
  batch<B> xs{};
  lcg g{calibration_seed};
  for (std::size_t b = 0; b < B; ++b) {
    tokens digits{};
    for (std::size_t i = 0; i < length; ++i) digits(0, i) = g.digit();
    xs[b] = in_double(sort_embed(digits) + sort_pos_weights::pos);
  }
  return xs;
}

/// Encoder layer k (in double) on every input of xs (a batch).
template <class Batch>
constexpr Batch layer_outputs(const Batch& xs, std::size_t k) noexcept {
  Batch ys{};
  for (std::size_t b = 0; b < Batch::count; ++b) ys[b] = double_layers[k](xs[b]);
  return ys;
}

/// The asymmetric int8 quantization of a tensor's min/max over the values seen so far (lo, hi
/// start at 0: TFLite's ChooseQuantizationParams includes 0 in every range).
struct min_max {
  double lo = 0, hi = 0;
  template <class M>
  constexpr void observe(const M& m) noexcept {
    for (std::size_t i = 0; i < M::rows; ++i) {
      for (std::size_t j = 0; j < M::cols; ++j) {
        const double v = static_cast<double>(m(i, j));
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
    }
  }
  constexpr q8::quantization quantization() const noexcept { return q8::choose_quantization(lo, hi); }
};

/// The quantization of the head's logits: their range over the model's last layer and head run
/// on layer 0's outputs (`hidden`, a batch).
template <class Batch>
constexpr q8::quantization logits_quantization(const Batch& hidden) noexcept {
  min_max r{};
  for (std::size_t b = 0; b < Batch::count; ++b) r.observe(double_head(double_layers[1](hidden[b])));
  return r.quantization();
}

using layer_calibration = q8::module_calibration<int8_layer>;

/// Whether two calibrated layers make one model: both calibrated, and layer 1's input
/// quantization layer 0's output quantization (one tensor, one quantization, as in a TFLite model).
constexpr bool fit_together(const layer_calibration& l0, const layer_calibration& l1) noexcept {
  return l0.ok() && l1.ok() && l1.input == l0.output;
}

/// The int8 model from its two calibrated layers and the logits' quantization: the embedding
/// table and the positions as int8 tensors over their own ranges, their sum into layer 0's input.
constexpr model assemble(const layer_calibration& l0, const layer_calibration& l1, q8::quantization logits) noexcept {
  min_max e{}, p{};
  e.observe(sort_embed_weights::weight);
  p.observe(sort_pos_weights::pos);
  model m{};
  m.embed = q8::quantize(sort_embed_weights::weight, e.quantization());
  m.pos = cxmat::with_dims<length, sort::d_model>(q8::quantize(sort_pos_weights::pos, p.quantization()));
  m.input = q8::make_add_params(e.quantization(), p.quantization(), l0.input);
  m.layers[0] = l0.module;
  m.layers[1] = l1.module;
  m.head = q8::quantize_linear(double_head, l1.output, logits);
  return m;
}

/// How many sequences the compiler calibrates on: 4, within both compilers' default constexpr
/// limits in every step (8 exceeds Clang's step limit, 16 g++'s operation limit). Each sequence
/// costs about 0.6 s of g++ and 65 MB of its memory; on the 10,000 held-out sequences the model
/// sorts 99.95 % calibrated on 4, 99.99 % on 64 (examples/sort_digits/README.md, measured by
/// calibration_sizes.py). -DCXMAT_SORT_Q8_SEQUENCES=N calibrates on another number.
#if !defined(CXMAT_SORT_Q8_SEQUENCES)
#define CXMAT_SORT_Q8_SEQUENCES 4
#endif
inline constexpr std::size_t compile_time_sequences = CXMAT_SORT_Q8_SEQUENCES;

/// The compiler's calibration, one constant expression per step (each within the compilers'
/// default limits).
namespace compile_time {
inline constexpr batch<compile_time_sequences> inputs = calibration_inputs<compile_time_sequences>();
inline constexpr layer_calibration layer0 = q8::calibrate(inputs, double_layers[0]);
inline constexpr batch<compile_time_sequences> hidden = layer_outputs(inputs, 0);
inline constexpr layer_calibration layer1 = q8::calibrate(hidden, double_layers[1]);
inline constexpr q8::quantization logits = logits_quantization(hidden);
static_assert(fit_together(layer0, layer1),
              "the compile-time calibration failed, or layer 1's input quantization is not layer 0's output");
}  // namespace compile_time

/// The int8 sorter the compiler calibrated: integers only.
inline constexpr model calibrated = assemble(compile_time::layer0, compile_time::layer1, compile_time::logits);

}  // namespace sort_model_q8
