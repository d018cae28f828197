// Shared by the static and run-time tests of the int8 layer: the library's layer as the
// reference's plain description (flat copies of its arrays), and a seeded float layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include <cxmat/quantized.hpp>
#include <cxmat/transformer.hpp>

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

// Whether an int8 matrix equals a flat row-major array.
template <class M>
constexpr bool equals_flat(const M& m, const std::int8_t* flat) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (m(i, j) != flat[i * M::cols + j]) return false;
    }
  }
  return true;
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

// The layer run by the reference on x (self-attention; mask N x N), or from x to a memory of s
// rows (flat, s x DM: cross-attention; mask N x s).
template <std::size_t N, std::size_t DM, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DO, class L>
constexpr void run_reference(const L& layer, const cxmat::matrix<std::int8_t, N, DM>& x, const bool* mask,
                             std::int8_t* y, std::int8_t* probs = nullptr, const std::int8_t* memory = nullptr,
                             std::size_t s = 0) {
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
  r.s = s;
  q8_ref::attention(r, xf, mask, y, probs, memory);
}

// The reference's description of an int8 linear module, and the module run by the reference.
template <std::size_t In, std::size_t Out>
struct flat_linear {
  std::int8_t w[Out * In]{};
  std::int32_t b[Out]{}, m[Out]{}, s[Out]{};
};
template <class L>
constexpr void run_linear_reference(const L& l, const std::int8_t* x, std::size_t n, std::int8_t* y) {
  flat_linear<L::d_in, L::d_out> f{};
  flatten(l.weight, f.w), flatten(l.bias, f.b);
  q8_ref::product p = to_ref(l.params);
  if constexpr (L::per_channel) {
    split(l.channels.values, f.m, f.s);
    p.multipliers = f.m, p.shifts = f.s;
  }
  q8_ref::matmul_t(x, f.w, f.b, n, L::d_out, L::d_in, p, y);
}

constexpr q8_ref::add_p to_ref(const cxmat::q8::add_params& p) {
  return {p.input1_offset,     p.input2_offset, p.output_offset,     p.left_shift,
          p.input1.multiplier, p.input1.shift,  p.input2.multiplier, p.input2.shift,
          p.output.multiplier, p.output.shift,  p.activation_min,    p.activation_max};
}
constexpr void run_add_reference(const cxmat::q8::add_params& p, const std::int8_t* a, const std::int8_t* b,
                                 std::size_t count, std::int8_t* y) {
  for (std::size_t i = 0; i < count; ++i) y[i] = q8_ref::add(a[i], b[i], to_ref(p));
}

template <std::size_t D>
constexpr void run_layer_norm_reference(const cxmat::q8::layer_norm_module<D>& l, const std::int8_t* x, std::size_t n,
                                        std::int8_t* y) {
  std::int32_t m[D]{}, s[D]{};
  split(l.scale, m, s);
  const q8_ref::layer_norm_p p{l.input_offset, l.output_offset, l.eps, m, s, l.bias};
  for (std::size_t i = 0; i < n; ++i) q8_ref::layer_norm(x + i * D, y + i * D, D, p);
}

// The int8 encoder layer, step by step on the reference's pieces: attention (run_reference),
// adds, layer norms and the two fully-connected layers, the activation table looked up plainly.
template <std::size_t N, class L>
constexpr void run_encoder_reference(const L& l, const cxmat::matrix<std::int8_t, N, L::d_model>& x, const bool* mask,
                                     std::int8_t* y) {
  constexpr std::size_t d = L::d_model, f = L::d_ff, h = L::heads;
  using M = cxmat::matrix<std::int8_t, N, d>;
  const auto attention = [&](const M& in, std::int8_t* out) {
    run_reference<N, d, h, d / h, d / h, d>(l.self_attn, in, mask, out);
  };
  const auto feed_forward = [&](const std::int8_t* in, std::int8_t* out) {
    std::int8_t hidden[N * f]{};
    run_linear_reference(l.linear1, in, N, hidden);
    if constexpr (L::activation_function != cxmat::activation::relu) {
      for (std::size_t i = 0; i < N * f; ++i) hidden[i] = l.act.values[hidden[i] + 128];
    }
    run_linear_reference(l.linear2, hidden, N, out);
  };
  std::int8_t xf[N * d]{}, a[N * d]{}, h1[N * d]{}, n1[N * d]{}, ff[N * d]{}, h2[N * d]{};
  flatten(x, xf);
  if constexpr (L::norm_first) {
    run_layer_norm_reference(l.norm1, xf, N, n1);
    M n1m{};
    for (std::size_t i = 0; i < N * d; ++i) n1m.elems[i / d][i % d] = n1[i];
    attention(n1m, a);
    run_add_reference(l.add1, xf, a, N * d, h1);
    run_layer_norm_reference(l.norm2, h1, N, h2);
    feed_forward(h2, ff);
    run_add_reference(l.add2, h1, ff, N * d, y);
  } else {
    attention(x, a);
    run_add_reference(l.add1, xf, a, N * d, h1);
    run_layer_norm_reference(l.norm1, h1, N, n1);
    feed_forward(n1, ff);
    run_add_reference(l.add2, n1, ff, N * d, h2);
    run_layer_norm_reference(l.norm2, h2, N, y);
  }
}

