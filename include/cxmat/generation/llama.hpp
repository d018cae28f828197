// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The LLaMA family of decoder-only language models (LLaMA, TinyLlama, llama2.c's TinyStories
// models, Mistral without sliding windows) as a value holding its weights, its sizes in its type:
// token embedding; N blocks of RMSNorm -> grouped-query attention with rotary positions ->
// residual -> RMSNorm -> SwiGLU -> residual; a final RMSNorm; an output head tied to the
// embedding or separate. Every piece is the library's own function (rms_norm, matmul, the rotary
// kernel of the attention options, the one cached-attention kernel, swiglu, logits); the block
// code is one definition for one new token and for a whole prompt.
#pragma once

#include <cstddef>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/generation/kv_cache.hpp>
#include <cxmat/generation/rules.hpp>
#include <cxmat/generation/weights.hpp>
#include <cxmat/generation/workspace.hpp>
#include <cxmat/kernels/attention.hpp>
#include <cxmat/kernels/cached_attention.hpp>
#include <cxmat/kernels/rotary.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/transformer/linear.hpp>
#include <cxmat/transformer/norms.hpp>

namespace cxmat {

/// The output head of a model whose logits use the token embedding table (tied weights).
struct tied_head {};

/// The memory of a LLaMA block's call on R rows, whatever it holds between calls: the normed
/// rows (then the attention's heads, then the normed sums), the queries (then each projection
/// added back to x), the new keys and values, the SwiGLU's gate and up products, and what the
/// weights' products need besides (int8 groups: the input rows quantized). Blocks of the same
/// sizes share it.
template <class T, std::size_t R, extent D, extent KvW, extent F, class Weights>
struct llama_block_workspace {
  matrix<T, extent{R}, D> h;
  matrix<T, extent{R}, D> q;
  matrix<T, extent{R}, KvW> k;
  matrix<T, extent{R}, KvW> v;
  matrix<T, extent{R}, F> hidden;
  matrix<T, extent{R}, F> up;
  [[no_unique_address]] typename Weights::template input_scratch<T, R, D> rows_d;
  [[no_unique_address]] typename Weights::template input_scratch<T, R, F> rows_f;
};

/// One LLaMA block of width D with H query heads, H_kv key/value heads (H_kv divides H) and a
/// SwiGLU of width F. Weights in the library's orientation, d_in x d_out (Hugging Face's
/// `*_proj.weight` and llama2.c's `wq`, `w1`, ... are the transposes). The names of both files:
///   attention_norm  input_layernorm.weight           rms_att_weight
///   w_q, w_k, w_v   self_attn.{q,k,v}_proj.weight    wq, wk, wv
///   w_o             self_attn.o_proj.weight          wo
///   ffn_norm        post_attention_layernorm.weight  rms_ffn_weight
///   w_gate, w_up    mlp.{gate,up}_proj.weight        w1, w3
///   w_down          mlp.down_proj.weight             w2
/// `Weights` is dense_weights (float matrices) or q8_group_weights<GroupSize> (int8 in groups,
/// float activations): the block's code is the same.
template <class T, extent D, std::size_t H, std::size_t Hkv, extent F, class Weights = dense_weights>
struct llama_block {
  static_assert(detail::require_rules<rules_of::llama_sizes<H, Hkv, D>>::value);
  using value_type = T;
  static constexpr auto d_model = D;
  /// The width of one head, d_model / H.
  static constexpr auto head_width = divided_v<D, H>;
  /// The width of the keys and values: H_kv heads side by side.
  static constexpr auto kv_width = times_v<Hkv, head_width>;

  template <extent In, extent Out>
  using linear = typename Weights::template linear<T, In, Out>;

  rms_norm_module<T, D> attention_norm;
  linear<D, D> w_q;
  linear<D, kv_width> w_k;
  linear<D, kv_width> w_v;
  linear<D, D> w_o;
  rms_norm_module<T, D> ffn_norm;
  linear<D, F> w_gate;
  linear<D, F> w_up;
  linear<F, D> w_down;

  /// The rotation angles of R positions, for every head of every block.
  template <std::size_t R>
  using angles_type = detail::rotary_angles<T, R, head_width.size / 2>;

  /// The memory of a call on R rows (llama_block_workspace).
  template <std::size_t R>
  using workspace = llama_block_workspace<T, R, D, kv_width, F, Weights>;

