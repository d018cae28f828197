// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Post-training calibration at compile time: from the float weights of a self-attention layer
// and a representative input set to the int8 layer, every scale, zero point, multiplier, shift
// and diff_min derived the way the TFLite converter does it (min/max calibration, asymmetric
// int8 activations, symmetric per-tensor int8 weights). NaN and infinite weights or inputs are
// refused: a named error in a constant expression, a status at run time.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/math/exp.hpp>
#include <cxmat/math/sqrt.hpp>
#include <cxmat/quantized/attention.hpp>
#include <cxmat/quantized/matmul.hpp>
#include <cxmat/quantized/quantize.hpp>
#include <cxmat/quantized/requantize.hpp>
#include <cxmat/quantized/softmax.hpp>

namespace cxmat::q8 {

/// What calibrate found: ok, or the first refused tensor (in argument order: xs, Wq, Wk, Wv, Wo,
/// then the computed tensors). A layer whose status is not ok holds zeros and must not be used.
enum class calibration_status : std::uint8_t {
  ok,
  non_finite_input,   // a NaN or infinite entry in the representative inputs xs
  non_finite_weight,  // a NaN or infinite weight
  non_finite_range,   // finite inputs and weights, but a computed tensor leaves double's range
  zero_width_range,   // an input or computed tensor whose every calibration value is the same (all zero, constant)
  dominated_range,    // one value sets the tensor's range: its magnitude is more than
                      // CXMAT_Q8_CALIBRATION_DOMINANCE times the next largest (which is not 0)
};

/// The dominance rule of calibration (calibration_status::dominated_range): a tensor is refused
/// when its largest magnitude |x| is more than this many times its second largest magnitude and
/// that one is not 0 (a value that occurs twice is its own second). With min/max calibration the
/// largest value sets the scale, so every other value then lies within 1/K of the range: for
/// weights (symmetric, 127 steps) at most 127/K steps, for activations at most 255/K, their
/// information mostly lost. 64 leaves the others 2 (weights) to 4 (activations) steps at most;
/// genuine tensors come nowhere near it (random weights: a ratio of about 1.1, trained ones
/// rarely above 2). A tensor whose other values are all 0 loses nothing and is kept. The rule
/// looks at the single largest value only: two equal outliers are not caught (one pass, two
/// comparisons per value, for the constant evaluator). Override with -DCXMAT_Q8_CALIBRATION_DOMINANCE=K.
#if !defined(CXMAT_Q8_CALIBRATION_DOMINANCE)
#define CXMAT_Q8_CALIBRATION_DOMINANCE 64
#endif
inline constexpr double calibration_dominance = CXMAT_Q8_CALIBRATION_DOMINANCE;

/// The tensors calibrate reads or computes, for calibration_status and the named errors.
enum class calibration_tensor : std::uint8_t {
  none,
  input,
  wq,
  wk,
  wv,
  wo,
  bq,
  bk,
  bv,
  bo,
  query,
  key,
  value,
  scores,
  context,
  output,
  linear_weight,  // a linear module's weight (calibrate(xs, linear)), or linear1 / linear2's below
  linear_bias,
  linear1_weight,
  linear1_bias,
  linear2_weight,
  linear2_bias,
  norm1_weight,
  norm1_bias,
  norm2_weight,
  norm2_bias,
  attention_input,   // a computed tensor of an encoder layer: the attention's input (pre-norm: norm1's output),
  attention_output,  // its output (its inner tensors keep the attention's names: query ... context),
  residual1,         // x + attention
  norm1_output,
  feed_forward_hidden,  // linear1's output, before and after the activation
  feed_forward_output,  // linear2's output
  residual2,
  norm2_output,
  cross_attention_input,  // a decoder layer's: its cross-attention's input (pre-norm: norm2's output), output,
  cross_attention_output,
  cross_wq,  // the cross-attention's weights and biases (its inner tensors keep the attention's names),
  cross_wk,
  cross_wv,
  cross_wo,
  cross_bq,
  cross_bk,
  cross_bv,
  cross_bo,
  residual3,  // the third residual sum, norm3's output (pre-norm), norm3's weights
  norm3_output,
  norm3_weight,
  norm3_bias,
  memory,                  // a cross-attention's (a decoder layer's) representative memories
  feed_forward_activation  // in a calibration report: the hidden layer after an activation other than ReLU
};

/// One tensor's calibration, for the calibration report: the observed range [min, max] over the
/// representative set (weights: the whole tensor), its quantization (weights: the per-tensor
/// scale, the largest channel's with per-channel weights), `range_used` the share of the 255
/// int8 steps the observed range spans once quantized ((q(max) - q(min)) / 255: 1 for a range
/// that fills int8, less where the range was widened to contain 0 or weights are lopsided), and
/// `clipped` how many calibration values quantize outside [-128, 127] and are clamped. Only the
/// ends of the range can be (by the zero point's rounding, half a step at most), and computed
/// tensors are not stored, so `clipped` counts the ends, min and max, that are: 0 means no value
/// was clipped, 1 or 2 that the values at that end lost up to half a step.
struct tensor_report {
  calibration_tensor tensor = calibration_tensor::none;
  double min = 0, max = 0, scale = 0;
  std::int32_t zero_point = 0;
  double range_used = 0;
  std::size_t clipped = 0;
  friend constexpr bool operator==(const tensor_report&, const tensor_report&) = default;
};

/// The calibration report of a module: one tensor_report per quantized tensor (inputs, weights
/// and computed tensors; biases are int32 and not reported), in calibration order. Empty when
/// calibration refused a tensor.
struct calibration_report {
  static constexpr std::size_t capacity = 40;
  tensor_report tensors[capacity]{};
  std::size_t count = 0;
  /// The report of tensor t (the first, for the names an attention's inner tensors share), or
  /// nullptr when t was not quantized.
  constexpr const tensor_report* find(calibration_tensor t) const noexcept {
    for (std::size_t k = 0; k < count; ++k) {
      if (tensors[k].tensor == t) return &tensors[k];
    }
    return nullptr;
  }
  /// Adds the tensor t observed in [lo, hi] and quantized with q.
  constexpr void add(calibration_tensor t, double lo, double hi, quantization q) noexcept {
    if (count == capacity) return;
    const auto steps = [&q](double v) {
      const double r = v / q.scale;
      return detail::round_half_away(r < -1e9 ? -1e9 : (r > 1e9 ? 1e9 : r)) + q.zero_point;
    };
    const std::int64_t qlo = steps(lo), qhi = steps(hi);
    const std::int64_t clo = qlo < -128 ? -128 : qlo, chi = qhi > 127 ? 127 : qhi;
    tensors[count++] = {t,
                        lo,
                        hi,
                        q.scale,
                        q.zero_point,
                        static_cast<double>(chi - clo) / 255.0,
                        (qlo < -128 ? 1U : 0U) + (qhi > 127 ? 1U : 0U)};
  }
  /// Appends another report's tensors (an inner attention's), renamed by rename.
  template <class Rename>
  constexpr void append(const calibration_report& other, Rename rename) noexcept {
    for (std::size_t k = 0; k < other.count && count < capacity; ++k) {
      tensors[count] = other.tensors[k];
      tensors[count++].tensor = rename(other.tensors[k].tensor);
    }
  }
};

/// How much of the int8 range a weight tensor uses, to make outliers visible: with symmetric
/// quantization the largest |weight| sets the scale, so one outlier pushes the others towards 0.
/// `zeroed` counts nonzero weights that quantize to 0 (their information is lost), `mean_abs_q`
/// is the mean |q| (127 at most; weights spread evenly over their range give about 64).
struct weight_use {
  std::size_t elements = 0, zeroed = 0;
  double mean_abs_q = 0;
  friend constexpr bool operator==(const weight_use&, const weight_use&) = default;
};

/// calibrate's option for per-channel weights (TFLite's default for fully-connected weights):
/// each output channel of W_q, W_k, W_v (and W_o) gets its own symmetric scale max|w| / 127 over
/// that channel, so one large channel does not flatten the others.
struct per_channel_weights_t {
  explicit constexpr per_channel_weights_t() = default;
};
inline constexpr per_channel_weights_t per_channel_weights{};

/// The option of calibrate(xs, linear) and calibrate(xs, encoder_layer) for one symmetric scale
/// per weight tensor (those calibrate per channel by default, as the TFLite converter does).
struct per_tensor_weights_t {
  explicit constexpr per_tensor_weights_t() = default;
};
inline constexpr per_tensor_weights_t per_tensor_weights{};

/// A calibrated int8 module (q8::linear_module, q8::encoder_layer): `module` is what runs,
/// `input` quantizes its input and `output` reads its result back. `status` as in calibration:
/// if not ok, `tensor`, `item`, `row`, `col` name the refused tensor and element, and `module`
/// is all zeros and must not be used.
template <class Module>
struct module_calibration {
  Module module{};
  quantization input{}, output{};
  calibration_status status = calibration_status::ok;
  calibration_tensor tensor = calibration_tensor::none;
  std::size_t item = 0, row = 0, col = 0;
  calibration_report report{};  // every quantized tensor's range, scale, use of int8 and clipping
  constexpr bool ok() const noexcept { return status == calibration_status::ok; }
};

namespace detail {
template <class Layer>
constexpr std::size_t out_width_of() noexcept {
  if constexpr (requires { Layer::d_out; }) {
    return Layer::d_out;
  } else {
    return 1;
  }
}
}  // namespace detail

/// A calibrated int8 layer and the quantization of every tensor around it: `layer` is what runs
/// (attention_heads or attention_layer); `input` quantizes x, `output` reads the result back
/// (for attention_heads it equals `context`); the rest document the intermediate tensors.
/// `status` says whether calibration succeeded; if not, `tensor` names the refused tensor and
/// `item`, `row`, `col` its element (item: the index in xs; weights in the float API's in x out
/// layout), and `layer` is all zeros. `wq_use` ... `wo_use` report each weight tensor's int8 use.
template <class Layer>
struct calibration {
  Layer layer;
  quantization input{}, query{}, key{}, value{}, scores{}, context{}, output{};
  quantization memory{};                // the keys' and values' input: the memory of a cross-attention, else `input`
  quantization wq{}, wk{}, wv{}, wo{};  // wo is {1, 0} when the layer has no output projection
  static constexpr quantization softmax_output = softmax_output_quantization;
  calibration_status status = calibration_status::ok;
  calibration_tensor tensor = calibration_tensor::none;
  std::size_t item = 0, row = 0, col = 0;
  weight_use wq_use, wk_use, wv_use, wo_use;
  /// Each output channel's weight scale (all equal to wq.scale ... in a per-tensor calibration;
  /// with per_channel_weights, wq ... wo hold the largest, the per-tensor scale).
  matrix<double, 1, Layer::heads * Layer::d_k> wq_scales{}, wk_scales{};
  matrix<double, 1, Layer::heads * Layer::d_v> wv_scales{};
  matrix<double, 1, detail::out_width_of<Layer>()> wo_scales{};
  calibration_report report{};  // every quantized tensor's range, scale, use of int8 and clipping
  constexpr bool ok() const noexcept { return status == calibration_status::ok; }
};

namespace detail {

// The named error of a NaN or infinite entry in a tensor calibrate reads (deliberately not
// constexpr: a constant expression that reaches it stops, and the compiler quotes its name with
// the tensor). clang's notes show the element too: in call to 'element_must_be_finite<...>(value,
// item, row, col)'.
template <calibration_tensor T>
inline void calibrate_refuses_nan_or_infinity_in() noexcept {}
template <calibration_tensor T>
inline void calibrate_refuses_zero_width_range_of() noexcept {}  // all zero, or one constant
template <calibration_tensor T>
inline void calibrate_refuses_range_dominated_by_one_value_of() noexcept {}  // CXMAT_Q8_CALIBRATION_DOMINANCE

template <calibration_tensor T>
constexpr bool element_must_be_finite(double v, std::size_t item, std::size_t row, std::size_t col) noexcept {
  if (v >= std::numeric_limits<double>::lowest() && v <= std::numeric_limits<double>::max()) return true;
  static_cast<void>(item), static_cast<void>(row), static_cast<void>(col);
  cxmat::detail::refuse_in_constant_evaluation<calibrate_refuses_nan_or_infinity_in<T>>();
  return false;
}

// Where calibration failed, if it did (the first failure kept).
struct refusal {
  calibration_status status = calibration_status::ok;
  calibration_tensor tensor = calibration_tensor::none;
  std::size_t item = 0, row = 0, col = 0;
  constexpr void set(calibration_status s, calibration_tensor t, std::size_t i, std::size_t r, std::size_t c) noexcept {
    if (status == calibration_status::ok) status = s, tensor = t, item = i, row = r, col = c;
  }
};

// The comparison inline and the named error's function only for a bad element: the constant
// evaluator's operation count is spent on every element of every input.
template <calibration_tensor T, class M>
constexpr void check_finite(const M& m, std::size_t item, calibration_status s, refusal& r) noexcept {
  constexpr double lowest = std::numeric_limits<double>::lowest(), max = std::numeric_limits<double>::max();
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (!(m.elems[i][j] >= lowest && m.elems[i][j] <= max) &&
          !element_must_be_finite<T>(static_cast<double>(m.elems[i][j]), item, i, j)) {
        r.set(s, T, item, i, j);
      }
    }
  }
}

