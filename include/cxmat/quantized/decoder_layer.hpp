// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The int8 transformer decoder layer (nn.TransformerDecoderLayer in evaluation mode, post-norm or
// pre-norm): int8 self-attention and cross-attention to the memory (q8::multi_head_attention and
// q8::cross_attention, both with output projection), TFLite's int8 ADD for the three residual
// connections, cxmat's integer layer norm, and the encoder layer's feed-forward network.
// Calibrated from a float cxmat::decoder_layer, representative inputs and memories, at compile
// time or at run time by the same code.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/quantized/add.hpp>
#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>
#include <cxmat/quantized/encoder_layer.hpp>
#include <cxmat/quantized/layer_norm.hpp>
#include <cxmat/quantized/linear.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/layers.hpp>

namespace cxmat::q8 {

namespace shape_error {
template <class XCols, std::size_t DModel>
struct q8_decoder_x_cols_must_equal_d_model;  // x is n x d_model of the int8 decoder layer
template <class MemoryCols, std::size_t DModel>
struct q8_decoder_memory_cols_must_equal_d_model;  // the memory is s x d_model, as x is n x d_model
}  // namespace shape_error

/// An option of the int8 decoder layer on n queries and s memory rows, as the float
/// decoder_layer takes them: a mask of the self-attention (fitting n x n: causal, mask,
/// key_padding), or on_memory(mask) for the cross-attention (fitting n x s).
template <class O, auto N, auto S>
inline constexpr bool decoder_option_fits = QuantizedMaskFits<O, N>;
template <class M, auto N, auto S>
inline constexpr bool decoder_option_fits<memory_option<M>, N, S> = QuantizedScoreMaskFits<M, N, S>;
template <class O, auto N, auto S>
concept QuantizedDecoderOptionFits = decoder_option_fits<std::remove_cvref_t<O>, N, S>;

/// The memory an int8 decoder layer's call on N queries and S memory rows works in: the
/// self-attention's keys and values (N rows of AttnW = H·d_k), the cross-attention's (S rows),
/// two N x DModel tensors (the sums and norms, computed in place) and the hidden layer (N x DFF).
/// One serves every layer of these sizes, one call at a time.
template <std::size_t N, std::size_t S, std::size_t DModel, std::size_t AttnW, std::size_t DFF>
struct decoder_workspace {
  attention_workspace<N, AttnW, AttnW> self;
  attention_workspace<S, AttnW, AttnW> cross;
  std::int8_t a[N][DModel], b[N][DModel], hidden[N][DFF];
};

/// nn.TransformerDecoderLayer(DModel, H, DFF, activation = Act, norm_first = NormFirst) in int8:
///   post-norm: h = norm1(add1(x, self_attn(x))); h = norm2(add2(h, multihead_attn(h, memory)));
///              y = norm3(add3(h, ff(h)))
///   pre-norm:  h = add1(x, self_attn(norm1(x))); h = add2(h, multihead_attn(norm2(h), memory));
///              y = add3(h, ff(norm3(h)))
/// with ff as in q8::encoder_layer (ReLU fused, other activations the table `act`). Every tensor
/// is int8 with its own per-tensor quantization, the memory too (calibrate(xs, memories, layer)
/// documents them); weights per channel when PerChannel (the default, TFLite's).
template <std::size_t DModel, std::size_t H, std::size_t DFF, activation Act = activation::relu, bool NormFirst = false,
          bool PerChannel = true>
struct decoder_layer {
  static constexpr std::size_t d_model = DModel, heads = H, d_ff = DFF;
  static constexpr activation activation_function = Act;
  static constexpr bool norm_first = NormFirst, per_channel = PerChannel;
  using attention_type = attention_layer<DModel, H, DModel / H, DModel / H, DModel, PerChannel>;
  attention_type self_attn{}, multihead_attn{};
  linear_module<DModel, DFF, PerChannel> linear1{};
  [[no_unique_address]] activation_table<Act != activation::relu> act{};
  linear_module<DFF, DModel, PerChannel> linear2{};
  layer_norm_module<DModel> norm1{}, norm2{}, norm3{};
  add_params add1{}, add2{}, add3{};

