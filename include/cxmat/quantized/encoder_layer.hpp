// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The int8 transformer encoder layer (nn.TransformerEncoderLayer in evaluation mode, post-norm or
// pre-norm): int8 multi-head attention with output projection, TFLite's int8 ADD for the two
// residual connections, cxmat's integer layer norm, and the feed-forward network as two int8
// FULLY_CONNECTED layers (ReLU fused into the first; other activations by a 256-entry lookup
// table, as TFLite's int8 GELU). Calibrated from a float cxmat::encoder_layer and representative
// inputs, at compile time or at run time by the same code.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/quantized/add.hpp>
#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/calibrate.hpp>
#include <cxmat/quantized/layer_norm.hpp>
#include <cxmat/quantized/linear.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/layers.hpp>

namespace cxmat::q8 {

namespace shape_error {
template <class XCols, std::size_t DModel>
struct q8_encoder_x_cols_must_equal_d_model;  // x is n x d_model of the int8 encoder layer
}  // namespace shape_error

/// An int8 activation as a table: out = values[q + 128] for an int8 input q (TFLite's int8
/// GELU / LOGISTIC lookup tables). The empty version (no storage) is ReLU's, fused into the
/// product before it.
template <bool Used>
struct activation_table {};
template <>
struct activation_table<true> {
  std::int8_t values[256]{};
};

/// The table of the activation Act from the input quantization in to the output quantization
/// out: values[q + 128] = quantize(Act(in.scale·(q - in.zero_point)), out), Act computed in
/// double by cxmat's own functions (gelu with cxmat::erf, no libm).
template <activation Act>
constexpr activation_table<true> make_activation_table(quantization in, quantization out) noexcept {
  matrix<double, 1, 256> real{};
  for (std::size_t i = 0; i < 256; ++i) {
    real.elems[0][i] = in.scale * (static_cast<double>(static_cast<std::int32_t>(i) - 128) - in.zero_point);
  }
  const auto q = quantize(cxmat::detail::activate<Act>(real), out);
  activation_table<true> t{};
  for (std::size_t i = 0; i < 256; ++i) t.values[i] = q.elems[0][i];
  return t;
}

namespace detail {
// The feed-forward network of the int8 encoder and decoder layers on N rows: out =
// linear2(act(linear1(v))), ReLU fused into linear1 (an empty table), other activations looked up
// in the table; hidden holds linear1's output (N x F). out must not overlap v or hidden.
template <std::size_t N, std::size_t D, std::size_t F, bool PC, bool Table>
constexpr void feed_forward_rows(const std::int8_t (*v)[D], const linear_module<D, F, PC>& linear1,
                                 const activation_table<Table>& act, const linear_module<F, D, PC>& linear2,
                                 std::int8_t (*hidden)[F], std::int8_t (*out)[D]) noexcept {
  linear1.template rows<N>(v, hidden);
  if constexpr (Table) {
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t j = 0; j < F; ++j) hidden[i][j] = act.values[hidden[i][j] + 128];
    }
  }
  linear2.template rows<N>(hidden, out);
}

// The same on a matrix, hidden on the stack.
template <class V, std::size_t D, std::size_t F, bool PC, bool Table>
constexpr V feed_forward_q8(const V& v, const linear_module<D, F, PC>& linear1, const activation_table<Table>& act,
                            const linear_module<F, D, PC>& linear2) noexcept {
  std::int8_t hidden[V::rows][F];
  V out;
  feed_forward_rows<V::rows>(v.elems, linear1, act, linear2, hidden, out.elems);
  return out;
}
}  // namespace detail

/// The memory an int8 encoder layer's call on N tokens works in: the attention's keys and values
/// (N x AttnW each, AttnW = H·d_k), two N x DModel tensors (the sums and norms, computed in place,
/// row by row) and the hidden layer (N x DFF). One serves every layer of these sizes, whatever
/// its activation or norm placement, one call at a time.
template <std::size_t N, std::size_t DModel, std::size_t AttnW, std::size_t DFF>
struct encoder_workspace {
  attention_workspace<N, AttnW, AttnW> attention;
  std::int8_t a[N][DModel], b[N][DModel], hidden[N][DFF];
};

/// nn.TransformerEncoderLayer(DModel, H, DFF, activation = Act, norm_first = NormFirst) in int8:
///   post-norm: h = add1(x, self_attn(x)); n = norm1(h); y = norm2(add2(n, ff(n)))
///   pre-norm:  n = norm1(x); h = add1(x, self_attn(n)); y = add2(h, ff(norm2(h)))
/// with ff(v) = linear2(act(linear1(v))), act fused into linear1 for ReLU and the table `act`
/// otherwise. Every tensor is int8 with its own per-tensor quantization (calibrate(xs, layer)
/// documents them); weights per channel when PerChannel (the default, TFLite's).
template <std::size_t DModel, std::size_t H, std::size_t DFF, activation Act = activation::relu, bool NormFirst = false,
          bool PerChannel = true>