template <class Layer>
constexpr calibration<Layer> refused(const refusal& r) noexcept {
  calibration<Layer> c{};
  c.status = r.status, c.tensor = r.tensor, c.item = r.item, c.row = r.row, c.col = r.col;
  return c;
}

// Whether the largest magnitude first dominates the second largest, second (calibration_dominance).
constexpr bool dominates(double first, double second) noexcept {
  return second > 0 && first > calibration_dominance * second;
}

struct range {
  double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
  double first = 0, second = 0;  // the two largest magnitudes |v| (a repeated value fills both)
  // A NaN sticks in lo (v != v), so a range that met one is refused below; few statements per
  // value for the constant evaluator's step count.
  constexpr void add(double v) noexcept {
    const double a = v < 0 ? -v : v;
    second = a > first ? first : (a > second ? a : second);
    first = a > first ? a : first;
    lo = v < lo || v != v ? v : lo;
    hi = v > hi ? v : hi;
  }
  constexpr bool finite() const noexcept {
    return lo > hi || (lo >= std::numeric_limits<double>::lowest() && hi <= std::numeric_limits<double>::max());
  }
  // ok, or why the range cannot be calibrated (a range that saw no value, as a pre-norm layer's
  // unused sums, is ok: nothing is quantized with it).
  constexpr calibration_status status() const noexcept {
    if (!finite()) return calibration_status::non_finite_range;
    if (lo == hi) return calibration_status::zero_width_range;
    if (dominates(first, second)) return calibration_status::dominated_range;
    return calibration_status::ok;
  }
  constexpr quantization asymmetric() const noexcept {
    return lo > hi ? quantization{1.0, 0} : choose_quantization(lo, hi);
  }
};