// The int8 decoder layer, step by step on the reference's pieces as the encoder's: x (N x d),
// memory (S x d), self_mask N x N and cross_mask N x S (or null).
template <std::size_t N, std::size_t S, class L>
constexpr void run_decoder_reference(const L& l, const cxmat::matrix<std::int8_t, N, L::d_model>& x,
                                     const cxmat::matrix<std::int8_t, S, L::d_model>& memory, const bool* self_mask,
                                     const bool* cross_mask, std::int8_t* y) {
  constexpr std::size_t d = L::d_model, f = L::d_ff, h = L::heads;
  using M = cxmat::matrix<std::int8_t, N, d>;
  const auto to_matrix = [](const std::int8_t* flat) {
    M m{};
    for (std::size_t i = 0; i < N * d; ++i) m.elems[i / d][i % d] = flat[i];
    return m;
  };
  std::int8_t mf[S * d]{};
  flatten(memory, mf);
  const auto self = [&](const std::int8_t* in, std::int8_t* out) {
    run_reference<N, d, h, d / h, d / h, d>(l.self_attn, to_matrix(in), self_mask, out);
  };
  const auto cross = [&](const std::int8_t* in, std::int8_t* out) {
    run_reference<N, d, h, d / h, d / h, d>(l.multihead_attn, to_matrix(in), cross_mask, out, nullptr, mf, S);
  };
  const auto feed_forward = [&](const std::int8_t* in, std::int8_t* out) {
    std::int8_t hidden[N * f]{};
    run_linear_reference(l.linear1, in, N, hidden);
    if constexpr (L::activation_function != cxmat::activation::relu) {
      for (std::size_t i = 0; i < N * f; ++i) hidden[i] = l.act.values[hidden[i] + 128];
    }
    run_linear_reference(l.linear2, hidden, N, out);
  };
  std::int8_t xf[N * d]{}, n[N * d]{}, a[N * d]{}, h1[N * d]{}, h2[N * d]{}, h3[N * d]{};
  flatten(x, xf);
  if constexpr (L::norm_first) {
    run_layer_norm_reference(l.norm1, xf, N, n);
    self(n, a);
    run_add_reference(l.add1, xf, a, N * d, h1);
    run_layer_norm_reference(l.norm2, h1, N, n);
    cross(n, a);
    run_add_reference(l.add2, h1, a, N * d, h2);
    run_layer_norm_reference(l.norm3, h2, N, n);
    feed_forward(n, a);
    run_add_reference(l.add3, h2, a, N * d, y);
  } else {
    self(xf, a);
    run_add_reference(l.add1, xf, a, N * d, h1);
    run_layer_norm_reference(l.norm1, h1, N, n);
    cross(n, a);
    run_add_reference(l.add2, n, a, N * d, h2);
    run_layer_norm_reference(l.norm2, h2, N, n);
    feed_forward(n, a);
    run_add_reference(l.add3, n, a, N * d, h3);
    run_layer_norm_reference(l.norm3, h3, N, y);
  }
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
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = static_cast<typename M::value_type>(amplitude * g.next());
  }
  return m;
}

