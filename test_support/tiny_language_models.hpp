// Small decoder-only models with seeded pseudo-random weights, made by the compiler, shared by
// the static and run-time tests of generation/: a LLaMA with grouped-query attention in each
// rotary layout, with a tied and a separate head, and a GPT-2.
#pragma once

#include <cstdint>

#include <cxmat/generation.hpp>

namespace cxmat_test {

// Uniform values in [-scale, scale) from a 32-bit linear congruential generator: the same
// weights on every machine and in every compiler.
struct weight_source {
  std::uint32_t state;
  double scale;
  constexpr double next() noexcept {
    state = state * 1664525U + 1013904223U;
    return (static_cast<double>(state >> 8U) / 16777216.0 - 0.5) * 2.0 * scale;
  }
  template <class M>
  constexpr void fill(M& m) noexcept {
    for (auto& row : m.elems) {
      for (auto& e : row) e = static_cast<typename M::value_type>(next());
    }
  }
  // Norm weights near 1, as trained models have them.
  template <class M>
  constexpr void fill_norm(M& m) noexcept {
    for (auto& row : m.elems) {
      for (auto& e : row) e = static_cast<typename M::value_type>(1.0 + next());
    }
  }
};

inline constexpr std::size_t tiny_vocab = 13;
inline constexpr std::size_t tiny_context = 16;

template <class T, cxmat::rotary_layout Layout = cxmat::rotary_layout::interleaved, class Head = cxmat::tied_head>
using tiny_llama = cxmat::llama_model<T, tiny_vocab, 16, 2, 4, 2, 24, tiny_context, Layout, Head>;

template <class T>
using tiny_gpt2 = cxmat::gpt2_model<T, tiny_vocab, 16, 2, 2, 32, tiny_context>;

template <class Model>
constexpr Model make_tiny_llama(std::uint32_t seed) noexcept {
  using T = typename Model::value_type;
  Model m{};
  weight_source w{seed, 0.6};
  w.fill(m.token_embedding);
  for (auto& b : m.blocks) {
    w.fill_norm(b.attention_norm.weight);
    b.attention_norm.eps = T(1e-5);
    w.fill(b.w_q), w.fill(b.w_k), w.fill(b.w_v), w.fill(b.w_o);
    w.fill_norm(b.ffn_norm.weight);
    b.ffn_norm.eps = T(1e-5);
    w.fill(b.w_gate), w.fill(b.w_up), w.fill(b.w_down);
  }
  w.fill_norm(m.final_norm.weight);
  m.final_norm.eps = T(1e-5);
  if constexpr (!std::is_same_v<decltype(m.output), cxmat::tied_head>) w.fill(m.output);
  m.rope = {500.0};  // a small base, so positions turn the pairs visibly within 16 positions
  return m;
}

template <class Model>
constexpr Model make_tiny_gpt2(std::uint32_t seed) noexcept {
  Model m{};
  weight_source w{seed, 0.6};
  w.fill(m.token_embedding);
  w.fill(m.position_embedding);
  for (auto& b : m.blocks) {
    w.fill_norm(b.ln_1.weight), w.fill(b.ln_1.bias);
    auto& a = b.attention;
    w.fill(a.w_q), w.fill(a.w_k), w.fill(a.w_v), w.fill(a.b_q), w.fill(a.b_k), w.fill(a.b_v);
    w.fill(a.w_o), w.fill(a.b_o);
    w.fill_norm(b.ln_2.weight), w.fill(b.ln_2.bias);
    w.fill(b.w_fc), w.fill(b.b_fc), w.fill(b.w_proj), w.fill(b.b_proj);
  }
  w.fill_norm(m.final_norm.weight), w.fill(m.final_norm.bias);
  return m;
}

}  // namespace cxmat_test