// A computed or input tensor's range checked (range::status): a zero-width or dominated range
// stops a constant expression with its named error, naming T; at run time it is the refusal.
template <calibration_tensor T>
constexpr void check_range(const range& r, refusal& bad) noexcept {
  const calibration_status s = r.status();
  if (s == calibration_status::ok) return;
  if (s == calibration_status::zero_width_range) {
    cxmat::detail::refuse_in_constant_evaluation<calibrate_refuses_zero_width_range_of<T>>();
  } else if (s == calibration_status::dominated_range) {
    cxmat::detail::refuse_in_constant_evaluation<calibrate_refuses_range_dominated_by_one_value_of<T>>();
  }
  bad.set(s, T, 0, 0, 0);
}

// A weight tensor checked for domination by one value (calibration_dominance); all-zero weights
// quantize exactly and are kept.
template <calibration_tensor T, class M>
constexpr void check_weight(const M& w, refusal& bad) noexcept {
  double first = 0, second = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const double a = w.elems[i][j] < 0 ? -static_cast<double>(w.elems[i][j]) : static_cast<double>(w.elems[i][j]);
      second = a > first ? first : (a > second ? a : second);
      first = a > first ? a : first;
    }
  }
  if (!dominates(first, second)) return;
  cxmat::detail::refuse_in_constant_evaluation<calibrate_refuses_range_dominated_by_one_value_of<T>>();
  bad.set(calibration_status::dominated_range, T, 0, 0, 0);
}

// The observed range [min, max] of a weight tensor, for the report.
template <class M>
constexpr range weight_range(const M& w) noexcept {
  range r{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      r.lo = w.elems[i][j] < r.lo ? static_cast<double>(w.elems[i][j]) : r.lo;
      r.hi = w.elems[i][j] > r.hi ? static_cast<double>(w.elems[i][j]) : r.hi;
    }
  }
  return r;
}

template <class M>
constexpr quantization symmetric_of(const M& w) noexcept {
  double m = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const double a = w(i, j) < 0 ? -static_cast<double>(w(i, j)) : static_cast<double>(w(i, j));
      m = a > m ? a : m;
    }
  }
  return choose_symmetric_quantization(m);
}

