// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Transformer layers as values, called like PyTorch modules: attention_module
// (nn.MultiheadAttention), encoder_layer and decoder_layer (nn.TransformerEncoderLayer,
// nn.TransformerDecoderLayer, in evaluation mode: no dropout), and their stacks
// transformer_encoder / transformer_decoder (nn.TransformerEncoder / Decoder) with a final norm.
// Each holds its weights in the library's orientation (d_in x d_out; PyTorch's weights are
// their transposes) and its sizes in its type. A layer's attention is computed by the attention
// layer's multi-head driver (the code behind multi_head_attention and cross_attention, called
// directly once the layer's rule list holds), and its options (mask, key_padding, causal, ...)
// go to the self-attention. Masks keep cxmat's polarity: true = may attend, a real token (the
// opposite of nn.MultiheadAttention's boolean masks).
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/attention/batched.hpp>
#include <cxmat/attention/grouped.hpp>
#include <cxmat/attention/multi_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/rules.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/core/workspace.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/linear.hpp>
#include <cxmat/transformer/norms.hpp>
#include <cxmat/transformer/rules.hpp>

namespace cxmat {

/// An attention option for a decoder layer's cross-attention over the memory (the self-attention
/// takes the options given plainly): `layer(x, memory, causal, on_memory(key_padding(keep)))` is
/// PyTorch's tgt_is_causal with memory_key_padding_mask (inverted: true = a real token).
template <class O>
struct memory_option {
  using option_type = O;
  O option;
};

/// Wraps an attention option for a decoder layer's cross-attention.
template <AttentionOption O>
constexpr memory_option<O> on_memory(const O& option) noexcept {
  return {option};
}

namespace detail {

template <class O>
inline constexpr bool is_memory_option_v = false;
template <class O>
inline constexpr bool is_memory_option_v<memory_option<O>> = true;

// A batched decoder gives item b the item option of a wrapped batch option too.
template <class O>
struct item_option_of<memory_option<O>> {
  using type = memory_option<item_option_t<O>>;
};
template <class O>
constexpr memory_option<item_option_t<O>> item_option(const memory_option<O>& o, std::size_t item) noexcept {
  return {item_option(o.option, item)};
}
template <class O, auto B>
inline constexpr bool option_fits_batch<memory_option<O>, B> = option_fits_batch<O, B>;

template <class... T>
struct type_list {};

// Which options of a decoder call an attention takes: the self-attention the plain ones, the
// cross-attention the wrapped ones, unwrapped.
struct self_side {
  template <class O>
  static constexpr bool keeps = !is_memory_option_v<O>;
  template <class O>
  using type = O;
  template <class O>
  static constexpr const O& get(const O& option) noexcept {
    return option;
  }
};
struct memory_side {
  template <class O>
  static constexpr bool keeps = is_memory_option_v<O>;
  template <class O>
  using type = typename O::option_type;
  template <class O>
  static constexpr const auto& get(const O& option) noexcept {
    return option.option;
  }
};

template <bool Keep, class Side, class List, class O>
struct append_kept {
  using type = List;
};
template <class Side, class... K, class O>
struct append_kept<true, Side, type_list<K...>, O> {
  using type = type_list<K..., typename Side::template type<O>>;
};

// The options of O... that Side keeps, as a type_list.
template <class Side, class List, class... O>
struct kept_options {
  using type = List;
};
template <class Side, class List, class O, class... Rest>
struct kept_options<Side, List, O, Rest...>
    : kept_options<Side, typename append_kept<Side::template keeps<O>, Side, List, O>::type, Rest...> {};
template <class Side, class... O>
using kept_options_t = typename kept_options<Side, type_list<>, O...>::type;

// f(the options Side keeps...), in their order.
template <class Side, class... Kept>
struct pass_options {
  template <class F>
  static constexpr auto call(const F& f, const Kept&... kept) noexcept {
    return f(kept...);
  }
  template <class F, class First, class... Rest>
  static constexpr auto call(const F& f, const Kept&... kept, const First& first, const Rest&... rest) noexcept {
    if constexpr (Side::template keeps<First>) {
      return pass_options<Side, Kept..., typename Side::template type<First>>::call(f, kept..., Side::get(first),
                                                                                    rest...);
    } else {
      return pass_options<Side, Kept...>::call(f, kept..., rest...);
    }
  }
};

// The projection biases a layer's attention passes as options.
template <class T, auto D>
using layer_biases = type_list<projection_bias<projection::query, T, D>, projection_bias<projection::key, T, D>,
                               projection_bias<projection::value, T, D>, projection_bias<projection::output, T, D>>;

template <std::size_t H, class Y, class W, class Biases, class Options>
struct self_attention_rules;
template <std::size_t H, class Y, class W, class... B, class... O>
struct self_attention_rules<H, Y, W, type_list<B...>, type_list<O...>> {
  using type = rules_of::multi_head_attention_wo<H, Y, W, W, W, W, O..., B...>;
};
template <std::size_t H, class Y, class Mem, class W, class Biases, class Options>
struct cross_attention_rules;
template <std::size_t H, class Y, class Mem, class W, class... B, class... O>
struct cross_attention_rules<H, Y, Mem, W, type_list<B...>, type_list<O...>> {
  using type = rules_of::grouped_query_attention_wo<H, H, Y, Mem, W, W, W, W, O..., B...>;
};

}  // namespace detail

/// An option a decoder layer takes: an attention option (self-attention) or on_memory(option).
template <class O>
concept DecoderOption = AttentionOption<O> || detail::is_memory_option_v<std::remove_cvref_t<O>>;

namespace rules_of {
// layer(x, opts...) of an encoder layer of element type T, width DModel, H heads.
template <class T, auto DModel, std::size_t H, class X, class... O>
using encoder_layer = detail::join_t<
    transformer_layer_input<T, DModel, X>, transformer_layer_type<H, DModel>,
    typename detail::self_attention_rules<H, matrix<T, detail::rows_of<X>, DModel>, matrix<T, DModel, DModel>,
                                          detail::layer_biases<T, DModel>, detail::type_list<O...>>::type>;
template <class T, auto DModel, std::size_t H, class X, class... O>
using batch_encoder_layer =
    detail::join_t<batch_options<X, O...>, encoder_layer<T, DModel, H, detail::item_t<X>, detail::item_option_t<O>...>>;

// attn(x, memory, opts...) of an attention module: cross-attention from x to the memory.
template <class T, auto DModel, std::size_t H, class X, class M, class... O>
using attention_module_cross = detail::join_t<
    transformer_layer_input<T, DModel, X>,
    detail::rule_list<rule::layer_element<T, detail::element_of<M>>, rule::memory_width<detail::cols_of<M>, DModel>>,
    transformer_layer_type<H, DModel>,
    typename detail::cross_attention_rules<H, matrix<T, detail::rows_of<X>, DModel>,
                                           matrix<T, detail::rows_of<M>, DModel>, matrix<T, DModel, DModel>,
                                           detail::layer_biases<T, DModel>, detail::type_list<O...>>::type>;
template <class T, auto DModel, std::size_t H, class X, class M, class... O>
using batch_attention_module_cross = detail::join_t<
    batches<X, M>, batch_options<X, O...>,
    attention_module_cross<T, DModel, H, detail::item_t<X>, detail::item_t<M>, detail::item_option_t<O>...>>;

// layer(x, memory, opts...) of a decoder layer.
template <class T, auto DModel, std::size_t H, class X, class M, class... O>
using decoder_layer = detail::join_t<
    transformer_layer_input<T, DModel, X>,
    detail::rule_list<rule::layer_element<T, detail::element_of<M>>, rule::memory_width<detail::cols_of<M>, DModel>>,
    transformer_layer_type<H, DModel>,
    typename detail::self_attention_rules<H, matrix<T, detail::rows_of<X>, DModel>, matrix<T, DModel, DModel>,
                                          detail::layer_biases<T, DModel>,
                                          detail::kept_options_t<detail::self_side, O...>>::type,
    typename detail::cross_attention_rules<
        H, matrix<T, detail::rows_of<X>, DModel>, matrix<T, detail::rows_of<M>, DModel>, matrix<T, DModel, DModel>,
        detail::layer_biases<T, DModel>, detail::kept_options_t<detail::memory_side, O...>>::type>;
template <class T, auto DModel, std::size_t H, class X, class M, class... O>
using batch_decoder_layer =
    detail::join_t<batches<X, M>, batch_options<X, O...>,
                   decoder_layer<T, DModel, H, detail::item_t<X>, detail::item_t<M>, detail::item_option_t<O>...>>;
}  // namespace rules_of

/// The memory of one call of an attention_module<T, D, H> with L queries over S keys and values
/// (self-attention: S = L): the projections Q (L x D), K and V (S x D) and the heads side by
/// side (L x D) before the output projection. Everything else the call keeps is the attention
/// kernel's blocks (a head's keys transposed, d_k x S, and a few rows of weights) and the result.
/// A call without a workspace declares one on its stack; a caller's (a static object: in .bss, its
/// size known when linking) keeps the stack to those. What it held before a call does not matter.
template <class T, std::size_t L, std::size_t S, extent D>
struct float_attention_workspace {
  static constexpr std::size_t rows = L, key_rows = S;
  matrix<T, L, D> q;
  matrix<T, S, D> k, v;
  matrix<T, L, D> heads;
};

/// The memory of one call of an encoder_layer on N rows: its self-attention's workspace and the
/// layer's tensors: two N x DModel (the residual stream, and the attention's or feed-forward's
/// output, summed and normalised in place) and the hidden layer (N x DFF). Layers of the same
/// element type and sizes share it, whatever their activation or norm placement, one call at a
/// time.
template <class T, std::size_t N, extent DModel, extent DFF>
struct float_encoder_workspace {
  static constexpr std::size_t rows = N, key_rows = N;
  float_attention_workspace<T, N, N, DModel> attention;
  matrix<T, N, DModel> h, a;
  matrix<T, N, DFF> hidden;
};

/// The memory of one call of a decoder_layer on N rows with S memory rows: the self-attention's
/// workspace (N keys), the cross-attention's (S keys), and the encoder layer's three tensors.
template <class T, std::size_t N, std::size_t S, extent DModel, extent DFF>
struct float_decoder_workspace {
  static constexpr std::size_t rows = N, key_rows = S;
  float_attention_workspace<T, N, N, DModel> self;
  float_attention_workspace<T, N, S, DModel> cross;
  matrix<T, N, DModel> h, a;
  matrix<T, N, DFF> hidden;
};

namespace detail {
template <class W>
inline constexpr bool is_float_layer_workspace_v = false;
template <class T, std::size_t L, std::size_t S, extent D>
inline constexpr bool is_float_layer_workspace_v<float_attention_workspace<T, L, S, D>> = true;
template <class T, std::size_t N, extent DModel, extent DFF>
inline constexpr bool is_float_layer_workspace_v<float_encoder_workspace<T, N, DModel, DFF>> = true;
template <class T, std::size_t N, std::size_t S, extent DModel, extent DFF>
inline constexpr bool is_float_layer_workspace_v<float_decoder_workspace<T, N, S, DModel, DFF>> = true;

// The rows of a matrix type, the size of its workspace_for.
template <class X>
inline constexpr std::size_t row_count = rows_of<X>.size;

// A float layer's workspace, of any size: what tells layer(x, ws, opts...) from layer(x, opts...)
// (whether it is the call's is a rule of the call, rules_of::in_workspace).
template <class W>
concept FloatLayerWorkspace = is_float_layer_workspace_v<W>;
}  // namespace detail

template <class T, extent D, std::size_t H>
struct attention_module;

namespace detail {
// The attention of a module whose caller has checked its rules: queries from xq (L x D), keys and
// values from xkv (S x D), with the module's biases and the options, written into out (L x D)
// with every intermediate in ws, whatever they held. The driver of multi_head_attention and
// cross_attention, called directly, so a layer's call resolves no attention overload set again.
// out must not be xq or xkv.
template <class T, extent D, std::size_t H, extent LO, extent DO, extent L, extent DQ, extent S, extent DKV,
          std::size_t WL, std::size_t WS, class... O>
constexpr void module_attention_into(matrix<T, LO, DO>& out, float_attention_workspace<T, WL, WS, D>& ws,
                                     const attention_module<T, D, H>& m, const matrix<T, L, DQ>& xq,
                                     const matrix<T, S, DKV>& xkv, const O&... opts) noexcept;

// The same with the workspace on the stack, the result returned.
template <class T, extent D, std::size_t H, extent L, extent S, class... O>
constexpr matrix<T, L, D> module_attention(const attention_module<T, D, H>& m, const matrix<T, L, D>& xq,
                                           const matrix<T, S, D>& xkv, const O&... opts) noexcept;
}  // namespace detail

/// nn.MultiheadAttention(D, H) (bias=True, kdim = vdim = D) as a value. From PyTorch:
/// w_q, w_k, w_v = the three D-row blocks of in_proj_weight, each transposed; b_q, b_k, b_v = the
/// blocks of in_proj_bias; w_o = out_proj.weight transposed; b_o = out_proj.bias.
/// `attn(x, opts...)` is self-attention, `attn(x, memory, opts...)` cross-attention (queries from
/// x, keys and values from memory); matrices or batches; H must divide D.
template <class T, extent D, std::size_t H>
struct attention_module {
  static_assert(detail::require_rules<rules_of::transformer_layer_type<H, D>>::value);

