// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// A trace of a transformer encoder layer: every intermediate of one call layer(x, opts...) (the
// self-attention's projections, heads, scores, weights and outputs, the residual additions, the
// norms, the feed-forward block's hidden layer before and after its activation), computed with
// the layer's own pieces in a constant expression, and printed step by step with names and shapes.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/io/print.hpp>
#include <cxmat/io/trace.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/layers.hpp>

namespace cxmat {

/// Every intermediate of an encoder layer's call on n tokens: `attention_input` (x for post-norm,
/// norm1(x) for pre-norm), `attention` (the self-attention's trace, see trace.hpp: q, k, v with
/// their biases, the heads, scores, weights, head outputs, concat, and output = concat·W_o + b_o),
/// `after_attention` = x + attention.output, `h` (the first sublayer's result: norm1(after_attention)
/// for post-norm, after_attention for pre-norm), `ff_input` (h, or norm2(h) for pre-norm),
/// `ff_preactivation` = ff_input·W_1 + b_1 (n x d_ff), `ff_hidden` = the activation of it,
/// `ff_output` = ff_hidden·W_2 + b_2, `after_ff` = h + ff_output, and `output` (norm2(after_ff) for
/// post-norm, after_ff for pre-norm), which is layer(x, opts...).
template <class Layer, class T, extent N, extent D, extent DFF, class AttentionTrace>
struct encoder_layer_trace {
  /// The traced layer's type (its heads, activation and norm placement).
  using layer_type = Layer;
  static constexpr std::size_t heads = Layer::heads;
  static constexpr activation activation_function = Layer::activation_function;
  static constexpr bool norm_first = Layer::norm_first;