// A seeded float encoder layer (weights uniform, amplitude 1/√fan-in as PyTorch's default
// initialisation; γ around 1, small β and biases) and B inputs of n rows.
template <class Layer>
constexpr Layer random_encoder_layer(std::uint64_t seed) {
  constexpr std::size_t d = Layer::d_model.size, f = Layer::d_ff.size;
  using T = typename Layer::value_type;
  using cxmat::matrix;
  lcg g{seed};
  Layer l{};
  const double a = 1.0 / cxmat::sqrt(static_cast<double>(d)), af = 1.0 / cxmat::sqrt(static_cast<double>(f));
  auto& sa = l.self_attn;
  sa.w_q = random_matrix<matrix<T, d, d>>(g, a), sa.w_k = random_matrix<matrix<T, d, d>>(g, a);
  sa.w_v = random_matrix<matrix<T, d, d>>(g, a), sa.w_o = random_matrix<matrix<T, d, d>>(g, a);
  sa.b_q = random_matrix<matrix<T, 1, d>>(g, 0.1), sa.b_k = random_matrix<matrix<T, 1, d>>(g, 0.1);
  sa.b_v = random_matrix<matrix<T, 1, d>>(g, 0.1), sa.b_o = random_matrix<matrix<T, 1, d>>(g, 0.1);
  l.linear1.weight = random_matrix<matrix<T, d, f>>(g, a), l.linear1.bias = random_matrix<matrix<T, 1, f>>(g, a);
  l.linear2.weight = random_matrix<matrix<T, f, d>>(g, af), l.linear2.bias = random_matrix<matrix<T, 1, d>>(g, af);
  for (std::size_t j = 0; j < d; ++j) {
    l.norm1.weight(0, j) = static_cast<T>(1.0 + 0.2 * g.next()),
                      l.norm2.weight(0, j) = static_cast<T>(1.0 + 0.2 * g.next());
    l.norm1.bias(0, j) = static_cast<T>(0.1 * g.next()), l.norm2.bias(0, j) = static_cast<T>(0.1 * g.next());
  }
  return l;
}
// A seeded float decoder layer, drawn as random_encoder_layer draws the encoder's (the
// cross-attention after the self-attention, norm3 with the other norms).
template <class Layer>
constexpr Layer random_decoder_layer(std::uint64_t seed) {
  constexpr std::size_t d = Layer::d_model.size, f = Layer::d_ff.size;
  using T = typename Layer::value_type;
  using cxmat::matrix;
  lcg g{seed};
  Layer l{};
  const double a = 1.0 / cxmat::sqrt(static_cast<double>(d)), af = 1.0 / cxmat::sqrt(static_cast<double>(f));
  for (auto* at : {&l.self_attn, &l.multihead_attn}) {
    at->w_q = random_matrix<matrix<T, d, d>>(g, a), at->w_k = random_matrix<matrix<T, d, d>>(g, a);
    at->w_v = random_matrix<matrix<T, d, d>>(g, a), at->w_o = random_matrix<matrix<T, d, d>>(g, a);
    at->b_q = random_matrix<matrix<T, 1, d>>(g, 0.1), at->b_k = random_matrix<matrix<T, 1, d>>(g, 0.1);
    at->b_v = random_matrix<matrix<T, 1, d>>(g, 0.1), at->b_o = random_matrix<matrix<T, 1, d>>(g, 0.1);
  }
  l.linear1.weight = random_matrix<matrix<T, d, f>>(g, a), l.linear1.bias = random_matrix<matrix<T, 1, f>>(g, a);
  l.linear2.weight = random_matrix<matrix<T, f, d>>(g, af), l.linear2.bias = random_matrix<matrix<T, 1, d>>(g, af);
  for (auto* norm : {&l.norm1, &l.norm2, &l.norm3}) {
    for (std::size_t j = 0; j < d; ++j) {
      norm->weight(0, j) = static_cast<T>(1.0 + 0.2 * g.next()), norm->bias(0, j) = static_cast<T>(0.1 * g.next());
    }
  }
  return l;
}
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr cxmat::batch<T, B, N, D> random_inputs(std::uint64_t seed, double amplitude) {
  lcg g{seed};
  cxmat::batch<T, B, N, D> xs{};
  for (std::size_t b = 0; b < B; ++b) xs.items[b] = random_matrix<cxmat::matrix<T, N, D>>(g, amplitude);
  return xs;
}

}  // namespace q8_test