  matrix<T, D, D> w_q, w_k, w_v;
  matrix<T, 1, D> b_q, b_k, b_v;
  matrix<T, D, D> w_o;
  matrix<T, 1, D> b_o;

  /// The memory a call on N queries over S keys works in (float_attention_workspace; its size is
  /// scratch_bytes<attention_module, N> for self-attention, <..., N, S> for cross-attention).
  template <std::size_t N, std::size_t S = N>
  using workspace = float_attention_workspace<T, N, S, D>;

  /// Self-attention of x (n x D, or a batch B x n x D): n x D, the same numbers as
  /// multi_head_attention<H>(x, w_q, w_k, w_v, w_o) with the four biases and the options.
  template <Matrix X, AttentionOption... O>
  requires rules_hold<rules_of::encoder_layer<T, D, H, X, O...>>
  constexpr matrix<T, detail::rows_of<X>, D> operator()(const X& x, const O&... opts) const noexcept {
    workspace<detail::row_count<X>> ws;
    return (*this)(x, ws, opts...);
  }
  /// Self-attention of x with every intermediate in ws (the caller's memory,
  /// workspace_for<attention_module, n>): the same numbers, whatever ws held.
  template <Matrix X, detail::FloatLayerWorkspace W, AttentionOption... O>
  requires rules_hold<
      rules_of::in_workspace<rules_of::encoder_layer<T, D, H, X, O...>, W, workspace<detail::row_count<X>>>>
  constexpr matrix<T, detail::rows_of<X>, D> operator()(const X& x, W& ws, const O&... opts) const noexcept {
    matrix<T, detail::rows_of<X>, D> out;
    detail::module_attention_into(out, ws, *this, x, x, opts...);
    return out;
  }
  /// Shape error of attn(x, ws, opts...): x, an option, or ws not the call's workspace.
  template <Matrix X, detail::FloatLayerWorkspace W, AttentionOption... O>
  decltype(detail::first_failure<rules_of::in_workspace<rules_of::encoder_layer<T, D, H, X, O...>, W,
                                                        workspace<detail::row_count<X>>>>::error())
  operator()(const X& x, W& ws, const O&... opts) const noexcept;
  /// Shape error of attn(x, opts...).
  template <Matrix X, AttentionOption... O>
  decltype(detail::first_failure<rules_of::encoder_layer<T, D, H, X, O...>>::error()) operator()(
      const X& x, const O&... opts) const noexcept;
  /// Self-attention of every item of a batch.
  template <Batch X, AttentionOption... O>
  requires rules_hold<rules_of::batch_encoder_layer<T, D, H, X, O...>>
  constexpr batch<T, X::batch_extent, X::row_extent, D> operator()(const X& x, const O&... opts) const noexcept {
    return detail::map_items<X::batch_extent>(
        [&](std::size_t b) { return (*this)(x.items[b], detail::item_option(opts, b)...); });
  }
  /// Shape error of the batched attn(x, opts...).
  template <Batch X, AttentionOption... O>
  decltype(detail::first_failure<rules_of::batch_encoder_layer<T, D, H, X, O...>>::error()) operator()(
      const X& x, const O&... opts) const noexcept;

