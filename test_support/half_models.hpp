// A tiny LLaMA whose weights float16 and bfloat16 both hold exactly, in float and in either
// 16-bit storage (half_weights): the half models must compute the float model's bits.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <cxmat/generation.hpp>

#include "test_support/tiny_language_models.hpp"

namespace cxmat_test {

using cxmat::half_format;
using cxmat::matrix;

// The test's own narrowing, for values both formats hold exactly: k/64 with |k| < 256 (8
// significant bits at most, exponents well inside binary16's normal range).
template <half_format F>
constexpr std::uint16_t narrow_exact(float v) noexcept {
  const auto b = std::bit_cast<std::uint32_t>(v);
  if constexpr (F == half_format::bfloat16) {
    return static_cast<std::uint16_t>(b >> 16U);
  } else {
    const std::uint32_t sign = (b >> 16U) & 0x8000U;
    if ((b & 0x7FFFFFFFU) == 0) return static_cast<std::uint16_t>(sign);
    const std::uint32_t exponent = ((b >> 23U) & 0xFFU) - 127U + 15U;
    return static_cast<std::uint16_t>(sign | (exponent << 10U) | ((b & 0x7FFFFFU) >> 13U));
  }
}

// The tiny LLaMA with a separate head, every weight moved to the nearest k/64.
using float_llama = cxmat_test::tiny_llama<float, cxmat::rotary_layout::interleaved, matrix<float, 13, 16>>;
template <class M>
constexpr void snap(M& m) noexcept {
  for (auto& row : m.elems) {
    for (auto& e : row) e = static_cast<float>(static_cast<int>(e * 64.0f + (e < 0 ? -0.5f : 0.5f))) / 64.0f;
  }
}
constexpr float_llama make_half_exact_llama() noexcept {
  auto m = cxmat_test::make_tiny_llama<float_llama>(5);
  snap(m.token_embedding), snap(m.final_norm.weight), snap(m.output);
  for (auto& b : m.blocks) {
    snap(b.attention_norm.weight), snap(b.w_q), snap(b.w_k), snap(b.w_v), snap(b.w_o);
    snap(b.ffn_norm.weight), snap(b.w_gate), snap(b.w_up), snap(b.w_down);
  }
  return m;
}

template <half_format F>
using half_llama = cxmat::llama_model<float, 13, 16, 2, 4, 2, 24, 16, cxmat::rotary_layout::interleaved,
                                      cxmat::half_matrix<F, 13, 16>, cxmat::half_weights<F>>;

template <half_format F, class M>
constexpr auto to_half(const M& m) noexcept {
  cxmat::half_matrix<F, M::row_extent, M::col_extent> h{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) h.bits.elems[i][j] = narrow_exact<F>(m.elems[i][j]);
  }
  return h;
}
template <half_format F>
constexpr half_llama<F> make_half(const float_llama& f) noexcept {
  half_llama<F> h{};
  h.token_embedding = to_half<F>(f.token_embedding);
  for (std::size_t l = 0; l < 2; ++l) {
    const auto& b = f.blocks[l];
    auto& q = h.blocks[l];
    q.attention_norm = b.attention_norm, q.ffn_norm = b.ffn_norm;
    q.w_q = to_half<F>(b.w_q), q.w_k = to_half<F>(b.w_k), q.w_v = to_half<F>(b.w_v), q.w_o = to_half<F>(b.w_o);
    q.w_gate = to_half<F>(b.w_gate), q.w_up = to_half<F>(b.w_up), q.w_down = to_half<F>(b.w_down);
  }
  h.final_norm = f.final_norm, h.output = to_half<F>(f.output), h.rope = f.rope;
  return h;
}

}  // namespace cxmat_test
