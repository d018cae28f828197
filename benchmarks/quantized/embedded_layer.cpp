// The int8 layer at n = 8, d_model = 16, H = 2 (d_k = d_v = 8), d_out = 16, as firmware holds it:
// parameters calibrated in the compiler into flash, one function running the layer. size.py
// cross-compiles this file for Cortex-M and reports code size, stack use and the symbols it needs.
// With CXMAT_Q8_SIZE_ENCODER, the int8 encoder layer of the same size instead (d_ff = 32,
// post-norm, ReLU, per-channel weights, PyTorch's default biases and unit norms); with
// CXMAT_Q8_SIZE_DECODER, the int8 decoder layer of the same size (8 memory rows, causal
// self-attention, otherwise as the encoder layer).
#include <cstdint>
#include <initializer_list>

#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>
#ifdef CXMAT_Q8_SIZE_ENCODER
#include <cxmat/quantized/encoder_layer.hpp>
#endif
#ifdef CXMAT_Q8_SIZE_DECODER
#include <cxmat/quantized/decoder_layer.hpp>
#endif

namespace {
namespace q8 = cxmat::q8;
using cxmat::matrix;

// Seeded float weights and inputs, uniform in ±amplitude (a 64-bit LCG, Knuth's MMIX constants).
template <class M>
constexpr M seeded(std::uint64_t& state, double amplitude) {
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      m(i, j) = amplitude * (static_cast<double>(state >> 11) * 0x1p-52 - 1.0);
    }
  }
  return m;
}

#if defined(CXMAT_Q8_SIZE_DECODER)
constexpr auto make_decoder() {
  std::uint64_t s = 2024;
  cxmat::decoder_layer<double, 16, 2, 32> f{};
  for (auto* a : {&f.self_attn, &f.multihead_attn}) {
    a->w_q = seeded<matrix<double, 16, 16>>(s, 0.25), a->w_k = seeded<matrix<double, 16, 16>>(s, 0.25);
    a->w_v = seeded<matrix<double, 16, 16>>(s, 0.25), a->w_o = seeded<matrix<double, 16, 16>>(s, 0.25);
    a->b_q = seeded<matrix<double, 1, 16>>(s, 0.1), a->b_o = seeded<matrix<double, 1, 16>>(s, 0.1);
  }
  f.linear1.weight = seeded<matrix<double, 16, 32>>(s, 0.25), f.linear1.bias = seeded<matrix<double, 1, 32>>(s, 0.25);
  f.linear2.weight = seeded<matrix<double, 32, 16>>(s, 0.18), f.linear2.bias = seeded<matrix<double, 1, 16>>(s, 0.18);
  for (std::size_t j = 0; j < 16; ++j)
    f.norm1.weight(0, j) = 1.0, f.norm2.weight(0, j) = 1.0, f.norm3.weight(0, j) = 1.0;
  cxmat::batch<double, 2, 8, 16> xs{}, memories{};
  for (auto& x : xs.items) x = seeded<matrix<double, 8, 16>>(s, 2.0);
  for (auto& m : memories.items) m = seeded<matrix<double, 8, 16>>(s, 2.0);
  return q8::calibrate(xs, memories, f, cxmat::causal).module;
}
// Integers only: the decoder layer's weights, biases and parameters.
constexpr q8::decoder_layer<16, 2, 32> decoder = make_decoder();
}  // namespace

extern "C" void cxmat_q8_decoder_8x16(const matrix<std::int8_t, 8, 16>* x, const matrix<std::int8_t, 8, 16>* memory,
                                      matrix<std::int8_t, 8, 16>* y) {
  *y = decoder(*x, *memory, cxmat::causal);
}
#elif defined(CXMAT_Q8_SIZE_ENCODER)
constexpr auto make_encoder() {
  std::uint64_t s = 2024;
  cxmat::encoder_layer<double, 16, 2, 32> f{};
  f.self_attn.w_q = seeded<matrix<double, 16, 16>>(s, 0.25), f.self_attn.w_k = seeded<matrix<double, 16, 16>>(s, 0.25);
  f.self_attn.w_v = seeded<matrix<double, 16, 16>>(s, 0.25), f.self_attn.w_o = seeded<matrix<double, 16, 16>>(s, 0.25);
  f.self_attn.b_q = seeded<matrix<double, 1, 16>>(s, 0.1), f.self_attn.b_o = seeded<matrix<double, 1, 16>>(s, 0.1);
  f.linear1.weight = seeded<matrix<double, 16, 32>>(s, 0.25), f.linear1.bias = seeded<matrix<double, 1, 32>>(s, 0.25);
  f.linear2.weight = seeded<matrix<double, 32, 16>>(s, 0.18), f.linear2.bias = seeded<matrix<double, 1, 16>>(s, 0.18);
  for (std::size_t j = 0; j < 16; ++j) f.norm1.weight(0, j) = 1.0, f.norm2.weight(0, j) = 1.0;
  cxmat::batch<double, 2, 8, 16> xs{};
  for (auto& x : xs.items) x = seeded<matrix<double, 8, 16>>(s, 2.0);
  return q8::calibrate(xs, f).module;
}
// Integers only: the encoder layer's weights, biases and parameters.
constexpr q8::encoder_layer<16, 2, 32> encoder = make_encoder();
}  // namespace

extern "C" void cxmat_q8_encoder_8x16(const matrix<std::int8_t, 8, 16>* x, matrix<std::int8_t, 8, 16>* y) {
  *y = encoder(*x);
}
#else
constexpr auto make_calibration() {
  std::uint64_t s = 2024;
  const auto wq = seeded<matrix<double, 16, 16>>(s, 0.25), wk = seeded<matrix<double, 16, 16>>(s, 0.25),
             wv = seeded<matrix<double, 16, 16>>(s, 0.25), wo = seeded<matrix<double, 16, 16>>(s, 0.25);
  cxmat::batch<double, 2, 8, 16> xs{};
  for (auto& x : xs.items) x = seeded<matrix<double, 8, 16>>(s, 2.0);
  return q8::calibrate<2>(xs, wq, wk, wv, wo);
}
// Integers only: the layer's weights, biases and parameters (1.5 KB of flash).
constexpr q8::attention_layer<16, 2, 8, 8, 16> layer = make_calibration().layer;
}  // namespace

extern "C" void cxmat_q8_attention_8x16(const matrix<std::int8_t, 8, 16>* x, matrix<std::int8_t, 8, 16>* y) {
  *y = q8::multi_head_attention(*x, layer);
}

#ifndef CXMAT_Q8_SIZE_PLAIN_ONLY
extern "C" void cxmat_q8_attention_8x16_causal(const matrix<std::int8_t, 8, 16>* x, matrix<std::int8_t, 8, 16>* y) {
  *y = q8::multi_head_attention(*x, layer, cxmat::causal);
}
#endif
#endif