  /// Cross-attention from x (L x D) to the memory (S x D), or batches of both: L x D, the same
  /// numbers as cross_attention<H>(x, memory, w_q, w_k, w_v, w_o) with the biases and options.
  template <Matrix X, Matrix M, AttentionOption... O>
  requires rules_hold<rules_of::attention_module_cross<T, D, H, X, M, O...>>
  constexpr matrix<T, detail::rows_of<X>, D> operator()(const X& x, const M& memory, const O&... opts) const noexcept {
    workspace<detail::row_count<X>, detail::row_count<M>> ws;
    return (*this)(x, memory, ws, opts...);
  }
  /// Cross-attention with every intermediate in ws (workspace_for<attention_module, n, s>).
  template <Matrix X, Matrix M, detail::FloatLayerWorkspace W, AttentionOption... O>
  requires rules_hold<rules_of::in_workspace<rules_of::attention_module_cross<T, D, H, X, M, O...>, W,
                                             workspace<detail::row_count<X>, detail::row_count<M>>>>
  constexpr matrix<T, detail::rows_of<X>, D> operator()(const X& x, const M& memory, W& ws,
                                                        const O&... opts) const noexcept {
    matrix<T, detail::rows_of<X>, D> out;
    detail::module_attention_into(out, ws, *this, x, memory, opts...);
    return out;
  }
  /// Shape error of attn(x, memory, ws, opts...).
  template <Matrix X, Matrix M, detail::FloatLayerWorkspace W, AttentionOption... O>
  decltype(detail::first_failure<
           rules_of::in_workspace<rules_of::attention_module_cross<T, D, H, X, M, O...>, W,
                                  workspace<detail::row_count<X>, detail::row_count<M>>>>::error())
  operator()(const X& x, const M& memory, W& ws, const O&... opts) const noexcept;
  /// Shape error of attn(x, memory, opts...).
  template <Matrix X, Matrix M, AttentionOption... O>
  decltype(detail::first_failure<rules_of::attention_module_cross<T, D, H, X, M, O...>>::error()) operator()(
      const X& x, const M& memory, const O&... opts) const noexcept;
  /// Cross-attention of every item pair of two batches.
  template <Batch X, Batch M, AttentionOption... O>
  requires rules_hold<rules_of::batch_attention_module_cross<T, D, H, X, M, O...>>
  constexpr batch<T, X::batch_extent, X::row_extent, D> operator()(const X& x, const M& memory,
                                                                   const O&... opts) const noexcept {
    return detail::map_items<X::batch_extent>(
        [&](std::size_t b) { return (*this)(x.items[b], memory.items[b], detail::item_option(opts, b)...); });
  }
  /// Shape error of the batched attn(x, memory, opts...).
  template <Batch X, Batch M, AttentionOption... O>
  decltype(detail::first_failure<rules_of::batch_attention_module_cross<T, D, H, X, M, O...>>::error()) operator()(
      const X& x, const M& memory, const O&... opts) const noexcept;
};

template <class T, extent D, std::size_t H, extent LO, extent DO, extent L, extent DQ, extent S, extent DKV,
          std::size_t WL, std::size_t WS, class... O>
constexpr void detail::module_attention_into(matrix<T, LO, DO>& out, float_attention_workspace<T, WL, WS, D>& ws,
                                             const attention_module<T, D, H>& m, const matrix<T, L, DQ>& xq,
                                             const matrix<T, S, DKV>& xkv, const O&... opts) noexcept {
  grouped_attention_into<H, H>(ws.heads, ws.q, ws.k, ws.v, xq, xkv, m.w_q, m.w_k, m.w_v,
                               static_cast<batch<T, H, L, S>*>(nullptr), query_bias(m.b_q), key_bias(m.b_k),
                               value_bias(m.b_v), opts...);
  project_into<projection::output>(out, ws.heads, m.w_o, output_bias(m.b_o));
}

template <class T, extent D, std::size_t H, extent L, extent S, class... O>
constexpr matrix<T, L, D> detail::module_attention(const attention_module<T, D, H>& m, const matrix<T, L, D>& xq,
                                                   const matrix<T, S, D>& xkv, const O&... opts) noexcept {
  float_attention_workspace<T, L.size, S.size, D> ws;
  matrix<T, L, D> out;
  module_attention_into(out, ws, m, xq, xkv, opts...);
  return out;
}

/// nn.TransformerEncoderLayer(d_model = DModel, nhead = H, dim_feedforward = DFF, activation =
/// Act, norm_first = NormFirst) in evaluation mode, as a value. layer_norm_eps is norm1.eps and
/// norm2.eps (default 1e-5). `layer(x, opts...)` maps x (n x DModel, or a batch B x n x DModel)
/// to the same shape:
///   post-norm: x = norm1(x + self_attn(x, opts...)); x = norm2(x + ff(x))
///   pre-norm:  x = x + self_attn(norm1(x), opts...); x = x + ff(norm2(x))
/// with ff(x) = linear2(Act(linear1(x))). The options (causal, key_padding(keep), mask(allowed),
/// batch_key_padding(keep) for a batch, ...) go to the self-attention.
template <class T, extent DModel, std::size_t H, extent DFF, activation Act = activation::relu, bool NormFirst = false>
struct encoder_layer {
  static_assert(detail::require_rules<rules_of::transformer_layer_type<H, DModel>>::value);
  using value_type = T;
  static constexpr auto d_model = DModel;
  static constexpr auto d_ff = DFF;
  static constexpr std::size_t heads = H;
  static constexpr activation activation_function = Act;
  static constexpr bool norm_first = NormFirst;