// Weights W (in x out, the float API's layout) quantized into TFLite's [out, in] layout.
template <std::size_t Out, std::size_t In, class M>
constexpr matrix<std::int8_t, Out, In> quantize_transposed(const M& w, quantization q) noexcept {
  matrix<double, Out, In> t{};
  for (std::size_t i = 0; i < In; ++i) {
    for (std::size_t j = 0; j < Out; ++j) t.elems[j][i] = w(i, j);
  }
  return quantize(t, q);
}

// Each output channel's symmetric scale of W (in x out): column j's max|w| / 127 per channel, or
// the tensor's scale for every channel.
template <class M, class S>
constexpr void channel_scales(const M& w, quantization tensor, bool per_channel, S& scales) noexcept {
  for (std::size_t j = 0; j < M::cols; ++j) {
    double m = 0;
    for (std::size_t i = 0; per_channel && i < M::rows; ++i) {
      const double a = w(i, j) < 0 ? -static_cast<double>(w(i, j)) : static_cast<double>(w(i, j));
      m = a > m ? a : m;
    }
    scales.elems[0][j] = per_channel ? choose_symmetric_quantization(m).scale : tensor.scale;
  }
}

// W (in x out) into TFLite's [out, in] layout, output channel j with scales(0, j) (per tensor:
// every scale the same, quantize_transposed's single pass).
template <std::size_t Out, std::size_t In, bool PerChannel, class M, class S>
constexpr matrix<std::int8_t, Out, In> quantize_channels(const M& w, const S& scales) noexcept {
  if constexpr (!PerChannel) return quantize_transposed<Out, In>(w, quantization{scales.elems[0][0], 0});
  matrix<std::int8_t, Out, In> out{};
  for (std::size_t j = 0; j < Out; ++j) {
    matrix<double, 1, In> row{};
    for (std::size_t i = 0; i < In; ++i) row.elems[0][i] = w(i, j);
    const auto q = quantize(row, quantization{scales.elems[0][j], 0});
    for (std::size_t i = 0; i < In; ++i) out.elems[j][i] = q.elems[0][i];
  }
  return out;
}

// The int8 use of quantized weights q (out x in) of W (in x out).
template <class Q, class M>
constexpr weight_use use_of(const Q& q, const M& w) noexcept {
  weight_use u{Q::rows * Q::cols, 0, 0.0};
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < Q::rows; ++i) {
    for (std::size_t j = 0; j < Q::cols; ++j) {
      const std::int32_t v = q.elems[i][j];
      sum += v < 0 ? -v : v;
      u.zeroed += v == 0 && w.elems[j][i] != 0 ? 1U : 0U;
    }
  }
  u.mean_abs_q = static_cast<double>(sum) / static_cast<double>(u.elements);
  return u;
}

constexpr matmul_params product_params(quantization lhs, quantization rhs, quantization out,
                                       double extra = 1.0) noexcept {
  return {-lhs.zero_point, -rhs.zero_point, out.zero_point,
          quantize_multiplier(lhs.scale * rhs.scale * extra / out.scale)};
}

template <class O>
inline constexpr bool is_projection_bias_any = false;
template <projection P, class T, extent W>
inline constexpr bool is_projection_bias_any<projection_bias<P, T, W>> = true;

// Projection biases take no part in masking.
template <projection P, class T, extent W>
constexpr bool allows(const projection_bias<P, T, W>& /*o*/, std::size_t /*i*/, std::size_t /*j*/, std::size_t /*l*/,
                      std::size_t /*s*/) noexcept {
  return true;
}

// Per-channel weights are an option that masks nothing.
constexpr bool allows(per_channel_weights_t /*o*/, std::size_t /*i*/, std::size_t /*j*/, std::size_t /*l*/,
                      std::size_t /*s*/) noexcept {
  return true;
}

// The float layer on one input, reporting every intermediate to the ranges (masked scores are
// left out: the int8 layer never quantizes them): queries from x (N rows), keys and values from
// kv (S rows; x itself for self-attention, Cross false). The projections in i-t-j order on the
// raw arrays: one statement per multiply-add, the cheapest for the constant evaluator, and each
// element still sums over t in increasing order, as matmul does; the biases after the products,
// as the float API adds them (X·W + b; none when none is given). Self-attention projects all
// three in one pass over x (a separate pass for K and V costs g++'s evaluator enough operations
// to push the largest layers of constexpr_reach.py over its limit), cross-attention Q over x and
// K, V over the memory.
template <std::size_t H, std::size_t N, std::size_t S, std::size_t DM, std::size_t QW, std::size_t VW, bool Cross,
          class X, class KV, class WQ, class WK, class WV, class B, class... O>