struct encoder_layer {
  static constexpr std::size_t d_model = DModel, heads = H, d_ff = DFF;
  static constexpr activation activation_function = Act;
  static constexpr bool norm_first = NormFirst, per_channel = PerChannel;
  using attention_type = attention_layer<DModel, H, DModel / H, DModel / H, DModel, PerChannel>;
  attention_type self_attn{};
  linear_module<DModel, DFF, PerChannel> linear1{};
  [[no_unique_address]] activation_table<Act != activation::relu> act{};
  linear_module<DFF, DModel, PerChannel> linear2{};
  layer_norm_module<DModel> norm1{}, norm2{};
  add_params add1{}, add2{};

  /// The memory a call on N tokens works in (encoder_workspace; its size is
  /// scratch_bytes<encoder_layer, N>): layers of the same sizes share the type.
  template <std::size_t N>
  using workspace = encoder_workspace<N, DModel, H*(DModel / H), DFF>;

  /// The layer on x (n x DModel, int8 with the calibration's input quantization): n x DModel
  /// (with its output quantization). Options: masks, as q8::multi_head_attention takes them.
  /// Every intermediate tensor is computed into ws (the caller's memory: a static workspace is in
  /// .bss, and the stack keeps only rows and frames).
  template <extent N, extent DM, class... O>
  requires InputFitsLayer<DM, DModel> &&(QuantizedMaskFits<O, N>&&...) constexpr matrix<std::int8_t, N, DM> operator()(
      const matrix<std::int8_t, N, DM>& x, workspace<N.size>& ws, const O&... opts) const noexcept {
    constexpr std::size_t n = N.size;
    matrix<std::int8_t, N, DM> y;
    if constexpr (NormFirst) {
      detail::layer_norm_rows_q8<n>(x.elems, ws.a, norm1);  // a = norm1(x)
      detail::self_attention_rows<n>(ws.a, self_attn, ws.attention, ws.b, opts...);
      detail::add_rows<n, DModel>(x.elems, ws.b, ws.b, add1);  // b = h = x + attention
      detail::layer_norm_rows_q8<n>(ws.b, ws.a, norm2);
      detail::feed_forward_rows<n>(ws.a, linear1, act, linear2, ws.hidden, y.elems);
      detail::add_rows<n, DModel>(ws.b, y.elems, y.elems, add2);
    } else {
      detail::self_attention_rows<n>(x.elems, self_attn, ws.attention, ws.a, opts...);
      detail::add_rows<n, DModel>(x.elems, ws.a, ws.a, add1);
      detail::layer_norm_rows_q8<n>(ws.a, ws.a, norm1);  // a = norm1(x + attention)
      detail::feed_forward_rows<n>(ws.a, linear1, act, linear2, ws.hidden, ws.b);
      detail::add_rows<n, DModel>(ws.a, ws.b, y.elems, add2);
      detail::layer_norm_rows_q8<n>(y.elems, y.elems, norm2);
    }
    return y;
  }
  /// The same with the workspace on the stack.
  template <extent N, extent DM, class... O>
  requires InputFitsLayer<DM, DModel> &&(QuantizedMaskFits<O, N>&&...) constexpr matrix<std::int8_t, N, DM> operator()(
      const matrix<std::int8_t, N, DM>& x, const O&... opts) const noexcept {
    workspace<N.size> ws;
    return (*this)(x, ws, opts...);
  }
  /// Shape error: x's width is not the layer's d_model.
  template <extent N, extent DM, class... O>
  requires(!InputFitsLayer<DM, DModel>) shape_error::q8_encoder_x_cols_must_equal_d_model<dim_of<DM>, DModel>
  operator()(const matrix<std::int8_t, N, DM>& x, const O&... opts) const noexcept;

  /// linear2(act(linear1(v))).
  template <extent N>
  constexpr matrix<std::int8_t, N, DModel> feed_forward(const matrix<std::int8_t, N, DModel>& v) const noexcept {
    return detail::feed_forward_q8(v, linear1, act, linear2);
  }
};

namespace detail {

template <class M>
constexpr void observe_all(const M& m, range& r) noexcept {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) r.add(static_cast<double>(m.elems[i][j]));
  }
}

// The ranges of the feed-forward half of a layer, observed during calibration.
struct feed_forward_ranges {
  range normed, pre, act, f2, sum, y;
};