  attention_module<T, DModel, H> self_attn;
  linear_module<T, DModel, DFF> linear1;
  linear_module<T, DFF, DModel> linear2;
  layer_norm_module<T, DModel> norm1;
  layer_norm_module<T, DModel> norm2;

  /// The memory a call on N rows works in (float_encoder_workspace; its size is
  /// scratch_bytes<encoder_layer, N>): layers of the same sizes share the type.
  template <std::size_t N>
  using workspace = float_encoder_workspace<T, N, DModel, DFF>;

  /// The layer on one sequence x (n x DModel): n x DModel.
  template <Matrix X, AttentionOption... O>
  requires rules_hold<rules_of::encoder_layer<T, DModel, H, X, O...>>
  constexpr matrix<T, detail::rows_of<X>, DModel> operator()(const X& x, const O&... opts) const noexcept {
    workspace<detail::row_count<X>> ws;
    return (*this)(x, ws, opts...);
  }
  /// The layer on x with every intermediate tensor in ws (the caller's memory,
  /// workspace_for<encoder_layer, n>: a static workspace is in .bss, and the stack keeps the
  /// result and the attention kernel's blocks): the same numbers, whatever ws held.
  template <Matrix X, detail::FloatLayerWorkspace W, AttentionOption... O>
  requires rules_hold<
      rules_of::in_workspace<rules_of::encoder_layer<T, DModel, H, X, O...>, W, workspace<detail::row_count<X>>>>
  constexpr matrix<T, detail::rows_of<X>, DModel> operator()(const X& x, W& ws, const O&... opts) const noexcept {
    matrix<T, detail::rows_of<X>, DModel> y;
    if constexpr (NormFirst) {
      // y = h + ff(norm2(h)), h = x + attention(norm1(x))
      detail::layer_norm_into(ws.a.elems, x.elems, norm1);
      detail::module_attention_into(ws.h, ws.attention, self_attn, ws.a, ws.a, opts...);
      detail::add_into(ws.h.elems, x.elems, ws.h.elems);
      detail::layer_norm_into(ws.a.elems, ws.h.elems, norm2);
      detail::feed_forward_into<Act>(ws.a, ws.hidden, ws.a, linear1.weight, linear1.bias, linear2.weight, linear2.bias);
      detail::add_into(y.elems, ws.h.elems, ws.a.elems);
    } else {
      // y = norm2(a + ff(a)), a = norm1(x + attention(x))
      detail::module_attention_into(ws.a, ws.attention, self_attn, x, x, opts...);
      detail::add_into(ws.a.elems, x.elems, ws.a.elems);
      detail::layer_norm_into(ws.a.elems, ws.a.elems, norm1);
      detail::feed_forward_into<Act>(ws.h, ws.hidden, ws.a, linear1.weight, linear1.bias, linear2.weight, linear2.bias);
      detail::add_into(ws.h.elems, ws.a.elems, ws.h.elems);
      detail::layer_norm_into(y.elems, ws.h.elems, norm2);
    }
    return y;
  }
  /// Shape error of layer(x, ws, opts...): as layer(x, opts...), or ws not the call's workspace.
  template <Matrix X, detail::FloatLayerWorkspace W, AttentionOption... O>
  decltype(detail::first_failure<rules_of::in_workspace<rules_of::encoder_layer<T, DModel, H, X, O...>, W,
                                                        workspace<detail::row_count<X>>>>::error())
  operator()(const X& x, W& ws, const O&... opts) const noexcept;
  /// Shape error of layer(x, opts...): x's width or element type, or an option that does not fit.
  template <Matrix X, AttentionOption... O>
  decltype(detail::first_failure<rules_of::encoder_layer<T, DModel, H, X, O...>>::error()) operator()(
      const X& x, const O&... opts) const noexcept;

