// Shared by the static and run-time tests of the int8 layer: the library's layer as the
// reference's plain description (flat copies of its arrays), and a seeded float layer.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/quantized.hpp>

#include "test_support/tflite_reference.hpp"

namespace q8_test {

constexpr q8_ref::product to_ref(const cxmat::q8::matmul_params& p) {
  return {p.lhs_offset,   p.rhs_offset,     p.output_offset, p.output.multiplier,
          p.output.shift, p.activation_min, p.activation_max};
}

template <class M, class T>
constexpr void flatten(const M& m, T* out) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) out[i * M::cols + j] = m(i, j);
  }
}

// Flat copies of a layer's arrays, and the reference's description pointing at them.
template <std::size_t DM, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DO>
struct flat_layer {
  std::int8_t wq[H * DK * DM]{}, wk[H * DK * DM]{}, wv[H * DV * DM]{}, wo[DO * H * DV + 1]{};
  std::int32_t bq[H * DK]{}, bk[H * DK]{}, bv[H * DV]{}, bo[DO + 1]{};
  // Per-channel requantizers, as multiplier and shift arrays.
  std::int32_t mq[H * DK]{}, sq[H * DK]{}, mk[H * DK]{}, sk[H * DK]{}, mv[H * DV]{}, sv[H * DV]{}, mo[DO + 1]{},
      so[DO + 1]{};
};

template <std::size_t W>
constexpr void split(const cxmat::q8::requantizer (&r)[W], std::int32_t* m, std::int32_t* s) {
  for (std::size_t j = 0; j < W; ++j) m[j] = r[j].multiplier, s[j] = r[j].shift;
}

template <std::size_t N, std::size_t DM, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DO, class L>
constexpr void run_reference(const L& layer, const cxmat::matrix<std::int8_t, N, DM>& x, const bool* mask,
                             std::int8_t* y, std::int8_t* probs = nullptr) {
  flat_layer<DM, H, DK, DV, DO> f{};
  flatten(layer.wq, f.wq), flatten(layer.wk, f.wk), flatten(layer.wv, f.wv);
  flatten(layer.bq, f.bq), flatten(layer.bk, f.bk), flatten(layer.bv, f.bv);
  q8_ref::layer_ref r{N,
                      DM,
                      H,
                      DK,
                      DV,
                      DO,
                      f.wq,
                      f.wk,
                      f.wv,
                      f.wo,
                      f.bq,
                      f.bk,
                      f.bv,
                      f.bo,
                      to_ref(layer.query),
                      to_ref(layer.key),
                      to_ref(layer.value),
                      to_ref(layer.scores),
                      to_ref(layer.context),
                      {},
                      {layer.softmax.multiplier, layer.softmax.left_shift, layer.softmax.diff_min}};
  if constexpr (DO != 0) {
    flatten(layer.wo, f.wo), flatten(layer.bo, f.bo);
    r.output = to_ref(layer.output);
  }
  if constexpr (L::per_channel) {
    split(layer.channels.query, f.mq, f.sq), split(layer.channels.key, f.mk, f.sk);
    split(layer.channels.value, f.mv, f.sv);
    r.query.multipliers = f.mq, r.query.shifts = f.sq, r.key.multipliers = f.mk, r.key.shifts = f.sk;
    r.value.multipliers = f.mv, r.value.shifts = f.sv;
    if constexpr (DO != 0) {
      split(layer.output_channels.values, f.mo, f.so);
      r.output.multipliers = f.mo, r.output.shifts = f.so;
    }
  }
  std::int8_t xf[N * DM]{};
  flatten(x, xf);
  q8_ref::attention(r, xf, mask, y, probs);
}

// A seeded float layer and input set: values uniform in [-1, 1) from a 64-bit LCG (Knuth's MMIX
// constants), so the static and run-time tests can build the same layers.
struct lcg {
  std::uint64_t state;
  constexpr double next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1p-52 - 1.0;
  }
};
template <class M>
constexpr M random_matrix(lcg& g, double amplitude) {
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = amplitude * g.next();
  }
  return m;
}

}  // namespace q8_test