// The feed-forward half of a float layer (encoder or decoder), for one item, every computed
// tensor's range observed: from h, the sum after the layer's last attention, through the norm
// before the feed-forward (norm_ff; post-norm: its output is also the residual), the
// feed-forward, to the output: h + f2 (pre-norm), or norm_last(normed + f2) (post-norm, where
// `sum` is normed + f2).
template <activation Act, bool NormFirst, class M, class NormFF, class NormLast, class Linear1, class Linear2>
constexpr void observe_feed_forward(const M& h, const NormFF& norm_ff, const NormLast& norm_last,
                                    const Linear1& linear1, const Linear2& linear2, feed_forward_ranges& r) noexcept {
  const M normed = norm_ff(h);
  observe_all(normed, r.normed);
  const auto pre = linear1(normed);
  observe_all(pre, r.pre);
  const auto hidden = cxmat::detail::activate<Act>(pre);
  observe_all(hidden, r.act);
  const M f2 = linear2(hidden);
  observe_all(f2, r.f2);
  if constexpr (NormFirst) {
    observe_all(h + f2, r.y);
  } else {
    const M sum = normed + f2;
    observe_all(sum, r.sum);
    observe_all(norm_last(sum), r.y);
  }
}

// The int8 feed-forward of a layer l (encoder or decoder) from the float layer f's linear1 and
// linear2 and the observed quantizations of its input (qn), the hidden layer before and after
// the activation and its output: ReLU fused into linear1 (its output is then the activation's),
// any other activation as a table from qpre to qact.
template <activation Act, bool PC, class L, class F>
constexpr void quantize_feed_forward(L& l, const F& f, quantization qn, quantization qpre, quantization qact,
                                     quantization qf2) noexcept {
  if constexpr (Act == activation::relu) {
    l.linear1 = quantize_linear<PC>(f.linear1, qn, qact, true);
  } else {
    l.linear1 = quantize_linear<PC>(f.linear1, qn, qpre);
    l.act = make_activation_table<Act>(qpre, qact);
  }
  l.linear2 = quantize_linear<PC>(f.linear2, qact, qf2);
}

// The ranges of an encoder layer's computed tensors, in calibration_tensor order from
// residual1: residual1, norm1_output (post-norm) / norm2_output (pre-norm), the hidden layer
// before and after the activation, feed_forward_output, residual2 (post-norm) / output.
struct encoder_ranges {
  range h1;
  feed_forward_ranges ff;  // ff.sum: residual2 (post-norm)
};

// The feed-forward half's ranges checked (check_range) where they are quantized: Normed names
// the norm before the feed-forward, the hidden layer before the activation only where it has a
// table (ReLU is fused: its output is the hidden layer), Sum the post-norm residual.
template <activation Act, bool NF, calibration_tensor Normed, calibration_tensor Sum>
constexpr void check_feed_forward(const feed_forward_ranges& r, refusal& bad) noexcept {
  check_range<Normed>(r.normed, bad);
  if constexpr (Act != activation::relu) {
    check_range<calibration_tensor::feed_forward_hidden>(r.pre, bad);
    check_range<calibration_tensor::feed_forward_activation>(r.act, bad);
  } else {
    check_range<calibration_tensor::feed_forward_hidden>(r.act, bad);
  }
  check_range<calibration_tensor::feed_forward_output>(r.f2, bad);
  if constexpr (!NF) check_range<Sum>(r.sum, bad);
  check_range<calibration_tensor::output>(r.y, bad);
}

// The feed-forward half's tensors in a calibration report (as check_feed_forward names them).
template <activation Act, bool NF, class F>
constexpr void report_feed_forward(calibration_report& rep, const feed_forward_ranges& r, calibration_tensor normed,
                                   calibration_tensor sum, const F& f, quantization qn, quantization qpre,
                                   quantization qact, quantization qf2, quantization qsum, quantization qy) noexcept {
  rep.add(normed, r.normed.lo, r.normed.hi, qn);
  if constexpr (Act != activation::relu) {
    rep.add(calibration_tensor::feed_forward_hidden, r.pre.lo, r.pre.hi, qpre);
    rep.add(calibration_tensor::feed_forward_activation, r.act.lo, r.act.hi, qact);
  } else {
    rep.add(calibration_tensor::feed_forward_hidden, r.act.lo, r.act.hi, qact);
  }
  const range w1 = weight_range(f.linear1.weight), w2 = weight_range(f.linear2.weight);
  rep.add(calibration_tensor::linear1_weight, w1.lo, w1.hi, symmetric_of(f.linear1.weight));
  rep.add(calibration_tensor::linear2_weight, w2.lo, w2.hi, symmetric_of(f.linear2.weight));
  rep.add(calibration_tensor::feed_forward_output, r.f2.lo, r.f2.hi, qf2);
  if constexpr (!NF) rep.add(sum, r.sum.lo, r.sum.hi, qsum);
  rep.add(calibration_tensor::output, r.y.lo, r.y.hi, qy);
}