  /// x (R new rows at positions `position` .. `position` + R - 1) through the block, in place:
  /// their keys and values go into rows `position` .. of this layer's cache, and each row
  /// attends to the cached positions up to its own (causal), its queries and keys turned by the
  /// rows' angles in `Layout`. Every intermediate is computed in ws (whatever it held). The
  /// cache must have room (the caller checks). A recorder gets each head's weights as layer
  /// `layer` (generate_recording).
  template <rotary_layout Layout, extent RX, extent Cap, std::size_t R, class Recorder = detail::no_attention_sink>
  constexpr void run(matrix<T, RX, D>& x, matrix<T, Cap, kv_width>& keys, matrix<T, Cap, kv_width>& values,
                     std::size_t position, const angles_type<R>& angles, workspace<R>& ws,
                     const Recorder& recorder = {}, std::size_t layer = 0) const noexcept {
    static_assert(RX.size == R, "llama_block::run: the workspace is made for as many rows as x has");
    for (std::size_t i = 0; i < R; ++i)
      detail::rms_norm_row(x.elems[i], ws.h.elems[i], attention_norm.weight.elems[0], attention_norm.eps);
    detail::apply_linear_into(ws.q, ws.h, w_q, ws.rows_d);
    detail::apply_linear_into(ws.k, ws.h, w_k, ws.rows_d);
    detail::apply_linear_into(ws.v, ws.h, w_v, ws.rows_d);
    detail::rotate_rows_by<detail::rotary_pairs_of<Layout>>(ws.q.elems, H, angles);
    detail::rotate_rows_by<detail::rotary_pairs_of<Layout>>(ws.k.elems, Hkv, angles);
    detail::store_rows(keys, values, ws.k, ws.v, position);
    // The heads side by side go into h (the normed rows are spent), their projection into q.
    detail::cached_heads<H, Hkv>(ws.q.elems, keys.elems, values.elems, ws.h.elems, position,
                                 detail::sqrt_of_size<T>(head_width.size), recorder, layer);
    detail::apply_linear_into(ws.q, ws.h, w_o, ws.rows_d);
    detail::add_into(x.elems, x.elems, ws.q.elems);
    for (std::size_t i = 0; i < R; ++i)
      detail::rms_norm_row(x.elems[i], ws.h.elems[i], ffn_norm.weight.elems[0], ffn_norm.eps);
    detail::apply_linear_into(ws.hidden, ws.h, w_gate, ws.rows_d);
    detail::apply_linear_into(ws.up, ws.h, w_up, ws.rows_d);
    detail::swiglu_gate(ws.hidden, ws.up);
    detail::apply_linear_into(ws.q, ws.hidden, w_down, ws.rows_f);
    detail::add_into(x.elems, x.elems, ws.q.elems);
  }

  /// The same, returning the block's output rows, its workspace on the stack.
  template <rotary_layout Layout, extent R, extent Cap, class Recorder = detail::no_attention_sink>
  constexpr matrix<T, R, D> operator()(const matrix<T, R, D>& x, matrix<T, Cap, kv_width>& keys,
                                       matrix<T, Cap, kv_width>& values, std::size_t position,
                                       const angles_type<R.size>& angles, const Recorder& recorder = {},
                                       std::size_t layer = 0) const noexcept {
    matrix<T, R, D> y = x;
    workspace<R.size> ws;
    run<Layout>(y, keys, values, position, angles, ws, recorder, layer);
    return y;
  }
};

/// A LLaMA-family model: vocabulary V, width D, `Layers` blocks of H query and H_kv key/value
/// heads with a SwiGLU of width F, positions up to Context, rotary positions in `Layout`
/// (interleaved pairs as llama2.c and Meta's code; rotate-half as Hugging Face's LLaMA). `Head`
/// is `tied_head` (logits from the embedding table) or a separate head stored as Hugging Face's
/// lm_head.weight and llama2.c's wcls: vocab x d_model (`matrix<T, V, D>`, or with int8 weights
/// `Weights::table<T, V, D>`). `Weights`: dense_weights, or q8_group_weights<GroupSize> (T float).
///   token_embedding  model.embed_tokens.weight  token_embedding_table
///   final_norm       model.norm.weight          rms_final_weight
template <class T, extent V, extent D, std::size_t Layers, std::size_t H, std::size_t Hkv, extent F, extent Context,
          rotary_layout Layout = rotary_layout::interleaved, class Head = tied_head, class Weights = dense_weights>
struct llama_model {
  static_assert(Layers > 0, "llama_model: at least one block");
  using value_type = T;
  using block_type = llama_block<T, D, H, Hkv, F, Weights>;
  using weights_type = Weights;
  static constexpr auto vocab = V;
  static constexpr auto d_model = D;
  static constexpr auto context = Context;
  static constexpr std::size_t layers = Layers;
  static constexpr std::size_t heads = H;
  static constexpr std::size_t kv_heads = Hkv;
  static constexpr auto kv_width = block_type::kv_width;
  static constexpr rotary_layout layout = Layout;
  /// A cache for this model that holds Capacity positions (at most Context).
  template <extent Capacity>
  using cache_type = kv_cache<T, Layers, Capacity, kv_width>;

  typename Weights::template table<T, V, D> token_embedding;
  block_type blocks[Layers];
  rms_norm_module<T, D> final_norm;
  [[no_unique_address]] Head output{};
  /// Rotary positions: the base (theta), 10000 in LLaMA 1 and 2 and llama2.c.
  rotary_embedding<Layout, 0> rope{10000.0};