  /// The layer on every item of a batch x (B x n x DModel); batch_key_padding(keep) gives item b
  /// the key padding of row b.
  template <Batch X, AttentionOption... O>
  requires rules_hold<rules_of::batch_encoder_layer<T, DModel, H, X, O...>>
  constexpr batch<T, X::batch_extent, X::row_extent, DModel> operator()(const X& x, const O&... opts) const noexcept {
    return detail::map_items<X::batch_extent>(
        [&](std::size_t b) { return (*this)(x.items[b], detail::item_option(opts, b)...); });
  }
  /// Shape error of the batched layer(x, opts...).
  template <Batch X, AttentionOption... O>
  decltype(detail::first_failure<rules_of::batch_encoder_layer<T, DModel, H, X, O...>>::error()) operator()(
      const X& x, const O&... opts) const noexcept;

  /// linear2(Act(linear1(x))).
  template <extent N>
  constexpr matrix<T, N, DModel> feed_forward(const matrix<T, N, DModel>& x) const noexcept {
    return detail::feed_forward_of<Act>(x, linear1.weight, linear1.bias, linear2.weight, linear2.bias);
  }
};

/// nn.TransformerDecoderLayer(d_model = DModel, nhead = H, dim_feedforward = DFF, activation =
/// Act, norm_first = NormFirst) in evaluation mode, as a value. `layer(x, memory, opts...)` maps
/// x (n x DModel) with the memory (S x DModel, the encoder's output), or batches of both, to x's
/// shape:
///   post-norm: x = norm1(x + self_attn(x)); x = norm2(x + multihead_attn(x, memory)); x = norm3(x + ff(x))
///   pre-norm:  x = x + self_attn(norm1(x)); x = x + multihead_attn(norm2(x), memory); x = x + ff(norm3(x))
/// Plain options go to the self-attention (pass cxmat::causal for PyTorch's causal tgt_mask),
/// options wrapped in on_memory(...) to the cross-attention.
template <class T, extent DModel, std::size_t H, extent DFF, activation Act = activation::relu, bool NormFirst = false>
struct decoder_layer {
  static_assert(detail::require_rules<rules_of::transformer_layer_type<H, DModel>>::value);
  using value_type = T;
  static constexpr auto d_model = DModel;
  static constexpr auto d_ff = DFF;
  static constexpr std::size_t heads = H;
  static constexpr activation activation_function = Act;
  static constexpr bool norm_first = NormFirst;