constexpr void observe(const X& x, const KV& kv, const WQ& wq, const WK& wk, const WV& wv, const B& bias, range* r,
                       double* ctx, const O&... opts) noexcept {
  constexpr std::size_t dk = QW / H, dv = VW / H;
  double q[N][QW]{}, k[S][QW]{}, v[S][VW]{};
  if constexpr (Cross) {
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t t = 0; t < DM; ++t) {
        const double xit = x.elems[i][t];
        for (std::size_t j = 0; j < QW; ++j) q[i][j] += xit * wq.elems[t][j];
      }
      for (std::size_t j = 0; j < QW; ++j) r[0].add(q[i][j] += B::any ? bias.q[j] : 0.0);
    }
    for (std::size_t i = 0; i < S; ++i) {
      for (std::size_t t = 0; t < DM; ++t) {
        const double mit = kv.elems[i][t];
        for (std::size_t j = 0; j < QW; ++j) k[i][j] += mit * wk.elems[t][j];
        for (std::size_t j = 0; j < VW; ++j) v[i][j] += mit * wv.elems[t][j];
      }
      for (std::size_t j = 0; j < QW; ++j) r[1].add(k[i][j] += B::any ? bias.k[j] : 0.0);
      for (std::size_t j = 0; j < VW; ++j) r[2].add(v[i][j] += B::any ? bias.v[j] : 0.0);
    }
  } else {
    for (std::size_t i = 0; i < N; ++i) {
      for (std::size_t t = 0; t < DM; ++t) {
        const double xit = x.elems[i][t];
        for (std::size_t j = 0; j < QW; ++j) q[i][j] += xit * wq.elems[t][j];
        for (std::size_t j = 0; j < QW; ++j) k[i][j] += xit * wk.elems[t][j];
        for (std::size_t j = 0; j < VW; ++j) v[i][j] += xit * wv.elems[t][j];
      }
      if constexpr (B::any) {
        for (std::size_t j = 0; j < QW; ++j) r[0].add(q[i][j] += bias.q[j]), r[1].add(k[i][j] += bias.k[j]);
        for (std::size_t j = 0; j < VW; ++j) r[2].add(v[i][j] += bias.v[j]);
      } else {
        for (std::size_t j = 0; j < QW; ++j) r[0].add(q[i][j]), r[1].add(k[i][j]);
        for (std::size_t j = 0; j < VW; ++j) r[2].add(v[i][j]);
      }
    }
  }
  const double root = cxmat::sqrt(static_cast<double>(dk));
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < N; ++i) {
      double s[S]{};
      bool keep[S]{};
      double max = std::numeric_limits<double>::lowest();
      for (std::size_t j = 0; j < S; ++j) {
        keep[j] = (true && ... && allows(opts, i, j, N, S));
        for (std::size_t t = 0; t < dk; ++t) s[j] += q[i][h * dk + t] * k[j][h * dk + t];
        s[j] /= root;
        if (keep[j]) {
          r[3].add(s[j]);
          max = s[j] > max ? s[j] : max;
        }
      }
      double sum = 0;
      for (std::size_t j = 0; j < S; ++j) {
        s[j] = keep[j] ? cxmat::exp(s[j] - max) : 0.0;
        sum += s[j];
      }
      for (std::size_t c = 0; c < dv; ++c) {
        double acc = 0;
        for (std::size_t j = 0; j < S; ++j) acc += s[j] * v[j][h * dv + c];
        acc = sum > 0 ? acc / sum : 0.0;
        ctx[i * VW + h * dv + c] = acc;
        r[4].add(acc);
      }
    }
  }
}

// The float biases of the four projections (zero where none is given), in double.
template <std::size_t QW, std::size_t VW, std::size_t DO, bool Any>
struct float_biases {
  static constexpr bool any = Any;  // whether any bias was given (else the float run adds none)
  double q[QW]{}, k[QW]{}, v[VW]{}, o[DO]{};
};
template <projection P, std::size_t W, class O>
constexpr void take_bias(double (&/*b*/)[W], const O& /*option*/) noexcept {}
template <projection P, std::size_t W, class U, extent BW>
constexpr void take_bias(double (&b)[W], const projection_bias<P, U, BW>& o) noexcept {
  for (std::size_t j = 0; j < W; ++j) b[j] = o.values.elems[0][j];
}
template <calibration_tensor T, projection P, class O>
constexpr void check_bias(const O& /*option*/, refusal& /*r*/) noexcept {}
template <calibration_tensor T, projection P, class U, extent BW>
constexpr void check_bias(const projection_bias<P, U, BW>& o, refusal& r) noexcept {
  check_finite<T>(o.values, 0, calibration_status::non_finite_weight, r);
}

// An int32 bias row, channel j of scale input_scale · weight_scales(0, j) (TFLite: zero point 0).
// b / s is computed first, then quantize_bias with scale 1 (x / 1 is exact): one rounding rule.
template <std::size_t W, class S>
constexpr matrix<std::int32_t, 1, W> quantized_bias(const double (&b)[W], double input_scale,
                                                    const S& weight_scales) noexcept {
  matrix<double, 1, W> m{};
  for (std::size_t j = 0; j < W; ++j) m.elems[0][j] = b[j] / (input_scale * weight_scales.elems[0][j]);
  return quantize_bias(m, 1.0);
}

template <class... O>
inline constexpr bool wants_per_channel = (std::is_same_v<std::remove_cvref_t<O>, per_channel_weights_t> || ...);

template <class WO>
constexpr std::size_t out_width() noexcept {
  if constexpr (std::is_same_v<WO, std::nullptr_t>) {
    return 1;
  } else {
    return WO::cols;
  }
}

// Item b of the keys' and values' input: the memories of a cross-attention, or xs itself.
template <class XS, class MS>
constexpr const auto& keys_input(const XS& xs, const MS& ms, std::size_t b) noexcept {
  if constexpr (std::is_same_v<MS, std::nullptr_t>) {
    return xs.items[b];
  } else {
    return ms.items[b];
  }
}

