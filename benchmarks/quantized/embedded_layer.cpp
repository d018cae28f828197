// The int8 layer at n = 8, d_model = 16, H = 2 (d_k = d_v = 8), d_out = 16, as firmware holds it:
// parameters calibrated in the compiler into flash, one function running the layer. size.py
// cross-compiles this file for Cortex-M and reports code size, stack use and the symbols it needs.
#include <cstdint>

#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>

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