  attention_module<T, DModel, H> self_attn;
  attention_module<T, DModel, H> multihead_attn;
  linear_module<T, DModel, DFF> linear1;
  linear_module<T, DFF, DModel> linear2;
  layer_norm_module<T, DModel> norm1;
  layer_norm_module<T, DModel> norm2;
  layer_norm_module<T, DModel> norm3;

  /// The memory a call on N rows with S memory rows works in (float_decoder_workspace; its size
  /// is scratch_bytes<decoder_layer, N, S>): layers of the same sizes share the type.
  template <std::size_t N, std::size_t S>
  using workspace = float_decoder_workspace<T, N, S, DModel, DFF>;

  /// The layer on one sequence x (n x DModel) and its memory (S x DModel): n x DModel.
  template <Matrix X, Matrix M, DecoderOption... O>
  requires rules_hold<rules_of::decoder_layer<T, DModel, H, X, M, O...>>
  constexpr matrix<T, detail::rows_of<X>, DModel> operator()(const X& x, const M& memory,
                                                             const O&... opts) const noexcept {
    workspace<detail::row_count<X>, detail::row_count<M>> ws;
    return (*this)(x, memory, ws, opts...);
  }
  /// The layer on x and its memory with every intermediate tensor in ws (the caller's memory,
  /// workspace_for<decoder_layer, n, s>): the same numbers, whatever ws held.
  template <Matrix X, Matrix M, detail::FloatLayerWorkspace W, DecoderOption... O>
  requires rules_hold<rules_of::in_workspace<rules_of::decoder_layer<T, DModel, H, X, M, O...>, W,
                                             workspace<detail::row_count<X>, detail::row_count<M>>>>
  constexpr matrix<T, detail::rows_of<X>, DModel> operator()(const X& x, const M& memory, W& ws,
                                                             const O&... opts) const noexcept {
    // out = self_attn(in) and out = multihead_attn(in, memory), each with its own options.
    const auto self = [&](auto& out, const auto& in) {
      detail::pass_options<detail::self_side>::call(
          [&](const auto&... self_options) {
            detail::module_attention_into(out, ws.self, self_attn, in, in, self_options...);
          },
          opts...);
    };
    const auto cross = [&](auto& out, const auto& in) {
      detail::pass_options<detail::memory_side>::call(
          [&](const auto&... memory_options) {
            detail::module_attention_into(out, ws.cross, multihead_attn, in, memory, memory_options...);
          },
          opts...);
    };
    matrix<T, detail::rows_of<X>, DModel> y;
    if constexpr (NormFirst) {
      // h = x + self(norm1(x)); h = h + cross(norm2(h)); y = h + ff(norm3(h))
      detail::layer_norm_into(ws.a.elems, x.elems, norm1);
      self(ws.h, ws.a);
      detail::add_into(ws.h.elems, x.elems, ws.h.elems);
      detail::layer_norm_into(ws.a.elems, ws.h.elems, norm2);
      cross(y, ws.a);
      detail::add_into(ws.h.elems, ws.h.elems, y.elems);
      detail::layer_norm_into(ws.a.elems, ws.h.elems, norm3);
      detail::feed_forward_into<Act>(ws.a, ws.hidden, ws.a, linear1.weight, linear1.bias, linear2.weight, linear2.bias);
      detail::add_into(y.elems, ws.h.elems, ws.a.elems);
    } else {
      // a = norm1(x + self(x)); h = norm2(a + cross(a)); y = norm3(h + ff(h))
      self(ws.a, x);
      detail::add_into(ws.a.elems, x.elems, ws.a.elems);
      detail::layer_norm_into(ws.a.elems, ws.a.elems, norm1);
      cross(ws.h, ws.a);
      detail::add_into(ws.h.elems, ws.a.elems, ws.h.elems);
      detail::layer_norm_into(ws.h.elems, ws.h.elems, norm2);
      detail::feed_forward_into<Act>(ws.a, ws.hidden, ws.h, linear1.weight, linear1.bias, linear2.weight, linear2.bias);
      detail::add_into(ws.a.elems, ws.h.elems, ws.a.elems);
      detail::layer_norm_into(y.elems, ws.a.elems, norm3);
    }
    return y;
  }
  /// Shape error of layer(x, memory, ws, opts...): as layer(x, memory, opts...), or ws not the
  /// call's workspace.
  template <Matrix X, Matrix M, detail::FloatLayerWorkspace W, DecoderOption... O>
  decltype(detail::first_failure<
           rules_of::in_workspace<rules_of::decoder_layer<T, DModel, H, X, M, O...>, W,
                                  workspace<detail::row_count<X>, detail::row_count<M>>>>::error())
  operator()(const X& x, const M& memory, W& ws, const O&... opts) const noexcept;
  /// Shape error of layer(x, memory, opts...): x's or memory's width or element type, or an
  /// option that does not fit its attention.
  template <Matrix X, Matrix M, DecoderOption... O>
  decltype(detail::first_failure<rules_of::decoder_layer<T, DModel, H, X, M, O...>>::error()) operator()(
      const X& x, const M& memory, const O&... opts) const noexcept;

