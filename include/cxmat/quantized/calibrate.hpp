// Post-training calibration at compile time: from the float weights of a self-attention layer
// and a representative input set to the int8 layer, every scale, zero point, multiplier, shift
// and diff_min derived the way the TFLite converter does it (min/max calibration, asymmetric
// int8 activations, symmetric per-tensor int8 weights).
#pragma once

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

/// A calibrated int8 layer and the quantization of every tensor around it: `layer` is what runs
/// (attention_heads or attention_layer); `input` quantizes x, `output` reads the result back
/// (for attention_heads it equals `context`); the rest document the intermediate tensors.
template <class Layer>
struct calibration {
  Layer layer;
  quantization input, query, key, value, scores, context, output;
  quantization wq, wk, wv, wo;  // wo is {1, 0} when the layer has no output projection
  static constexpr quantization softmax_output = softmax_output_quantization;
};

namespace detail {

struct range {
  double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
  constexpr void add(double v) noexcept {
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  constexpr quantization asymmetric() const noexcept {
    return lo > hi ? quantization{1.0, 0} : choose_quantization(lo, hi);
  }
};

template <class M>
constexpr quantization symmetric_of(const M& w) noexcept {
  double m = 0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      const double a = w(i, j) < 0 ? -w(i, j) : w(i, j);
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

constexpr matmul_params product_params(quantization lhs, quantization rhs, quantization out,
                                       double extra = 1.0) noexcept {
  return {-lhs.zero_point, -rhs.zero_point, out.zero_point,
          quantize_multiplier(lhs.scale * rhs.scale * extra / out.scale)};
}

// The float layer on one input, reporting every intermediate to the ranges (masked scores are
// left out: the int8 layer never quantizes them).
template <std::size_t H, std::size_t N, std::size_t DM, std::size_t QW, std::size_t VW, class X, class WQ, class WK,
          class WV, class... O>
constexpr void observe(const X& x, const WQ& wq, const WK& wk, const WV& wv, range* r, double* ctx,
                       const O&... opts) noexcept {
  constexpr std::size_t dk = QW / H, dv = VW / H;
  double q[N][QW]{}, k[N][QW]{}, v[N][VW]{};
  // i-t-j order on the raw arrays: one statement per multiply-add, the cheapest for the constant
  // evaluator, and each element still sums over t in increasing order, as matmul does.
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t t = 0; t < DM; ++t) {
      const double xit = x.elems[i][t];
      for (std::size_t j = 0; j < QW; ++j) q[i][j] += xit * wq.elems[t][j];
      for (std::size_t j = 0; j < QW; ++j) k[i][j] += xit * wk.elems[t][j];
      for (std::size_t j = 0; j < VW; ++j) v[i][j] += xit * wv.elems[t][j];
    }
    for (std::size_t j = 0; j < QW; ++j) r[0].add(q[i][j]), r[1].add(k[i][j]);
    for (std::size_t j = 0; j < VW; ++j) r[2].add(v[i][j]);
  }
  const double root = cxmat::sqrt(static_cast<double>(dk));
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < N; ++i) {
      double s[N]{};
      bool keep[N]{};
      double max = std::numeric_limits<double>::lowest();
      for (std::size_t j = 0; j < N; ++j) {
        keep[j] = (true && ... && allows(opts, i, j));
        for (std::size_t t = 0; t < dk; ++t) s[j] += q[i][h * dk + t] * k[j][h * dk + t];
        s[j] /= root;
        if (keep[j]) {
          r[3].add(s[j]);
          max = s[j] > max ? s[j] : max;
        }
      }
      double sum = 0;
      for (std::size_t j = 0; j < N; ++j) {
        s[j] = keep[j] ? cxmat::exp(s[j] - max) : 0.0;
        sum += s[j];
      }
      for (std::size_t c = 0; c < dv; ++c) {
        double acc = 0;
        for (std::size_t j = 0; j < N; ++j) acc += s[j] * v[j][h * dv + c];
        acc = sum > 0 ? acc / sum : 0.0;
        ctx[i * VW + h * dv + c] = acc;
        r[4].add(acc);
      }
    }
  }
}

template <std::size_t H, std::size_t DM, std::size_t QW, std::size_t VW, class WQ, class WK, class WV>
constexpr attention_heads<DM, H, QW / H, VW / H> make_heads(const WQ& wq, const WK& wk, const WV& wv, quantization in,
                                                            const range* r, quantization* out) noexcept {
  const quantization sq = r[0].asymmetric(), sk = r[1].asymmetric(), sv = r[2].asymmetric(), ss = r[3].asymmetric(),
                     sc = r[4].asymmetric();
  const quantization wq_q = symmetric_of(wq), wk_q = symmetric_of(wk), wv_q = symmetric_of(wv);
  attention_heads<DM, H, QW / H, VW / H> l{};
  l.wq = quantize_transposed<QW, DM>(wq, wq_q);
  l.wk = quantize_transposed<QW, DM>(wk, wk_q);
  l.wv = quantize_transposed<VW, DM>(wv, wv_q);
  l.query = product_params(in, wq_q, sq);
  l.key = product_params(in, wk_q, sk);
  l.value = product_params(in, wv_q, sv);
  constexpr std::size_t head_width = QW / H;  // d_k of one head
  l.scores = product_params(sq, sk, ss, 1.0 / cxmat::sqrt(static_cast<double>(head_width)));
  l.softmax = make_softmax_params(ss.scale);
  l.context = product_params(softmax_output_quantization, sv, sc);
  out[0] = sq, out[1] = sk, out[2] = sv, out[3] = ss, out[4] = sc;
  out[5] = wq_q, out[6] = wk_q, out[7] = wv_q;
  return l;
}

}  // namespace detail