  /// The memory a call on N queries and S memory rows works in (decoder_workspace; its size is
  /// scratch_bytes<decoder_layer, N, S>): layers of the same sizes share the type.
  template <std::size_t N, std::size_t S>
  using workspace = decoder_workspace<N, S, DModel, H*(DModel / H), DFF>;

  /// The layer on x (n x DModel, int8 with the calibration's input quantization) and the memory
  /// (s x DModel, int8 with its memory quantization): n x DModel (its output quantization).
  /// Options as the float decoder_layer takes them: plain masks go to the self-attention
  /// (cxmat::causal for PyTorch's causal tgt_mask), on_memory(mask) to the cross-attention
  /// (on_memory(key_padding(keep)) for memory_key_padding_mask, true = a real token). Every
  /// intermediate tensor is computed into ws (the caller's memory).
  template <extent N, extent DM, extent S, extent DMm, class... O>
  requires InputFitsLayer<DM, DModel> && MemoryFitsLayer<DMm, DModel> &&
      (QuantizedDecoderOptionFits<O, N, S>&&...) constexpr matrix<std::int8_t, N, DM>
      operator()(const matrix<std::int8_t, N, DM>& x, const matrix<std::int8_t, S, DMm>& memory,
                 workspace<N.size, S.size>& ws, const O&... opts) const noexcept {
    constexpr std::size_t n = N.size, s = S.size;
    using rows = std::int8_t(*)[DModel];
    const auto self = [&](const std::int8_t(*v)[DModel], rows out) {
      cxmat::detail::pass_options<cxmat::detail::self_side>::call(
          [&](const auto&... masks) { detail::self_attention_rows<n>(v, self_attn, ws.self, out, masks...); }, opts...);
    };
    const auto cross = [&](const std::int8_t(*v)[DModel], rows out) {
      cxmat::detail::pass_options<cxmat::detail::memory_side>::call(
          [&](const auto&... masks) {
            detail::cross_attention_rows<n, s>(v, memory.elems, multihead_attn, ws.cross, out, masks...);
          },
          opts...);
    };
    matrix<std::int8_t, N, DM> y;
    if constexpr (NormFirst) {
      detail::layer_norm_rows_q8<n>(x.elems, ws.a, norm1);
      self(ws.a, ws.b);
      detail::add_rows<n, DModel>(x.elems, ws.b, ws.b, add1);  // b = x + self_attn(norm1(x))
      detail::layer_norm_rows_q8<n>(ws.b, ws.a, norm2);
      cross(ws.a, y.elems);
      detail::add_rows<n, DModel>(ws.b, y.elems, ws.b, add2);  // b = b + multihead_attn(norm2(b), memory)
      detail::layer_norm_rows_q8<n>(ws.b, ws.a, norm3);
      detail::feed_forward_rows<n>(ws.a, linear1, act, linear2, ws.hidden, y.elems);
      detail::add_rows<n, DModel>(ws.b, y.elems, y.elems, add3);
    } else {
      self(x.elems, ws.a);
      detail::add_rows<n, DModel>(x.elems, ws.a, ws.a, add1);
      detail::layer_norm_rows_q8<n>(ws.a, ws.a, norm1);  // a = norm1(x + self_attn(x))
      cross(ws.a, ws.b);
      detail::add_rows<n, DModel>(ws.a, ws.b, ws.b, add2);
      detail::layer_norm_rows_q8<n>(ws.b, ws.b, norm2);  // b = norm2(a + multihead_attn(a, memory))
      detail::feed_forward_rows<n>(ws.b, linear1, act, linear2, ws.hidden, ws.a);
      detail::add_rows<n, DModel>(ws.b, ws.a, y.elems, add3);
      detail::layer_norm_rows_q8<n>(y.elems, y.elems, norm3);
    }
    return y;
  }
  /// The same with the workspace on the stack.
  template <extent N, extent DM, extent S, extent DMm, class... O>
  requires InputFitsLayer<DM, DModel> && MemoryFitsLayer<DMm, DModel> &&
      (QuantizedDecoderOptionFits<O, N, S>&&...) constexpr matrix<std::int8_t, N, DM>
      operator()(const matrix<std::int8_t, N, DM>& x, const matrix<std::int8_t, S, DMm>& memory,
                 const O&... opts) const noexcept {
    workspace<N.size, S.size> ws;
    return (*this)(x, memory, ws, opts...);
  }
  /// Shape error: x's or the memory's width is not the layer's d_model (x's reported first).
  template <extent N, extent DM, extent S, extent DMm, class... O>
  requires(
      !(InputFitsLayer<DM, DModel> &&
        MemoryFitsLayer<
            DMm, DModel>)) decltype(cxmat::detail::
                                        first_failure<
                                            cxmat::detail::check<
                                                InputFitsLayer<DM, DModel>,
                                                shape_error::q8_decoder_x_cols_must_equal_d_model<dim_of<DM>, DModel>>,
                                            cxmat::detail::check<MemoryFitsLayer<DMm, DModel>,
                                                                 shape_error::q8_decoder_memory_cols_must_equal_d_model<
                                                                     dim_of<DMm>, DModel>>>::error())
  operator()(const matrix<std::int8_t, N, DM>& x, const matrix<std::int8_t, S, DMm>& memory,
             const O&... opts) const noexcept;