  /// The layer on every item of a batch x (B x n x DModel) with its memory (B x S x DModel).
  template <Batch X, Batch M, DecoderOption... O>
  requires rules_hold<rules_of::batch_decoder_layer<T, DModel, H, X, M, O...>>
  constexpr batch<T, X::batch_extent, X::row_extent, DModel> operator()(const X& x, const M& memory,
                                                                        const O&... opts) const noexcept {
    return detail::map_items<X::batch_extent>(
        [&](std::size_t b) { return (*this)(x.items[b], memory.items[b], detail::item_option(opts, b)...); });
  }
  /// Shape error of the batched layer(x, memory, opts...).
  template <Batch X, Batch M, DecoderOption... O>
  decltype(detail::first_failure<rules_of::batch_decoder_layer<T, DModel, H, X, M, O...>>::error()) operator()(
      const X& x, const M& memory, const O&... opts) const noexcept;

  /// linear2(Act(linear1(x))).
  template <extent N>
  constexpr matrix<T, N, DModel> feed_forward(const matrix<T, N, DModel>& x) const noexcept {
    return detail::feed_forward_of<Act>(x, linear1.weight, linear1.bias, linear2.weight, linear2.bias);
  }
};

/// The final norm of a stack built without one (FinalNorm = false).
struct no_norm {};

/// nn.TransformerEncoder(layer, N, norm): N layers of one type, each with its own weights, then
/// the final layer norm (when FinalNorm). `enc(x, opts...)` passes the options to every layer.
template <class Layer, std::size_t N, bool FinalNorm = true>
struct transformer_encoder {
  static_assert(N > 0, "transformer_encoder<Layer, N>: N must be at least 1");
  using value_type = typename Layer::value_type;