// A self-attention's tensor names inside a layer: its input and output renamed.
constexpr calibration_tensor attention_tensor(calibration_tensor t) noexcept {
  return t == calibration_tensor::input ? calibration_tensor::attention_input
                                        : (t == calibration_tensor::output ? calibration_tensor::attention_output : t);
}

template <bool PC, class TX, extent B, extent N, extent DM, class T, extent D, std::size_t H, extent F, activation Act,
          bool NF, class... O>
constexpr module_calibration<encoder_layer<D.size, H, F.size, Act, NF, PC>> calibrate_encoder(
    const batch<TX, B, N, DM>& xs, const cxmat::encoder_layer<T, D, H, F, Act, NF>& f, const O&... masks) noexcept {
  using result = module_calibration<encoder_layer<D.size, H, F.size, Act, NF, PC>>;
  constexpr std::size_t d = D.size;
  result out{};
  refusal bad{};
  for (std::size_t b = 0; b < B.size; ++b) {
    check_finite<calibration_tensor::input>(xs[b], b, calibration_status::non_finite_input, bad);
  }
  check_finite<calibration_tensor::linear1_weight>(f.linear1.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::linear1_bias>(f.linear1.bias, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::linear2_weight>(f.linear2.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::linear2_bias>(f.linear2.bias, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm1_weight>(f.norm1.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm1_bias>(f.norm1.bias, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm2_weight>(f.norm2.weight, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::norm2_bias>(f.norm2.bias, 0, calibration_status::non_finite_weight, bad);
  const auto refuse = [&out](const refusal& r) {
    out.status = r.status, out.tensor = r.tensor, out.item = r.item, out.row = r.row, out.col = r.col;
    return out;
  };
  if (bad.status != calibration_status::ok) return refuse(bad);
  check_weight<calibration_tensor::linear1_weight>(f.linear1.weight, bad);
  check_weight<calibration_tensor::linear2_weight>(f.linear2.weight, bad);
  if (bad.status != calibration_status::ok) return refuse(bad);

  // The attention's inputs: x (post-norm) or norm1(x) (pre-norm), in the float layer's type.
  batch<T, B, N, D> xt{}, att_in{};
  range rx{};
  for (std::size_t b = 0; b < B.size; ++b) {
    for (std::size_t i = 0; i < N.size; ++i) {
      for (std::size_t j = 0; j < d; ++j) xt.items[b].elems[i][j] = static_cast<T>(xs.items[b].elems[i][j]);
    }
    observe_all(xt.items[b], rx);
    if constexpr (NF) {
      att_in.items[b] = f.norm1(xt.items[b]);
    } else {
      att_in.items[b] = xt.items[b];
    }
  }
  check_range<calibration_tensor::input>(rx, bad);
  if (bad.status != calibration_status::ok) return refuse(bad);
  const auto& sa = f.self_attn;
  const auto ac = calibrate_layer<attention_layer<d, H, d / H, d / H, d, PC>, H>(
      att_in, nullptr, sa.w_q, sa.w_k, sa.w_v, sa.w_o, query_bias(sa.b_q), key_bias(sa.b_k), value_bias(sa.b_v),
      output_bias(sa.b_o), masks...);
  if (!ac.ok()) {
    bad.set(ac.status, attention_tensor(ac.tensor), ac.item, ac.row, ac.col);
    return refuse(bad);
  }

  // The float layer, item by item, every computed tensor's range observed.
  encoder_ranges r{};
  for (std::size_t b = 0; b < B.size; ++b) {
    const matrix<T, N, D>& x = xt.items[b];
    const matrix<T, N, D> a = cxmat::detail::module_attention(sa, att_in.items[b], att_in.items[b], masks...);
    const matrix<T, N, D> h1 = x + a;
    observe_all(h1, r.h1);
    observe_feed_forward<Act, NF>(h1, NF ? f.norm2 : f.norm1, f.norm2, f.linear1, f.linear2, r.ff);
  }
  check_range<calibration_tensor::residual1>(r.h1, bad);
  check_feed_forward<Act, NF, NF ? calibration_tensor::norm2_output : calibration_tensor::norm1_output,
                     calibration_tensor::residual2>(r.ff, bad);
  if (bad.status != calibration_status::ok) return refuse(bad);

  auto& l = out.module;
  const quantization qx = NF ? rx.asymmetric() : ac.input, qa = ac.output, qh1 = r.h1.asymmetric(),
                     qn = r.ff.normed.asymmetric(), qpre = r.ff.pre.asymmetric(), qact = r.ff.act.asymmetric(),
                     qf2 = r.ff.f2.asymmetric(), qy = r.ff.y.asymmetric();
  l.self_attn = ac.layer;
  l.add1 = make_add_params(qx, qa, qh1);
  quantize_feed_forward<Act, PC>(l, f, qn, qpre, qact, qf2);
  if constexpr (NF) {
    l.norm1 = quantize_layer_norm(f.norm1, qx, ac.input);
    l.norm2 = quantize_layer_norm(f.norm2, qh1, qn);
    l.add2 = make_add_params(qh1, qf2, qy);
  } else {
    const quantization qh2 = r.ff.sum.asymmetric();
    l.norm1 = quantize_layer_norm(f.norm1, qh1, qn);
    l.add2 = make_add_params(qn, qf2, qh2);
    l.norm2 = quantize_layer_norm(f.norm2, qh2, qy);
  }
  out.input = qx, out.output = qy;
  out.report.add(calibration_tensor::input, rx.lo, rx.hi, qx);
  out.report.append(ac.report, attention_tensor);
  out.report.add(calibration_tensor::residual1, r.h1.lo, r.h1.hi, qh1);
  report_feed_forward<Act, NF>(out.report, r.ff,
                               NF ? calibration_tensor::norm2_output : calibration_tensor::norm1_output,
                               calibration_tensor::residual2, f, qn, qpre, qact, qf2, r.ff.sum.asymmetric(), qy);
  return out;
}

}  // namespace detail

/// calibrate(xs, layer)'s options: masks fitting the n x n scores (pass the same to the int8 layer),
/// and per_tensor_weights.
template <class O, auto N>
concept EncoderCalibrationOption =
    std::same_as<std::remove_cvref_t<O>, per_tensor_weights_t> || QuantizedMaskFits<O, N>;

namespace detail {
// The options of calibrate(xs, layer) that go to the attention: all but per_tensor_weights.
struct calibration_masks {
  template <class O>
  static constexpr bool keeps = !std::is_same_v<O, per_tensor_weights_t>;
  template <class O>
  using type = O;
  template <class O>
  static constexpr const O& get(const O& option) noexcept {
    return option;
  }
};
}  // namespace detail

/// Calibrates a float encoder layer (cxmat::encoder_layer<T, D, H, F, Act, NormFirst>, T float or
/// double) on the representative inputs xs (B x n x D, float or double): the float layer runs on
/// every input and the min/max of each tensor it computes gives that tensor's asymmetric int8
/// quantization (TFLite's post-training calibration); the attention is calibrated as
/// q8::calibrate<H>(its inputs, W_q, W_k, W_v, W_o, its biases, masks...), the linear layers by
/// quantize_linear (per-channel weights, or per tensor with the option per_tensor_weights), the
/// norms by quantize_layer_norm, the residual sums by make_add_params. `input` quantizes x,
/// `output` reads the result. NaN or infinite inputs or weights are refused (a named error in a
/// constant expression, the status at run time), as are computed tensors that leave double's range.
/// The float layer's inputs are copied twice (B x n x D in T, automatic storage): at run time, a
/// large calibration set wants a large stack or a smaller B.
template <class TX, extent B, extent N, extent DM, class T, extent D, std::size_t H, extent F, activation Act, bool NF,
          class... O>
requires CalibrationElement<TX> && CalibrationElement<T> && InputFitsLayer<DM, D.size> &&
    (EncoderCalibrationOption<O, N>&&...) constexpr module_calibration<
        encoder_layer<D.size, H, F.size, Act, NF,
                      !(std::is_same_v<std::remove_cvref_t<O>, per_tensor_weights_t> ||
                        ...)>> calibrate(const batch<TX, B, N, DM>& xs,
                                         const cxmat::encoder_layer<T, D, H, F, Act, NF>& layer,
                                         const O&... opts) noexcept {
  constexpr bool per_channel = !(std::is_same_v<std::remove_cvref_t<O>, per_tensor_weights_t> || ...);
  return cxmat::detail::pass_options<detail::calibration_masks>::call(
      [&](const auto&... masks) { return detail::calibrate_encoder<per_channel>(xs, layer, masks...); }, opts...);
}

}  // namespace cxmat::q8

#include <cxmat/quantized/plain_errors.hpp>