  /// The memory of a call on R new tokens (model_workspace): what hidden_into and logits_into
  /// compute in; its size, scratch_bytes<llama_model, R>, is a compile-time constant.
  template <std::size_t R>
  using workspace = model_workspace<block_type, R, V, typename Weights::template input_scratch<T, 1, D>>;

  /// The R new tokens at positions cache.filled .. through every block, in ws.x (the last
  /// block's output rows, before the final norm); their keys and values are appended to the
  /// cache. A recorder gets every head's weights (generate_recording). The cache must have room
  /// and every id be below V (prefill checks).
  template <class I, extent One, extent R, extent Cap, class Recorder = detail::no_attention_sink>
  constexpr void hidden_into(cache_type<Cap>& cache, const matrix<I, One, R>& tokens, workspace<R.size>& ws,
                             const Recorder& recorder = {}) const noexcept {
    detail::embed_rows_into(ws.x, token_embedding, tokens);
    const std::size_t position = cache.filled;
    const auto angles = detail::make_rotary_angles<T, R.size, block_type::head_width.size / 2>(
        static_cast<long long>(position), static_cast<T>(rope.base));
    for (std::size_t l = 0; l < Layers; ++l)
      blocks[l].template run<Layout>(ws.x, cache.keys[l], cache.values[l], position, angles, ws.block, recorder, l);
    cache.filled += R.size;
  }

  /// The logits of one row of the last block's output (`row`, d_model wide) into head.logits:
  /// the final norm, then the head.
  template <class HeadWorkspace>
  constexpr const matrix<T, 1, V>& logits_into(HeadWorkspace& head, const T (&row)[D.size]) const noexcept {
    detail::rms_norm_row(row, head.normed.elems[0], final_norm.weight.elems[0], final_norm.eps);
    if constexpr (std::is_same_v<Head, tied_head>) {
      detail::table_logits_into(head.logits, head.normed, token_embedding, head.rows);
    } else {
      detail::table_logits_into(head.logits, head.normed, output, head.rows);
    }
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

namespace detail {
template <class Head, std::size_t GroupSize>
struct quantized_head {
  using type = tied_head;
};
template <class T, extent V, extent D, std::size_t GroupSize>
struct quantized_head<matrix<T, V, D>, GroupSize> {
  using type = q8::group_weights<D, V, GroupSize>;
};
}  // namespace detail

/// A float LLaMA model with every linear map, the token table and a separate head quantized to
/// int8 in groups of GroupSize (q8_group_weights, llama2.c's int8 scheme), norms and rotary as
/// they were: what llama2.c's export writes as its int8 (version 2) checkpoint. Usable in a
/// constant expression, so the compiler can quantize a float model into the image.
template <std::size_t GroupSize, class T, extent V, extent D, std::size_t Layers, std::size_t H, std::size_t Hkv,
          extent F, extent Context, rotary_layout Layout, class Head>
constexpr auto quantize_groups(const llama_model<T, V, D, Layers, H, Hkv, F, Context, Layout, Head>& model) noexcept {
  using result = llama_model<float, V, D, Layers, H, Hkv, F, Context, Layout,
                             typename detail::quantized_head<Head, GroupSize>::type, q8_group_weights<GroupSize>>;
  const auto norm = [](const rms_norm_module<T, D>& n) {
    rms_norm_module<float, D> out{};
    for (std::size_t j = 0; j < D.size; ++j) out.weight.elems[0][j] = static_cast<float>(n.weight.elems[0][j]);
    out.eps = static_cast<float>(n.eps);
    return out;
  };
  result out{};
  out.token_embedding = q8::quantize_table_groups<GroupSize>(model.token_embedding);
  for (std::size_t l = 0; l < Layers; ++l) {
    const auto& b = model.blocks[l];
    auto& q = out.blocks[l];
    q.attention_norm = norm(b.attention_norm);
    q.w_q = q8::quantize_groups<GroupSize>(b.w_q);
    q.w_k = q8::quantize_groups<GroupSize>(b.w_k);
    q.w_v = q8::quantize_groups<GroupSize>(b.w_v);
    q.w_o = q8::quantize_groups<GroupSize>(b.w_o);
    q.ffn_norm = norm(b.ffn_norm);
    q.w_gate = q8::quantize_groups<GroupSize>(b.w_gate);
    q.w_up = q8::quantize_groups<GroupSize>(b.w_up);
    q.w_down = q8::quantize_groups<GroupSize>(b.w_down);
  }
  out.final_norm = norm(model.final_norm);
  if constexpr (!std::is_same_v<Head, tied_head>) out.output = q8::quantize_table_groups<GroupSize>(model.output);
  out.rope = {model.rope.base};
  return out;
}

}  // namespace cxmat