  /// linear2(act(linear1(v))).
  template <extent N>
  constexpr matrix<std::int8_t, N, DModel> feed_forward(const matrix<std::int8_t, N, DModel>& v) const noexcept {
    return detail::feed_forward_q8(v, linear1, act, linear2);
  }
};

/// A calibrated int8 decoder layer: module_calibration's fields (`module`, `input`, `output`,
/// the status and the refused element), and `memory`, the quantization of the memory (quantize
/// the memory with it before the int8 layer).
template <class Module>
struct decoder_calibration : module_calibration<Module> {
  quantization memory{};
};

namespace detail {

// The options of calibrate(xs, memories, layer) that go to the self-attention: the plain masks
// (not on_memory(...), not per_tensor_weights).
struct decoder_self_masks {
  template <class O>
  static constexpr bool keeps = !cxmat::detail::is_memory_option_v<O> && !std::is_same_v<O, per_tensor_weights_t>;
  template <class O>
  using type = O;
  template <class O>
  static constexpr const O& get(const O& option) noexcept {
    return option;
  }
};

// f(the self-attention's masks...) and f(the cross-attention's masks...).
template <class F, class... O>
constexpr auto with_self_masks(const F& f, const O&... opts) noexcept {
  return cxmat::detail::pass_options<decoder_self_masks>::call(f, opts...);
}
template <class F, class... O>
constexpr auto with_memory_masks(const F& f, const O&... opts) noexcept {
  return cxmat::detail::pass_options<cxmat::detail::memory_side>::call(f, opts...);
}

// A refused tensor of the cross-attention's calibration under the decoder's names.
constexpr calibration_tensor cross_tensor(calibration_tensor t) noexcept {
  switch (t) {
    case calibration_tensor::input:
      return calibration_tensor::cross_attention_input;
    case calibration_tensor::output:
      return calibration_tensor::cross_attention_output;
    case calibration_tensor::wq:
      return calibration_tensor::cross_wq;
    case calibration_tensor::wk:
      return calibration_tensor::cross_wk;
    case calibration_tensor::wv:
      return calibration_tensor::cross_wv;
    case calibration_tensor::wo:
      return calibration_tensor::cross_wo;
    case calibration_tensor::bq:
      return calibration_tensor::cross_bq;
    case calibration_tensor::bk:
      return calibration_tensor::cross_bk;
    case calibration_tensor::bv:
      return calibration_tensor::cross_bv;
    case calibration_tensor::bo:
      return calibration_tensor::cross_bo;
    default:
      return t;
  }
}

// The ranges of a decoder layer's computed tensors from residual1 on (the attentions' inputs and
// outputs are their calibrations'): residual1, residual2, the feed-forward's input (post-norm:
// norm2's output, pre-norm: norm3's), the hidden layer before and after the activation,
// linear2's output, residual3 (post-norm), the output.
struct decoder_ranges {
  range h1, h2;
  feed_forward_ranges ff;  // ff.sum: residual3 (post-norm)
};

template <bool PC, class TX, extent B, extent N, extent DM, class TM, extent BM, extent S, extent DMm, class T,
          extent D, std::size_t H, extent F, activation Act, bool NF, class... O>
constexpr decoder_calibration<decoder_layer<D.size, H, F.size, Act, NF, PC>> calibrate_decoder(
    const batch<TX, B, N, DM>& xs, const batch<TM, BM, S, DMm>& ms, const cxmat::decoder_layer<T, D, H, F, Act, NF>& f,
    const O&... opts) noexcept {
  using result = decoder_calibration<decoder_layer<D.size, H, F.size, Act, NF, PC>>;
  using attention = attention_layer<D.size, H, D.size / H, D.size / H, D.size, PC>;
  result out{};
  refusal bad{};
  for (std::size_t b = 0; b < B.size; ++b) {
    check_finite<calibration_tensor::input>(xs[b], b, calibration_status::non_finite_input, bad);
  }
  for (std::size_t b = 0; b < B.size; ++b) {
    check_finite<calibration_tensor::memory>(ms[b], b, calibration_status::non_finite_input, bad);
  }
  check_finite<calibration_tensor::linear1_weight>(f.linear1.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::linear1_bias>(f.linear1.bias, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::linear2_weight>(f.linear2.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::linear2_bias>(f.linear2.bias, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm1_weight>(f.norm1.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm1_bias>(f.norm1.bias, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm2_weight>(f.norm2.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm2_bias>(f.norm2.bias, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm3_weight>(f.norm3.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm3_bias>(f.norm3.bias, 0, calibration_status::non_finite_weight, bad);
  const auto refuse = [&out](const refusal& r) {
    out.status = r.status, out.tensor = r.tensor, out.item = r.item, out.row = r.row, out.col = r.col;
    return out;
  };
  if (bad.status != calibration_status::ok) return refuse(bad);
  check_weight<calibration_tensor::linear1_weight>(f.linear1.weight, bad);
  check_weight<calibration_tensor::linear2_weight>(f.linear2.weight, bad);
  if (bad.status != calibration_status::ok) return refuse(bad);

  // The self-attention's inputs: x (post-norm) or norm1(x) (pre-norm), in the float layer's type.
  batch<T, B, N, D> xt{}, sa_in{}, h1{}, ca_in{};
  batch<T, B, S, D> mt{};
  range rx{};
  for (std::size_t b = 0; b < B.size; ++b) {
    for (std::size_t i = 0; i < N.size; ++i) {
      for (std::size_t j = 0; j < D.size; ++j) xt.items[b].elems[i][j] = static_cast<T>(xs.items[b].elems[i][j]);
    }
    for (std::size_t i = 0; i < S.size; ++i) {
      for (std::size_t j = 0; j < D.size; ++j) mt.items[b].elems[i][j] = static_cast<T>(ms.items[b].elems[i][j]);
    }
    observe_all(xt.items[b], rx);
    if constexpr (NF) {
      sa_in.items[b] = f.norm1(xt.items[b]);
    } else {
      sa_in.items[b] = xt.items[b];
    }
  }
  range rm{};
  for (std::size_t b = 0; b < B.size; ++b) observe_all(mt.items[b], rm);
  check_range<calibration_tensor::input>(rx, bad);
  check_range<calibration_tensor::memory>(rm, bad);
  if (bad.status != calibration_status::ok) return refuse(bad);
  const auto& sa = f.self_attn;
  const auto& ca = f.multihead_attn;
  const auto ac1 = with_self_masks(
      [&](const auto&... masks) {
        return calibrate_layer<attention, H>(sa_in, nullptr, sa.w_q, sa.w_k, sa.w_v, sa.w_o, query_bias(sa.b_q),
                                             key_bias(sa.b_k), value_bias(sa.b_v), output_bias(sa.b_o), masks...);
      },
      opts...);
  if (!ac1.ok()) {
    bad.set(ac1.status, attention_tensor(ac1.tensor), ac1.item, ac1.row, ac1.col);
    return refuse(bad);
  }

  // The float layer up to the cross-attention's input: norm1(x + self_attn(x)) (post-norm) or
  // norm2(x + self_attn(norm1(x))) (pre-norm).
  decoder_ranges r{};
  for (std::size_t b = 0; b < B.size; ++b) {
    const matrix<T, N, D> a = with_self_masks(
        [&](const auto&... masks) {
          return cxmat::detail::module_attention(sa, sa_in.items[b], sa_in.items[b], masks...);
        },
        opts...);
    h1.items[b] = xt.items[b] + a;
    observe_all(h1.items[b], r.h1);
    ca_in.items[b] = NF ? f.norm2(h1.items[b]) : f.norm1(h1.items[b]);
  }
  check_range<calibration_tensor::residual1>(r.h1, bad);
  if (bad.status != calibration_status::ok) return refuse(bad);
  const auto ac2 = with_memory_masks(
      [&](const auto&... masks) {
        return calibrate_layer<attention, H>(ca_in, mt, ca.w_q, ca.w_k, ca.w_v, ca.w_o, query_bias(ca.b_q),
                                             key_bias(ca.b_k), value_bias(ca.b_v), output_bias(ca.b_o), masks...);
      },
      opts...);
  if (!ac2.ok()) {
    bad.set(ac2.status, cross_tensor(ac2.tensor), ac2.item, ac2.row, ac2.col);
    return refuse(bad);
  }

  // The rest of the float layer, item by item, every computed tensor's range observed.
  for (std::size_t b = 0; b < B.size; ++b) {
    const matrix<T, N, D> a = with_memory_masks(
        [&](const auto&... masks) {
          return cxmat::detail::module_attention(ca, ca_in.items[b], mt.items[b], masks...);
        },
        opts...);
    const matrix<T, N, D> h2 = (NF ? h1.items[b] : ca_in.items[b]) + a;
    observe_all(h2, r.h2);
    observe_feed_forward<Act, NF>(h2, NF ? f.norm3 : f.norm2, f.norm3, f.linear1, f.linear2, r.ff);
  }
  check_range<calibration_tensor::residual2>(r.h2, bad);
  check_feed_forward<Act, NF, NF ? calibration_tensor::norm3_output : calibration_tensor::norm2_output,
                     calibration_tensor::residual3>(r.ff, bad);
  if (bad.status != calibration_status::ok) return refuse(bad);

  auto& l = out.module;
  const quantization qx = NF ? rx.asymmetric() : ac1.input, qa1 = ac1.output, qh1 = r.h1.asymmetric(), qc = ac2.input,
                     qa2 = ac2.output, qh2 = r.h2.asymmetric(), qn = r.ff.normed.asymmetric(),
                     qpre = r.ff.pre.asymmetric(), qact = r.ff.act.asymmetric(), qf2 = r.ff.f2.asymmetric(),
                     qy = r.ff.y.asymmetric();
  l.self_attn = ac1.layer;
  l.multihead_attn = ac2.layer;
  l.add1 = make_add_params(qx, qa1, qh1);
  quantize_feed_forward<Act, PC>(l, f, qn, qpre, qact, qf2);
  if constexpr (NF) {
    l.norm1 = quantize_layer_norm(f.norm1, qx, ac1.input);
    l.norm2 = quantize_layer_norm(f.norm2, qh1, qc);
    l.add2 = make_add_params(qh1, qa2, qh2);
    l.norm3 = quantize_layer_norm(f.norm3, qh2, qn);
    l.add3 = make_add_params(qh2, qf2, qy);
  } else {
    const quantization qh3 = r.ff.sum.asymmetric();
    l.norm1 = quantize_layer_norm(f.norm1, qh1, qc);
    l.add2 = make_add_params(qc, qa2, qh2);
    l.norm2 = quantize_layer_norm(f.norm2, qh2, qn);
    l.add3 = make_add_params(qn, qf2, qh3);
    l.norm3 = quantize_layer_norm(f.norm3, qh3, qy);
  }
  out.input = qx, out.output = qy, out.memory = ac2.memory;
  out.report.add(calibration_tensor::input, rx.lo, rx.hi, qx);
  out.report.append(ac1.report, attention_tensor);
  out.report.add(calibration_tensor::residual1, r.h1.lo, r.h1.hi, qh1);
  out.report.append(ac2.report, cross_tensor);
  out.report.add(calibration_tensor::residual2, r.h2.lo, r.h2.hi, qh2);
  report_feed_forward<Act, NF>(out.report, r.ff,
                               NF ? calibration_tensor::norm3_output : calibration_tensor::norm2_output,
                               calibration_tensor::residual3, f, qn, qpre, qact, qf2, r.ff.sum.asymmetric(), qy);
  return out;
}

}  // namespace detail

/// calibrate(xs, memories, layer)'s options: the self-attention's masks (fitting n x n), the
/// cross-attention's on_memory(mask) (fitting n x s), and per_tensor_weights.
template <class O, auto N, auto S>
concept DecoderCalibrationOption =
    std::same_as<std::remove_cvref_t<O>, per_tensor_weights_t> || QuantizedDecoderOptionFits<O, N, S>;

/// Calibrates a float decoder layer (cxmat::decoder_layer<T, D, H, F, Act, NormFirst>, T float or
/// double) on B representative pairs: inputs xs (B x n x D) and memories (B x s x D, item b with
/// xs's item b; float or double). As calibrate(xs, encoder_layer): the float layer runs on every
/// pair and the min/max of each tensor it computes gives that tensor's asymmetric int8
/// quantization; the self-attention is calibrated as calibrate<H>(its inputs, ...) and the
/// cross-attention as calibrate<H>(its inputs, memories, ...) (the memory its own quantization,
/// `memory` in the result: quantize the int8 layer's memory with it), the linear layers by
/// quantize_linear (per channel, or per_tensor_weights), the norms by quantize_layer_norm, the
/// three residual sums by make_add_params. Options as the int8 layer takes them (pass the same to
/// it): plain masks for the self-attention (causal ...), on_memory(mask) for the
/// cross-attention. NaN or infinite inputs, memories (`calibration_tensor::memory`) or weights
/// (the cross-attention's named cross_wq ... cross_bo, norm3's norm3_weight, norm3_bias) are
/// refused, as are computed tensors that leave double's range (residual1 ... residual3,
/// norm3_output, cross_attention_input / _output). At run time the float layer's inputs, its
/// memories and two intermediate tensors are held on the stack (4 x B x n x D and B x s x D in T).
template <class TX, extent B, extent N, extent DM, class TM, extent BM, extent S, extent DMm, class T, extent D,
          std::size_t H, extent F, activation Act, bool NF, class... O>
requires CalibrationElement<TX> && CalibrationElement<TM> && CalibrationElement<T> && BatchSizesMatch<B, BM> &&
    InputFitsLayer<DM, D.size> && MemoryFitsLayer<DMm, D.size> &&
    (DecoderCalibrationOption<O, N, S>&&...) constexpr decoder_calibration<
        decoder_layer<D.size, H, F.size, Act, NF,
                      !(std::is_same_v<std::remove_cvref_t<O>, per_tensor_weights_t> ||
                        ...)>> calibrate(const batch<TX, B, N, DM>& xs, const batch<TM, BM, S, DMm>& memories,
                                         const cxmat::decoder_layer<T, D, H, F, Act, NF>& layer,
                                         const O&... opts) noexcept {
  constexpr bool per_channel = !(std::is_same_v<std::remove_cvref_t<O>, per_tensor_weights_t> || ...);
  return detail::calibrate_decoder<per_channel>(xs, memories, layer, opts...);
}

}  // namespace cxmat::q8

#include <cxmat/quantized/plain_errors.hpp>