// The whole calibration, with or without the output projection (Wo a matrix, or nullptr_t), of
// self-attention (MS nullptr_t) or of cross-attention from xs to the memories ms (B x S x DM).
template <class Layer, std::size_t H, class XS, class MS, class WQ, class WK, class WV, class WO, class... O>
constexpr calibration<Layer> calibrate_layer(const XS& xs, const MS& ms, const WQ& wq, const WK& wk, const WV& wv,
                                             const WO& wo, const O&... opts) noexcept {
  constexpr bool has_wo = !std::is_same_v<WO, std::nullptr_t>, cross = !std::is_same_v<MS, std::nullptr_t>;
  constexpr std::size_t n = XS::rows, dm = XS::cols, qw = WQ::cols, vw = WV::cols;
  constexpr std::size_t s = [] {
    if constexpr (cross) {
      return MS::rows;
    } else {
      return XS::rows;
    }
  }();
  // Refused tensors first: nothing below may meet a NaN or an infinity it did not compute.
  refusal bad{};
  for (std::size_t b = 0; b < XS::count; ++b) {
    check_finite<calibration_tensor::input>(xs[b], b, calibration_status::non_finite_input, bad);
  }
  if constexpr (cross) {
    for (std::size_t b = 0; b < XS::count; ++b) {
      check_finite<calibration_tensor::memory>(ms[b], b, calibration_status::non_finite_input, bad);
    }
  }
  check_finite<calibration_tensor::wq>(wq, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::wk>(wk, 0, calibration_status::non_finite_weight, bad);
  check_finite<calibration_tensor::wv>(wv, 0, calibration_status::non_finite_weight, bad);
  if constexpr (has_wo) check_finite<calibration_tensor::wo>(wo, 0, calibration_status::non_finite_weight, bad);
  (check_bias<calibration_tensor::bq, projection::query>(opts, bad), ...);
  (check_bias<calibration_tensor::bk, projection::key>(opts, bad), ...);
  (check_bias<calibration_tensor::bv, projection::value>(opts, bad), ...);
  (check_bias<calibration_tensor::bo, projection::output>(opts, bad), ...);
  if (bad.status != calibration_status::ok) return refused<Layer>(bad);
  check_weight<calibration_tensor::wq>(wq, bad);
  check_weight<calibration_tensor::wk>(wk, bad);
  check_weight<calibration_tensor::wv>(wv, bad);
  if constexpr (has_wo) check_weight<calibration_tensor::wo>(wo, bad);
  if (bad.status != calibration_status::ok) return refused<Layer>(bad);
  constexpr std::size_t dout = has_wo ? out_width<WO>() : 1;
  float_biases<qw, vw, dout, (is_projection_bias_any<O> || ...)> fb{};
  (take_bias<projection::query>(fb.q, opts), ...);
  (take_bias<projection::key>(fb.k, opts), ...);
  (take_bias<projection::value>(fb.v, opts), ...);
  (take_bias<projection::output>(fb.o, opts), ...);

  range r[5]{}, rx{}, ry{}, rm{};
  double ctx[n * vw]{};
  for (std::size_t b = 0; b < XS::count; ++b) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < dm; ++j) rx.add(xs(b, i, j));
    }
    if constexpr (cross) {
      for (std::size_t i = 0; i < s; ++i) {
        for (std::size_t j = 0; j < dm; ++j) rm.add(ms(b, i, j));
      }
    }
    observe<H, n, s, dm, qw, vw, cross>(xs.items[b], keys_input(xs, ms, b), wq, wk, wv, fb, r, ctx, opts...);
    if constexpr (has_wo) {
      for (std::size_t i = 0; i < n; ++i) {
        double y[WO::cols]{};
        for (std::size_t t = 0; t < vw; ++t) {
          const double cit = ctx[i * vw + t];
          for (std::size_t j = 0; j < WO::cols; ++j) y[j] += cit * wo.elems[t][j];
        }
        for (std::size_t j = 0; j < WO::cols; ++j) ry.add(y[j] + fb.o[j]);
      }
    }
  }
  // The ranges in calibration order: the inputs, then the computed tensors.
  check_range<calibration_tensor::input>(rx, bad);
  if constexpr (cross) check_range<calibration_tensor::memory>(rm, bad);
  check_range<calibration_tensor::query>(r[0], bad);
  check_range<calibration_tensor::key>(r[1], bad);
  check_range<calibration_tensor::value>(r[2], bad);
  check_range<calibration_tensor::scores>(r[3], bad);
  check_range<calibration_tensor::context>(r[4], bad);
  if constexpr (has_wo) check_range<calibration_tensor::output>(ry, bad);
  if (bad.status != calibration_status::ok) return refused<Layer>(bad);

  calibration<Layer> c{};
  c.input = rx.asymmetric();
  c.memory = cross ? rm.asymmetric() : c.input;
  c.query = r[0].asymmetric(), c.key = r[1].asymmetric(), c.value = r[2].asymmetric();
  c.scores = r[3].asymmetric(), c.context = r[4].asymmetric();
  c.wq = symmetric_of(wq), c.wk = symmetric_of(wk), c.wv = symmetric_of(wv);
  constexpr bool pc = Layer::per_channel;
  channel_scales(wq, c.wq, pc, c.wq_scales), channel_scales(wk, c.wk, pc, c.wk_scales);
  channel_scales(wv, c.wv, pc, c.wv_scales);
  auto& l = static_cast<attention_heads<dm, H, qw / H, vw / H, pc>&>(c.layer);
  l.wq = quantize_channels<qw, dm, pc>(wq, c.wq_scales);
  l.wk = quantize_channels<qw, dm, pc>(wk, c.wk_scales);
  l.wv = quantize_channels<vw, dm, pc>(wv, c.wv_scales);
  l.bq = quantized_bias(fb.q, c.input.scale, c.wq_scales);
  l.bk = quantized_bias(fb.k, c.memory.scale, c.wk_scales);
  l.bv = quantized_bias(fb.v, c.memory.scale, c.wv_scales);
  l.query = product_params(c.input, c.wq, c.query);
  l.key = product_params(c.memory, c.wk, c.key);
  l.value = product_params(c.memory, c.wv, c.value);
  if constexpr (pc) {
    for (std::size_t j = 0; j < qw; ++j) {
      l.channels.query[j] = product_params(c.input, {c.wq_scales.elems[0][j], 0}, c.query).output;
      l.channels.key[j] = product_params(c.memory, {c.wk_scales.elems[0][j], 0}, c.key).output;
    }
    for (std::size_t j = 0; j < vw; ++j) {
      l.channels.value[j] = product_params(c.memory, {c.wv_scales.elems[0][j], 0}, c.value).output;
    }
  }
  constexpr std::size_t head_width = qw / H;  // d_k of one head
  l.scores = product_params(c.query, c.key, c.scores, 1.0 / cxmat::sqrt(static_cast<double>(head_width)));
  l.softmax = make_softmax_params(c.scores.scale);
  l.context = product_params(softmax_output_quantization, c.value, c.context);
  c.wq_use = use_of(l.wq, wq), c.wk_use = use_of(l.wk, wk), c.wv_use = use_of(l.wv, wv);
  if constexpr (has_wo) {
    c.wo = symmetric_of(wo);
    c.output = ry.asymmetric();
    channel_scales(wo, c.wo, pc, c.wo_scales);
    c.layer.wo = quantize_channels<WO::cols, vw, pc>(wo, c.wo_scales);
    c.layer.bo = quantized_bias(fb.o, c.context.scale, c.wo_scales);
    c.layer.output = product_params(c.context, c.wo, c.output);
    if constexpr (pc) {
      for (std::size_t j = 0; j < WO::cols; ++j) {
        c.layer.output_channels.values[j] = product_params(c.context, {c.wo_scales.elems[0][j], 0}, c.output).output;
      }
    }
    c.wo_use = use_of(c.layer.wo, wo);
  } else {
    c.output = c.context, c.wo = {1.0, 0};
    c.wo_scales.elems[0][0] = 1.0;
  }
  c.report.add(calibration_tensor::input, rx.lo, rx.hi, c.input);
  if constexpr (cross) c.report.add(calibration_tensor::memory, rm.lo, rm.hi, c.memory);
  const range wr[3] = {weight_range(wq), weight_range(wk), weight_range(wv)};
  c.report.add(calibration_tensor::wq, wr[0].lo, wr[0].hi, c.wq);
  c.report.add(calibration_tensor::wk, wr[1].lo, wr[1].hi, c.wk);
  c.report.add(calibration_tensor::wv, wr[2].lo, wr[2].hi, c.wv);
  c.report.add(calibration_tensor::query, r[0].lo, r[0].hi, c.query);
  c.report.add(calibration_tensor::key, r[1].lo, r[1].hi, c.key);
  c.report.add(calibration_tensor::value, r[2].lo, r[2].hi, c.value);
  c.report.add(calibration_tensor::scores, r[3].lo, r[3].hi, c.scores);
  c.report.add(calibration_tensor::context, r[4].lo, r[4].hi, c.context);
  if constexpr (has_wo) {
    const range wor = weight_range(wo);
    c.report.add(calibration_tensor::wo, wor.lo, wor.hi, c.wo);
    c.report.add(calibration_tensor::output, ry.lo, ry.hi, c.output);
  }
  return c;
}

}  // namespace detail

