// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The GPT-2 family of decoder-only language models as a value holding its weights, its sizes in
// its type: token and learned position embeddings; N pre-norm blocks of LayerNorm -> causal
// multi-head attention (with biases) -> residual -> LayerNorm -> GELU (tanh form) feed-forward ->
// residual; a final LayerNorm; the head tied to the token embedding. Built from the library's
// functions (layer_norm, linear, the cached-attention kernel, gelu_tanh, logits); one block
// definition for one new token and for a whole prompt.
#pragma once

#include <cstddef>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/generation/kv_cache.hpp>
#include <cxmat/generation/rules.hpp>
#include <cxmat/kernels/attention.hpp>
#include <cxmat/kernels/cached_attention.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/embedding.hpp>
#include <cxmat/transformer/layers.hpp>
#include <cxmat/transformer/linear.hpp>
#include <cxmat/transformer/norms.hpp>

namespace cxmat {

/// One GPT-2 block of width D, H heads and a feed-forward of width F (4·D in GPT-2). Weights in
/// the library's orientation, d_in x d_out, which is how Hugging Face's Conv1D stores them
/// (`attn.c_attn.weight` is D x 3D: the q, k and v blocks side by side):
///   ln_1              h.N.ln_1.{weight,bias}
///   attention         h.N.attn.c_attn (w_q, w_k, w_v, b_q, b_k, b_v), h.N.attn.c_proj (w_o, b_o)
///   ln_2              h.N.ln_2.{weight,bias}
///   w_fc, b_fc        h.N.mlp.c_fc.{weight,bias}
///   w_proj, b_proj    h.N.mlp.c_proj.{weight,bias}
template <class T, extent D, std::size_t H, extent F>
struct gpt2_block {
  static_assert(detail::require_rules<rules_of::llama_sizes<H, H, D>>::value);
  static constexpr auto head_width = divided_v<D, H>;
  static constexpr auto kv_width = D;

  layer_norm_module<T, D> ln_1;
  attention_module<T, D, H> attention;
  layer_norm_module<T, D> ln_2;
  matrix<T, D, F> w_fc;
  matrix<T, 1, F> b_fc;
  matrix<T, F, D> w_proj;
  matrix<T, 1, D> b_proj;

  /// x (R new rows at positions `position` ..) through the block; their keys and values go into
  /// this layer's cache from row `position`, and each row attends to the positions up to its own.
  /// A recorder gets each head's weights as layer `layer` (generate_recording).
  template <extent R, extent Cap, class Recorder = detail::no_attention_sink>
  constexpr matrix<T, R, D> operator()(const matrix<T, R, D>& x, matrix<T, Cap, D>& keys, matrix<T, Cap, D>& values,
                                       std::size_t position, const Recorder& recorder = {},
                                       std::size_t layer = 0) const noexcept {
    const auto& a = attention;
    const matrix<T, R, D> h = detail::layer_norm_of(x, ln_1.weight, ln_1.bias, ln_1.eps);
    const matrix<T, R, D> q = detail::linear_of(h, a.w_q, a.b_q);
    detail::store_rows(keys, values, detail::linear_of(h, a.w_k, a.b_k), detail::linear_of(h, a.w_v, a.b_v), position);
    matrix<T, R, D> heads{};
    detail::cached_heads<H, H>(q.elems, keys.elems, values.elems, heads.elems, position,
                               detail::sqrt_of_size<T>(head_width.size), recorder, layer);
    const matrix<T, R, D> x1 = x + detail::linear_of(heads, a.w_o, a.b_o);
    const matrix<T, R, D> h2 = detail::layer_norm_of(x1, ln_2.weight, ln_2.bias, ln_2.eps);
    return x1 + detail::feed_forward_of<activation::gelu_tanh>(h2, w_fc, b_fc, w_proj, b_proj);
  }
};

/// A GPT-2-family model: vocabulary V, width D, `Layers` blocks of H heads and feed-forward width
/// F, Context learned positions, the head tied to the token embedding.
///   token_embedding     transformer.wte.weight
///   position_embedding  transformer.wpe.weight
///   final_norm          transformer.ln_f.{weight,bias}
template <class T, extent V, extent D, std::size_t Layers, std::size_t H, extent F, extent Context>
struct gpt2_model {
  static_assert(Layers > 0, "gpt2_model: at least one block");
  using value_type = T;
  using block_type = gpt2_block<T, D, H, F>;
  static constexpr auto vocab = V;
  static constexpr auto d_model = D;
  static constexpr auto context = Context;
  static constexpr std::size_t layers = Layers;
  static constexpr std::size_t heads = H;
  static constexpr std::size_t kv_heads = H;
  static constexpr auto kv_width = D;
  template <extent Capacity>
  using cache_type = kv_cache<T, Layers, Capacity, D>;

  matrix<T, V, D> token_embedding;
  matrix<T, Context, D> position_embedding;
  block_type blocks[Layers];
  layer_norm_module<T, D> final_norm;

  /// The R new tokens at positions cache.filled .. through every block (their keys and values
  /// appended to the cache): the last block's output rows, before the final norm.
  template <class I, extent One, extent R, extent Cap, class Recorder = detail::no_attention_sink>
  constexpr matrix<T, R, D> hidden(cache_type<Cap>& cache, const matrix<I, One, R>& tokens,
                                   const Recorder& recorder = {}) const noexcept {
    matrix<T, R, D> x = embedding(token_embedding, tokens);
    const std::size_t position = cache.filled;
    for (std::size_t r = 0; r < R.size; ++r) {
      for (std::size_t c = 0; c < D.size; ++c) x.elems[r][c] += position_embedding.elems[position + r][c];
    }
    for (std::size_t l = 0; l < Layers; ++l) x = blocks[l](x, cache.keys[l], cache.values[l], position, recorder, l);
    cache.filled += R.size;
    return x;
  }

  /// Logits of rows of the last block's output: the final LayerNorm, then the tied head.
  template <extent R>
  constexpr matrix<T, R, V> logits_of(const matrix<T, R, D>& x) const noexcept {
    return detail::logits_of(detail::layer_norm_of(x, final_norm.weight, final_norm.bias, final_norm.eps),
                             token_embedding);
  }
};

}  // namespace cxmat