  matrix<T, N, D> x;
  matrix<T, N, D> attention_input;
  AttentionTrace attention;
  matrix<T, N, D> after_attention;
  matrix<T, N, D> h;
  matrix<T, N, D> ff_input;
  matrix<T, N, DFF> ff_preactivation;
  matrix<T, N, DFF> ff_hidden;
  matrix<T, N, D> ff_output;
  matrix<T, N, D> after_ff;
  matrix<T, N, D> output;
};

namespace detail {

// The activation Act through its public function (the feed-forward block's choice).
template <activation Act, class M>
constexpr M apply_activation(const M& m) noexcept {
  if constexpr (Act == activation::relu) {
    return relu(m);
  } else if constexpr (Act == activation::silu) {
    return silu(m);
  } else if constexpr (Act == activation::gelu_tanh) {
    return gelu_tanh(m);
  } else {
    return gelu(m);
  }
}

constexpr const char* activation_name(activation a) noexcept {
  switch (a) {
    case activation::relu:
      return "relu";
    case activation::silu:
      return "silu";
    case activation::gelu_tanh:
      return "gelu_tanh";
    case activation::gelu:
      break;
  }
  return "gelu";
}

// The self-attention of an encoder layer, traced: the layer's weights and biases as
// trace_multi_head_attention's arguments, then the call's options.
template <std::size_t H, class T, extent N, extent D, class... O>
constexpr auto trace_module_attention(const attention_module<T, D, H>& m, const matrix<T, N, D>& in,
                                      const O&... opts) noexcept {
  return trace_multi_head_attention<H>(in, m.w_q, m.w_k, m.w_v, m.w_o, query_bias(m.b_q), key_bias(m.b_k),
                                       value_bias(m.b_v), output_bias(m.b_o), opts...);
}

}  // namespace detail

/// The trace of layer(x, opts...) for an encoder layer (cxmat::encoder_layer, as
/// nn.TransformerEncoderLayer): takes what the layer takes; `.output` equals the layer's result,
/// and every step is computed with the layer's pieces (norm1, norm2, linear1, linear2, the
/// activation's function, and the attention trace of trace.hpp on self_attn's weights and biases).
template <class T, extent DModel, std::size_t H, extent DFF, activation Act, bool NormFirst, extent N, extent XC,
          AttentionOption... O>
requires rules_hold<rules_of::encoder_layer<T, DModel, H, matrix<T, N, XC>, O...>>
constexpr auto trace_encoder_layer(const encoder_layer<T, DModel, H, DFF, Act, NormFirst>& layer,
                                   const matrix<T, N, XC>& x, const O&... opts) noexcept {
  using layer_type = encoder_layer<T, DModel, H, DFF, Act, NormFirst>;
  const matrix<T, N, DModel> x0 = with_dims<N, DModel>(x);
  const matrix<T, N, DModel> attention_input = NormFirst ? layer.norm1(x0) : x0;
  const auto attention = detail::trace_module_attention(layer.self_attn, attention_input, opts...);
  encoder_layer_trace<layer_type, T, N, DModel, DFF, std::remove_cvref_t<decltype(attention)>> t{};
  t.x = x0;
  t.attention_input = attention_input;
  t.attention = attention;
  t.after_attention = x0 + attention.output;
  t.h = NormFirst ? t.after_attention : layer.norm1(t.after_attention);
  t.ff_input = NormFirst ? layer.norm2(t.h) : t.h;
  t.ff_preactivation = layer.linear1(t.ff_input);
  t.ff_hidden = detail::apply_activation<Act>(t.ff_preactivation);
  t.ff_output = layer.linear2(t.ff_hidden);
  t.after_ff = t.h + t.ff_output;
  t.output = NormFirst ? t.after_ff : layer.norm2(t.after_ff);
  return t;
}

/// Shape error of trace_encoder_layer(layer, x, opts...): layer(x, opts...)'s.
template <class T, extent DModel, std::size_t H, extent DFF, activation Act, bool NormFirst, Matrix X,
          AttentionOption... O>
decltype(detail::first_failure<rules_of::encoder_layer<T, DModel, H, X, O...>>::error()) trace_encoder_layer(
    const encoder_layer<T, DModel, H, DFF, Act, NormFirst>& layer, const X& x, const O&... opts) noexcept;

/// Writes every step of an encoder layer's trace, each as "step (shape):" and its values, in the
/// order the layer computes them: X, (pre-norm: norm1(X)), the self-attention's steps (as
/// print(os, attention_trace) writes them, the projections with their biases), its output, the
/// residual additions and norms, and the feed-forward block's hidden layer before and after the
/// activation.
template <class Layer, class T, extent N, extent D, extent DFF, class AttentionTrace>
std::ostream& print(std::ostream& os, const encoder_layer_trace<Layer, T, N, D, DFF, AttentionTrace>& t,
                    const trace_print_options& opt = {}) {
  using detail::cat;
  const auto& num = opt.numbers;
  const auto& a = t.attention;
  const std::string in = Layer::norm_first ? "N1" : "X";
  const std::string act = detail::activation_name(Layer::activation_function);
  print(os, "X", t.x, num);
  if constexpr (Layer::norm_first) print(os, "N1 = norm1(X)", t.attention_input, num);
  print(os, cat("Q = ", in, " W_q + b_q"), a.q, num);
  print(os, cat("K = ", in, " W_k + b_k"), a.k, num);
  print(os, cat("V = ", in, " W_v + b_v"), a.v, num);
  detail::print_trace_heads(os, a, opt);
  print(os, "Attention Output O = Z W_o + b_o", a.output, num);
  if constexpr (Layer::norm_first) {
    print(os, "H = X + O", t.after_attention, num);
    print(os, "N2 = norm2(H)", t.ff_input, num);
    print(os, "F = N2 W_1 + b_1", t.ff_preactivation, num);
  } else {
    print(os, "R1 = X + O", t.after_attention, num);
    print(os, "H = norm1(R1)", t.h, num);
    print(os, "F = H W_1 + b_1", t.ff_preactivation, num);
  }
  print(os, cat("G = ", act, "(F)"), t.ff_hidden, num);
  print(os, "FF = G W_2 + b_2", t.ff_output, num);
  if constexpr (Layer::norm_first) {
    print(os, "Output Y = H + FF", t.output, num);
  } else {
    print(os, "R2 = H + FF", t.after_ff, num);
    print(os, "Output Y = norm2(R2)", t.output, num);
  }
  return os;
}

}  // namespace cxmat
