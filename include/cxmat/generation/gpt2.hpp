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
#include <cxmat/generation/workspace.hpp>
#include <cxmat/kernels/attention.hpp>
#include <cxmat/kernels/cached_attention.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/embedding.hpp>
#include <cxmat/transformer/layers.hpp>
#include <cxmat/transformer/linear.hpp>
#include <cxmat/transformer/norms.hpp>

namespace cxmat {

/// The memory of a GPT-2 block's call on R rows, whatever it holds between calls: the normed
/// rows (then the attention's heads, then the normed sums), the queries (then each projection
/// added back to x), the new keys and values, the feed-forward's hidden layer. Blocks of the same
/// sizes share it.
template <class T, std::size_t R, extent D, extent F>
struct gpt2_block_workspace {
  matrix<T, extent{R}, D> h;
  matrix<T, extent{R}, D> q;
  matrix<T, extent{R}, D> k;
  matrix<T, extent{R}, D> v;
  matrix<T, extent{R}, F> hidden;
};

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
  using value_type = T;
  static constexpr auto d_model = D;
  static constexpr auto head_width = divided_v<D, H>;
  static constexpr auto kv_width = D;
  /// The memory of a call on R rows (gpt2_block_workspace).
  template <std::size_t R>
  using workspace = gpt2_block_workspace<T, R, D, F>;

  layer_norm_module<T, D> ln_1;
  attention_module<T, D, H> attention;
  layer_norm_module<T, D> ln_2;
  matrix<T, D, F> w_fc;
  matrix<T, 1, F> b_fc;
  matrix<T, F, D> w_proj;
  matrix<T, 1, D> b_proj;

  /// x (R new rows at positions `position` ..) through the block, in place, every intermediate
  /// in ws (whatever it held); their keys and values go into this layer's cache from row
  /// `position`, and each row attends to the positions up to its own. A recorder gets each
  /// head's weights as layer `layer` (generate_recording).
  template <extent RX, extent Cap, std::size_t R, class Recorder = detail::no_attention_sink>
  constexpr void run(matrix<T, RX, D>& x, matrix<T, Cap, D>& keys, matrix<T, Cap, D>& values, std::size_t position,
                     workspace<R>& ws, const Recorder& recorder = {}, std::size_t layer = 0) const noexcept {
    static_assert(RX.size == R, "gpt2_block::run: the workspace is made for as many rows as x has");
    const auto& a = attention;
    detail::layer_norm_into(ws.h.elems, x.elems, ln_1);
    detail::linear_into(ws.q, ws.h, a.w_q, a.b_q);
    detail::linear_into(ws.k, ws.h, a.w_k, a.b_k);
    detail::linear_into(ws.v, ws.h, a.w_v, a.b_v);
    detail::store_rows(keys, values, ws.k, ws.v, position);
    // The heads side by side go into h (the normed rows are spent), their projection into q.
    detail::cached_heads<H, H>(ws.q.elems, keys.elems, values.elems, ws.h.elems, position,
                               detail::sqrt_of_size<T>(head_width.size), recorder, layer);
    detail::linear_into(ws.q, ws.h, a.w_o, a.b_o);
    detail::add_into(x.elems, x.elems, ws.q.elems);
    detail::layer_norm_into(ws.h.elems, x.elems, ln_2);
    detail::feed_forward_into<activation::gelu_tanh>(ws.q, ws.hidden, ws.h, w_fc, b_fc, w_proj, b_proj);
    detail::add_into(x.elems, x.elems, ws.q.elems);
  }

  /// The same, returning the block's output rows, its workspace on the stack.
  template <extent R, extent Cap, class Recorder = detail::no_attention_sink>
  constexpr matrix<T, R, D> operator()(const matrix<T, R, D>& x, matrix<T, Cap, D>& keys, matrix<T, Cap, D>& values,
                                       std::size_t position, const Recorder& recorder = {},
                                       std::size_t layer = 0) const noexcept {
    matrix<T, R, D> y = x;
    workspace<R.size> ws;
    run(y, keys, values, position, ws, recorder, layer);
    return y;
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

  /// The memory of a call on R new tokens (model_workspace): what hidden_into and logits_into
  /// compute in; its size, scratch_bytes<gpt2_model, R>, is a compile-time constant.
  template <std::size_t R>
  using workspace = model_workspace<block_type, R, V>;

  /// The R new tokens at positions cache.filled .. through every block, in ws.x (the last
  /// block's output rows, before the final norm; their keys and values appended to the cache).
  /// The cache must have room and every id be below V (prefill checks).
  template <class I, extent One, extent R, extent Cap, class Recorder = detail::no_attention_sink>
  constexpr void hidden_into(cache_type<Cap>& cache, const matrix<I, One, R>& tokens, workspace<R.size>& ws,
                             const Recorder& recorder = {}) const noexcept {
    const std::size_t position = cache.filled;
    for (std::size_t r = 0; r < R.size; ++r) {
      const auto token = static_cast<std::size_t>(tokens.elems[0][r]);
      for (std::size_t c = 0; c < D.size; ++c)
        ws.x.elems[r][c] = token_embedding.elems[token][c] + position_embedding.elems[position + r][c];
    }
    for (std::size_t l = 0; l < Layers; ++l)
      blocks[l].run(ws.x, cache.keys[l], cache.values[l], position, ws.block, recorder, l);
    cache.filled += R.size;
  }

  /// The logits of one row of the last block's output into head.logits: the final LayerNorm,
  /// then the tied head.
  template <class HeadWorkspace>
  constexpr const matrix<T, 1, V>& logits_into(HeadWorkspace& head, const T (&row)[D.size]) const noexcept {
    detail::layer_norm_row(row, head.normed.elems[0], final_norm.weight.elems[0], final_norm.bias.elems[0],
                           final_norm.eps);
    detail::logits_into(head.logits, head.normed, token_embedding);
    return head.logits;
  }

  /// hidden_into with the workspace on the stack: the last block's output rows.
  template <class I, extent One, extent R, extent Cap, class Recorder = detail::no_attention_sink>
  constexpr matrix<T, R, D> hidden(cache_type<Cap>& cache, const matrix<I, One, R>& tokens,
                                   const Recorder& recorder = {}) const noexcept {
    return detail::hidden_on_stack(*this, cache, tokens, recorder);
  }

  /// Logits of rows of the last block's output, row by row as logits_into.
  template <extent R>
  constexpr matrix<T, R, V> logits_of(const matrix<T, R, D>& x) const noexcept {
    return detail::logits_on_stack(*this, x);
  }
};

}  // namespace cxmat