  Layer layers[N];
  std::conditional_t<FinalNorm, layer_norm_module<value_type, Layer::d_model>, no_norm> norm;

  template <class X, class... O>
  constexpr auto operator()(const X& x, const O&... opts) const noexcept -> decltype(layers[0](x, opts...)) {
    auto h = layers[0](x, opts...);
    for (std::size_t i = 1; i < N; ++i) h = layers[i](h, opts...);
    if constexpr (FinalNorm) h = norm(h);
    return h;
  }
};

/// nn.TransformerDecoder(layer, N, norm): N decoder layers over one memory, then the final norm.
/// `dec(x, memory, opts...)` passes the options to every layer.
template <class Layer, std::size_t N, bool FinalNorm = true>
struct transformer_decoder {
  static_assert(N > 0, "transformer_decoder<Layer, N>: N must be at least 1");
  using value_type = typename Layer::value_type;

  Layer layers[N];
  std::conditional_t<FinalNorm, layer_norm_module<value_type, Layer::d_model>, no_norm> norm;

  template <class X, class M, class... O>
  constexpr auto operator()(const X& x, const M& memory, const O&... opts) const noexcept
      -> decltype(layers[0](x, memory, opts...)) {
    auto h = layers[0](x, memory, opts...);
    for (std::size_t i = 1; i < N; ++i) h = layers[i](h, memory, opts...);
    if constexpr (FinalNorm) h = norm(h);
    return h;
  }
};

}  // namespace cxmat
