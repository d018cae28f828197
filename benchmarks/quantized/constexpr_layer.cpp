// Calibration and the int8 layer in one constant expression, at a size given by macros
// (CXMAT_Q8_N tokens, CXMAT_Q8_D = d_model = d_out, CXMAT_Q8_H heads, CXMAT_Q8_B calibration
// inputs; with CXMAT_Q8_FF, an encoder layer of that d_ff; with CXMAT_Q8_S too, a decoder layer over memories of
// that many rows): constexpr_reach.py compiles it at growing sizes with the compilers' default constexpr limits and
// reports which sizes fit and how long each compilation takes.
#include <cstdint>
#include <initializer_list>

#include <cxmat/quantized.hpp>
#include <cxmat/transformer.hpp>

namespace {
using cxmat::matrix;

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

template <std::size_t N, std::size_t D, std::size_t H, std::size_t B>
constexpr int layer_output() {
  std::uint64_t s = 7;
  const auto wq = seeded<matrix<double, D, D>>(s, 0.2), wk = seeded<matrix<double, D, D>>(s, 0.2),
             wv = seeded<matrix<double, D, D>>(s, 0.2), wo = seeded<matrix<double, D, D>>(s, 0.2);
  cxmat::batch<double, B, N, D> xs{};
  for (auto& x : xs.items) x = seeded<matrix<double, N, D>>(s, 2.0);
  const auto cal = cxmat::q8::calibrate<H>(xs, wq, wk, wv, wo);
  return cxmat::q8::multi_head_attention(cxmat::q8::quantize(xs[0], cal.input), cal.layer)(0, 0);
}
// With CXMAT_Q8_FF: a post-norm ReLU encoder layer (d_ff = CXMAT_Q8_FF, unit norms) instead.
template <std::size_t N, std::size_t D, std::size_t H, std::size_t FF, std::size_t B>
constexpr int encoder_output() {
  std::uint64_t s = 7;
  cxmat::encoder_layer<double, D, H, FF> layer{};
  layer.self_attn.w_q = seeded<matrix<double, D, D>>(s, 0.2),
  layer.self_attn.w_k = seeded<matrix<double, D, D>>(s, 0.2);
  layer.self_attn.w_v = seeded<matrix<double, D, D>>(s, 0.2),
  layer.self_attn.w_o = seeded<matrix<double, D, D>>(s, 0.2);
  layer.linear1.weight = seeded<matrix<double, D, FF>>(s, 0.2);
  layer.linear2.weight = seeded<matrix<double, FF, D>>(s, 0.2);
  for (std::size_t j = 0; j < D; ++j) layer.norm1.weight(0, j) = 1.0, layer.norm2.weight(0, j) = 1.0;
  cxmat::batch<double, B, N, D> xs{};
  for (auto& x : xs.items) x = seeded<matrix<double, N, D>>(s, 2.0);
  const auto cal = cxmat::q8::calibrate(xs, layer);
  return cal.module(cxmat::q8::quantize(xs[0], cal.input))(0, 0);
}
// With CXMAT_Q8_FF and CXMAT_Q8_S: a post-norm ReLU decoder layer (unit norms) with a causal
// self-attention, calibrated on B inputs and B memories of S rows.
template <std::size_t N, std::size_t S, std::size_t D, std::size_t H, std::size_t FF, std::size_t B>
constexpr int decoder_output() {
  std::uint64_t s = 7;
  cxmat::decoder_layer<double, D, H, FF> layer{};
  for (auto* a : {&layer.self_attn, &layer.multihead_attn}) {
    a->w_q = seeded<matrix<double, D, D>>(s, 0.2), a->w_k = seeded<matrix<double, D, D>>(s, 0.2);
    a->w_v = seeded<matrix<double, D, D>>(s, 0.2), a->w_o = seeded<matrix<double, D, D>>(s, 0.2);
  }
  layer.linear1.weight = seeded<matrix<double, D, FF>>(s, 0.2);
  layer.linear2.weight = seeded<matrix<double, FF, D>>(s, 0.2);
  for (std::size_t j = 0; j < D; ++j)
    layer.norm1.weight(0, j) = layer.norm2.weight(0, j) = layer.norm3.weight(0, j) = 1.0;
  cxmat::batch<double, B, N, D> xs{};
  cxmat::batch<double, B, S, D> ms{};
  for (auto& x : xs.items) x = seeded<matrix<double, N, D>>(s, 2.0);
  for (auto& m : ms.items) m = seeded<matrix<double, S, D>>(s, 2.0);
  const auto cal = cxmat::q8::calibrate(xs, ms, layer, cxmat::causal);
  return cal.module(cxmat::q8::quantize(xs[0], cal.input), cxmat::q8::quantize(ms[0], cal.memory), cxmat::causal)(0, 0);
}
}  // namespace

#if defined(CXMAT_Q8_FF) && defined(CXMAT_Q8_S)
static_assert(decoder_output<CXMAT_Q8_N, CXMAT_Q8_S, CXMAT_Q8_D, CXMAT_Q8_H, CXMAT_Q8_FF, CXMAT_Q8_B>() >= -128);
#elif defined(CXMAT_Q8_FF)
static_assert(encoder_output<CXMAT_Q8_N, CXMAT_Q8_D, CXMAT_Q8_H, CXMAT_Q8_FF, CXMAT_Q8_B>() >= -128);
#else
static_assert(layer_output<CXMAT_Q8_N, CXMAT_Q8_D, CXMAT_Q8_H, CXMAT_Q8_B>() >= -128);
#endif