/// calibrate<H>(xs, Wq, Wk, Wv[, Wo]): the weights' widths must fit xs's d_model and one another,
/// as multi_head_attention<H> requires (one rule set with the float API).
template <std::size_t H, auto DM, auto DMq, auto QW, auto DMk, auto KW, auto DMv, auto VW>
concept CalibrationShapesFit = ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> &&
    ProjectionFitsInput<DM, DMv> && QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H>;

/// calibrate's options: masks that fit the n x n scores (n x s for cross-attention), and at most one float or double
/// bias per projection (query_bias, key_bias, value_bias; output_bias only with Wo), each as wide as its projection, as
/// the float API takes them (PyTorch's in_proj_bias and out_proj.bias).
template <projection P, auto W, auto QW, auto VW, auto DO>
constexpr bool bias_fits_projection() noexcept {
  if constexpr (P == projection::value) {
    return compatible_extents<W, VW>;
  } else if constexpr (P == projection::output) {
    return compatible_extents<W, DO>;
  } else {
    return compatible_extents<W, QW>;
  }
}
template <class O, auto N, auto S, auto QW, auto VW, auto DO, bool HasWo>
inline constexpr bool calibration_option_fits = QuantizedScoreMaskFits<O, N, S>;
template <auto N, auto S, auto QW, auto VW, auto DO, bool HasWo>
inline constexpr bool calibration_option_fits<per_channel_weights_t, N, S, QW, VW, DO, HasWo> = true;
template <auto N, auto S, auto QW, auto VW, auto DO, bool HasWo, projection P, class U, extent W>
inline constexpr bool calibration_option_fits<projection_bias<P, U, W>, N, S, QW, VW, DO, HasWo> =
    (std::same_as<U, float> || std::same_as<U, double>)&&(P != projection::output || HasWo) &&
    bias_fits_projection<P, W, QW, VW, DO>();
template <auto N, auto QW, auto VW, auto DO, bool HasWo, class... O>
concept CalibrationOptionsFit =
    (calibration_option_fits<std::remove_cvref_t<O>, N, N, QW, VW, DO, HasWo> && ...) && OptionsAreConsistent<O...>;
/// The same for cross-attention's n x s scores.
template <auto N, auto S, auto QW, auto VW, auto DO, class... O>
concept CrossCalibrationOptionsFit =
    (calibration_option_fits<std::remove_cvref_t<O>, N, S, QW, VW, DO, true> && ...) && OptionsAreConsistent<O...>;

/// calibrate's inputs and weights: float or double (each tensor its own).
template <class T>
concept CalibrationElement = std::same_as<T, float> || std::same_as<T, double>;