/// calibrate<H>(xs, Wq, Wk, Wv[, Wo]): the weights' widths must fit xs's d_model and one another,
/// as multi_head_attention<H> requires (one rule set with the float API).
template <std::size_t H, auto DM, auto DMq, auto QW, auto DMk, auto KW, auto DMv, auto VW>
concept CalibrationShapesFit = ProjectionFitsInput<DM, DMq> && ProjectionFitsInput<DM, DMk> &&
    ProjectionFitsInput<DM, DMv> && QueryKeyWidthsMatch<QW, KW> && HeadsDivideWidth<QW, H> && HeadsDivideWidth<VW, H>;

/// Calibrates H-head self-attention without output projection (the float API's
/// multi_head_attention<H>(x, Wq, Wk, Wv, masks...)) on the B representative inputs xs (B x n x
/// d_model): min/max of every tensor over the set, asymmetric int8 activations, symmetric int8
/// weights, zero biases, and every multiplier from those scales (1/√d_k folded into the scores'
/// multiplier). Masks passed here shape the score ranges; pass the same ones to the int8 layer.
template <std::size_t H, extent B, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, class... O>
requires CalibrationShapesFit<H, DM, DMq, QW, DMk, KW, DMv, VW> &&(QuantizedMaskFits<O, N>&&...) constexpr calibration<
    attention_heads<DM.size, H, QW.size / H, VW.size / H>> calibrate(const batch<double, B, N, DM>& xs,
                                                                     const matrix<double, DMq, QW>& wq,
                                                                     const matrix<double, DMk, KW>& wk,
                                                                     const matrix<double, DMv, VW>& wv,
                                                                     const O&... opts) noexcept {
  detail::range r[5]{}, rx{};
  double ctx[N.size * VW.size]{};
  for (std::size_t b = 0; b < B.size; ++b) {
    for (std::size_t i = 0; i < N.size; ++i) {
      for (std::size_t j = 0; j < DM.size; ++j) rx.add(xs(b, i, j));
    }
    detail::observe<H, N.size, DM.size, QW.size, VW.size>(xs[b], wq, wk, wv, r, ctx, opts...);
  }
  calibration<attention_heads<DM.size, H, QW.size / H, VW.size / H>> c{};
  c.input = rx.asymmetric();
  quantization q[8]{};
  c.layer = detail::make_heads<H, DM.size, QW.size, VW.size>(wq, wk, wv, c.input, r, q);
  c.query = q[0], c.key = q[1], c.value = q[2], c.scores = q[3], c.context = q[4], c.output = q[4];
  c.wq = q[5], c.wk = q[6], c.wv = q[7], c.wo = {1.0, 0};
  return c;
}

/// As above with the output projection Wo ((H·d_v) x d_out): the result's `layer` is an
/// attention_layer and `output` the quantization of its n x d_out result.
template <std::size_t H, extent B, extent N, extent DM, extent DMq, extent QW, extent DMk, extent KW, extent DMv,
          extent VW, extent VWo, extent DO, class... O>
requires CalibrationShapesFit<H, DM, DMq, QW, DMk, KW, DMv, VW> && OutputProjectionFitsHeads<VW, VWo> &&
    (QuantizedMaskFits<O, N>&&...) constexpr calibration<
        attention_layer<DM.size, H, QW.size / H, VW.size / H, DO.size>> calibrate(const batch<double, B, N, DM>& xs,
                                                                                  const matrix<double, DMq, QW>& wq,
                                                                                  const matrix<double, DMk, KW>& wk,
                                                                                  const matrix<double, DMv, VW>& wv,
                                                                                  const matrix<double, VWo, DO>& wo,
                                                                                  const O&... opts) noexcept {
  detail::range r[5]{}, rx{}, ry{};
  double ctx[N.size * VW.size]{};
  for (std::size_t b = 0; b < B.size; ++b) {
    for (std::size_t i = 0; i < N.size; ++i) {
      for (std::size_t j = 0; j < DM.size; ++j) rx.add(xs(b, i, j));
    }
    detail::observe<H, N.size, DM.size, QW.size, VW.size>(xs[b], wq, wk, wv, r, ctx, opts...);
    for (std::size_t i = 0; i < N.size; ++i) {
      double y[DO.size]{};
      for (std::size_t t = 0; t < VW.size; ++t) {
        const double cit = ctx[i * VW.size + t];
        for (std::size_t j = 0; j < DO.size; ++j) y[j] += cit * wo.elems[t][j];
      }
      for (std::size_t j = 0; j < DO.size; ++j) ry.add(y[j]);
    }
  }
  calibration<attention_layer<DM.size, H, QW.size / H, VW.size / H, DO.size>> c{};
  c.input = rx.asymmetric();
  quantization q[8]{};
  static_cast<attention_heads<DM.size, H, QW.size / H, VW.size / H>&>(c.layer) =
      detail::make_heads<H, DM.size, QW.size, VW.size>(wq, wk, wv, c.input, r, q);
  c.query = q[0], c.key = q[1], c.value = q[2], c.scores = q[3], c.context = q[4];
  c.wq = q[5], c.wk = q[6], c.wv = q[7];
  c.wo = detail::symmetric_of(wo);
  c.output = ry.asymmetric();
  c.layer.wo = detail::quantize_transposed<DO.size, VW.size>(wo, c.wo);
  c.layer.output = detail::product_params(c.context, c.wo, c.output);
  return c;
}

}  // namespace cxmat::q8