/// Calibrates H-head self-attention without output projection (the float API's
/// multi_head_attention<H>(x, Wq, Wk, Wv, masks...)) on the B representative inputs xs (B x n x
/// d_model): min/max of every tensor over the set, asymmetric int8 activations, symmetric int8
/// weights, int32 biases (scale input scale · weight scale, zero point 0; zero where none is
/// given), and every multiplier from those scales (1/√d_k folded into the scores' multiplier).
/// Options: masks, which shape the score ranges (pass the same ones to the int8 layer), and the
/// float API's query_bias, key_bias, value_bias (and output_bias with Wo), which the int8 layer
/// holds in its bq, bk, bv (bo).
/// Inputs and weights are float or double (computed in double). A NaN or infinite entry in xs or
/// a weight is a named error in a constant expression (calibrate_refuses_nan_or_infinity_in<the
/// tensor>) and at run time the result's status (non_finite_input / non_finite_weight, with the
/// tensor and element); products that leave double's range give non_finite_range. An input or
/// computed tensor whose calibration values are all one value (all zero, constant) is refused as
/// zero_width_range, and a tensor, weights included, whose largest magnitude is more than
/// CXMAT_Q8_CALIBRATION_DOMINANCE times the next largest as dominated_range: named errors in a
/// constant expression (calibrate_refuses_zero_width_range_of<the tensor>,
/// calibrate_refuses_range_dominated_by_one_value_of<the tensor>), the status and tensor at run
/// time. The result's `report` lists every quantized tensor (tensor_report).
template <std::size_t H, class TX, extent B, extent N, extent DM, class TW, extent DMq, extent QW, extent DMk,
          extent KW, extent DMv, extent VW, class... O>
requires CalibrationElement<TX> && CalibrationElement<TW> && CalibrationShapesFit<H, DM, DMq, QW, DMk, KW, DMv, VW> &&
    CalibrationOptionsFit < N,
    QW, VW, extent<anonymous> {
  1
}
, false,
    O... > constexpr calibration<attention_heads<DM.size, H, QW.size / H, VW.size / H, detail::wants_per_channel<O...>>>
           calibrate(const batch<TX, B, N, DM>& xs, const matrix<TW, DMq, QW>& wq, const matrix<TW, DMk, KW>& wk,
                     const matrix<TW, DMv, VW>& wv, const O&... opts) noexcept {
  return detail::calibrate_layer<attention_heads<DM.size, H, QW.size / H, VW.size / H, detail::wants_per_channel<O...>>,
                                 H>(xs, nullptr, wq, wk, wv, nullptr, opts...);
}

/// As above with the output projection Wo ((H·d_v) x d_out): the result's `layer` is an
/// attention_layer and `output` the quantization of its n x d_out result.
template <std::size_t H, class TX, extent B, extent N, extent DM, class TW, extent DMq, extent QW, extent DMk,
          extent KW, extent DMv, extent VW, extent VWo, extent DO, class... O>
requires CalibrationElement<TX> && CalibrationElement<TW> && CalibrationShapesFit<H, DM, DMq, QW, DMk, KW, DMv, VW> &&
    OutputProjectionFitsHeads<VW, VWo> && CalibrationOptionsFit<N, QW, VW, DO, true, O...>
constexpr calibration<attention_layer<DM.size, H, QW.size / H, VW.size / H, DO.size, detail::wants_per_channel<O...>>>
calibrate(const batch<TX, B, N, DM>& xs, const matrix<TW, DMq, QW>& wq, const matrix<TW, DMk, KW>& wk,
          const matrix<TW, DMv, VW>& wv, const matrix<TW, VWo, DO>& wo, const O&... opts) noexcept {
  return detail::calibrate_layer<
      attention_layer<DM.size, H, QW.size / H, VW.size / H, DO.size, detail::wants_per_channel<O...>>, H>(
      xs, nullptr, wq, wk, wv, wo, opts...);
}

/// Calibrates H-head cross-attention with output projection (the float API's
/// cross_attention<H>(x, memory, Wq, Wk, Wv, Wo, options...), a decoder's multihead_attn) on B
/// representative pairs: queries' inputs xs (B x n x d_model) and memories (B x s x d_model, item
/// b with xs's item b), as above, the memories with their own quantization (`memory`: K and V are
/// projected from it, bk and bv scaled by it; quantize the int8 layer's memory with it). The
/// result's `layer` runs as q8::cross_attention(x8, memory8, layer, masks...). Options: masks
/// fitting the n x s scores, the four biases, per_channel_weights. A NaN or an infinity in the
/// memories is refused as `calibration_tensor::memory`.
template <std::size_t H, class TX, extent B, extent N, extent DM, class TM, extent BM, extent S, extent DMm, class TW,
          extent DMq, extent QW, extent DMk, extent KW, extent DMv, extent VW, extent VWo, extent DO, class... O>
requires CalibrationElement<TX> && CalibrationElement<TM> && CalibrationElement<TW> && BatchSizesMatch<B, BM> &&
    MemoryFitsLayer<DMm, DM.size> && CalibrationShapesFit<H, DM, DMq, QW, DMk, KW, DMv, VW> &&
    OutputProjectionFitsHeads<VW, VWo> && CrossCalibrationOptionsFit<N, S, QW, VW, DO, O...>
constexpr calibration<attention_layer<DM.size, H, QW.size / H, VW.size / H, DO.size, detail::wants_per_channel<O...>>>
calibrate(const batch<TX, B, N, DM>& xs, const batch<TM, BM, S, DMm>& memories, const matrix<TW, DMq, QW>& wq,
          const matrix<TW, DMk, KW>& wk, const matrix<TW, DMv, VW>& wv, const matrix<TW, VWo, DO>& wo,
          const O&... opts) noexcept {
  return detail::calibrate_layer<
      attention_layer<DM.size, H, QW.size / H, VW.size / H, DO.size, detail::wants_per_channel<O...>>, H>(
      xs, memories, wq, wk, wv, wo, opts...);
}

}  // namespace cxmat::q8
