// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Quantized multi-head self-attention: the int8 layer a TFLite / TFLite Micro graph of
// FULLY_CONNECTED, BATCH_MATMUL and SOFTMAX ops computes (or CMSIS-NN's arm_fully_connected_s8,
// arm_batch_matmul_s8 and arm_softmax_s8), bit for bit, with the float API's masks.
//
// Per head h and query row i, with every tensor int8 and per-tensor quantized:
//   Q = X·Wqᵀ + bq, K = X·Wkᵀ + bk, V = X·Wvᵀ + bv          (FULLY_CONNECTED, weights [out, in])
//   s_i = Q_i,h · K_hᵀ, scaled by 1/√d_k inside its multiplier (BATCH_MATMUL)
//   p_i = softmax(s_i), masked keys excluded                   (SOFTMAX, scale 1/256, zero point -128)
//   C_i,h = p_i · V_h                                         (BATCH_MATMUL)
//   Y = C·Woᵀ + bo                                            (FULLY_CONNECTED; attention_layer only)
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/workspace.hpp>
#include <cxmat/quantized/matmul.hpp>
#include <cxmat/quantized/softmax.hpp>

namespace cxmat::q8 {

/// Per-channel requantization of the projections (TFLite's per-channel int8 weights, one scale
/// per output channel): one requantizer per output column of Q, K and V. Per-tensor layers hold
/// the empty version, which takes no storage.
template <bool PerChannel, std::size_t QW, std::size_t VW>
struct projection_channels {
  static constexpr std::nullptr_t q() noexcept { return nullptr; }
  static constexpr std::nullptr_t k() noexcept { return nullptr; }
  static constexpr std::nullptr_t v() noexcept { return nullptr; }
};
template <std::size_t QW, std::size_t VW>
struct projection_channels<true, QW, VW> {
  requantizer query[QW]{}, key[QW]{}, value[VW]{};
  constexpr const requantizer* q() const noexcept { return query; }
  constexpr const requantizer* k() const noexcept { return key; }
  constexpr const requantizer* v() const noexcept { return value; }
};
/// The same for the output projection (attention_layer).
template <bool PerChannel, std::size_t W>
using output_projection_channels = channel_requantizers<PerChannel, W>;

/// The memory of one int8 attention call over S keys and values (S = n for self-attention): the
/// keys K (S x QW, QW = H·d_k) and values V (S x VW, VW = H·d_v) it computes before the first
/// query row, and, where the DSP extension is used, V transposed (so that P·V's products read
/// rows). Everything else the call keeps is one row each of Q, scores and C. A call without a
/// workspace declares one on its stack; passing one (a static object: .bss, its size known when
/// linking) keeps the stack to the rows and the frames. Its size, sizeof, is scratch_bytes. What
/// it held before a call does not matter, and a call leaves nothing in it that a later one reads.
template <std::size_t S, std::size_t QW, std::size_t VW>
struct attention_workspace {
  std::int8_t k[S][QW], v[S][VW];
#if CXMAT_DETAIL_DSP
  std::int8_t vt[VW][S];
#endif
};

/// The workspace type of an int8 module for a call on N rows (core/workspace.hpp):
/// attention_heads, attention_layer and encoder_layer take one size (self-attention: N keys;
/// cross_attention: N memory rows), decoder_layer two (N queries, S memory rows); scratch_bytes is
/// its size.
using cxmat::scratch_bytes;
using cxmat::workspace_for;

/// The int8 parameters of H attention heads over inputs of width DModel, d_k = DK, d_v = DV, no
/// output projection. Weights are stored [out, in] like TFLite FULLY_CONNECTED weights (so wq is
/// Wqᵀ, (H·DK) x DModel; head h owns rows h·DK .. h·DK + DK - 1); biases are int32 with scale
/// input_scale · weight_scale. Only integers: nothing here needs floating point at run time.
/// PerChannel: the projection weights have one scale per output channel (TFLite's default for
/// fully-connected weights), and `channels` holds each channel's requantizer, used instead of
/// query.output, key.output and value.output.
template <std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PerChannel = false>
struct attention_heads {
  static constexpr std::size_t d_model = DModel, heads = H, d_k = DK, d_v = DV;
  static constexpr bool per_channel = PerChannel;
  matrix<std::int8_t, H * DK, DModel> wq, wk;
  matrix<std::int8_t, H * DV, DModel> wv;
  matrix<std::int32_t, 1, H * DK> bq, bk;
  matrix<std::int32_t, 1, H * DV> bv;
  /// The projections (lhs: X, rhs: weights), Q_h·K_hᵀ (lhs: Q, rhs: K; its multiplier holds
  /// 1/√d_k), and P_h·V_h (lhs: the softmax output, so lhs_offset = 128; rhs: V).
  matmul_params query, key, value, scores;
  softmax_params softmax{};
  matmul_params context;
  [[no_unique_address]] projection_channels<PerChannel, H * DK, H * DV> channels;
  /// The memory a call over S keys and values works in (attention_workspace).
  template <std::size_t S>
  using workspace = attention_workspace<S, H * DK, H * DV>;
};

/// attention_heads followed by the output projection: wo is Woᵀ, DOut x (H·DV), bo its int32 bias
/// (per channel: output_channels holds W_o's per-channel requantizers).
template <std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DOut, bool PerChannel = false>
struct attention_layer : attention_heads<DModel, H, DK, DV, PerChannel> {
  static constexpr std::size_t d_out = DOut;
  matrix<std::int8_t, DOut, H * DV> wo;
  matrix<std::int32_t, 1, DOut> bo;
  matmul_params output;
  [[no_unique_address]] output_projection_channels<PerChannel, DOut> output_channels;
};

/// q8::multi_head_attention(x, layer): x's width is the layer's d_model.
template <auto XCols, std::size_t DModel>
concept InputFitsLayer = XCols.size == DModel;

/// q8::cross_attention(x, memory, layer): the memory's width is the layer's d_model too.
template <auto MCols, std::size_t DModel>
concept MemoryFitsLayer = MCols.size == DModel;

/// An option the int8 attention takes: a mask (mask, key_padding, causal, causal_lower_right)
/// that fits its L x S scores (L queries, S keys). Score biases, scales and projection biases
/// belong to the float API.
template <class O, auto L, auto S>
concept QuantizedScoreMaskFits = AttentionOption<O> && cxmat::detail::option_traits<std::remove_cvref_t<O>>::is_mask &&
    OptionFitsScores<O, std::int8_t, L, S>;

/// The same for self-attention's N x N scores.
template <class O, auto N>
concept QuantizedMaskFits = QuantizedScoreMaskFits<O, N, N>;

namespace shape_error {
template <class XCols, std::size_t DModel>
struct q8_attention_x_cols_must_equal_layer_d_model;  // x is n x d_model of the layer it runs through
template <class MemoryCols, std::size_t DModel>
struct q8_cross_attention_memory_cols_must_equal_layer_d_model;  // memory is s x d_model, as x is n x d_model
template <class Rows, class Cols>
struct q8_input_must_be_int8_not_uint8;  // uint8 q, zero point z: pass int8 q - 128 with zero point z - 128
}  // namespace shape_error

namespace detail {

// Whether query i may see key j of L x S scores (L queries, S keys); the float API's mask
// semantics (causal: attention/options.hpp's causal_alignment).
template <extent ML, extent MS>
constexpr bool allows(const attention_mask<ML, MS>& o, std::size_t i, std::size_t j, std::size_t /*l*/,
                      std::size_t /*s*/) noexcept {
  return o.allowed.elems[i][j];
}
template <extent MS>
constexpr bool allows(const key_padding_mask<MS>& o, std::size_t /*i*/, std::size_t j, std::size_t /*l*/,
                      std::size_t /*s*/) noexcept {
  return o.keep.elems[0][j];
}
template <causal_alignment A>
constexpr bool allows(const causal_mask<A>& /*o*/, std::size_t i, std::size_t j, std::size_t l,
                      std::size_t s) noexcept {
  // upper left: j <= i; lower right: j <= i + (S - L), i.e. j + L <= i + S (no key for the first
  // L - S queries when L > S). With L = S both are the same triangle.
  return A == causal_alignment::upper_left ? j <= i : j + l <= i + s;
}

// The heads, row by row, queries from x (N rows) and keys and values from kv (S rows; kv = x
// for self-attention): for each query row i, the concatenated heads' row C_i (1 x H·DV) is
// handed to emit(i, C_i). The projections quantize as the layer says: Q with `query` (x's
// quantization), K and V with `key` and `value` (kv's). The only temporaries are K, V and one
// row each of Q, scores, mask and C, so neither Q, the scores, the probabilities nor C is ever
// stored whole. probs, when not null, receives every head's probabilities (H x N x S).
template <std::size_t N, std::size_t S, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC,
          class Emit, class Probs, class... O>
constexpr void heads_by_row(const std::int8_t (*x)[DModel], const std::int8_t (*kv)[DModel],
                            const attention_heads<DModel, H, DK, DV, PC>& l, attention_workspace<S, H * DK, H * DV>& ws,
                            Emit emit, Probs* probs, const O&... opts) noexcept {
  constexpr std::size_t qw = H * DK, vw = H * DV;
  std::int8_t(&k)[S][qw] = ws.k;
  std::int8_t(&v)[S][vw] = ws.v;
  matmul_transposed_kernel(rows_of<DModel>{kv, 0}, rows_of<DModel>{l.wk.elems, 0}, S, qw, DModel, l.bk.elems[0], l.key,
                           k, 0, l.channels.k());
  matmul_transposed_kernel(rows_of<DModel>{kv, 0}, rows_of<DModel>{l.wv.elems, 0}, S, vw, DModel, l.bv.elems[0],
                           l.value, v, 0, l.channels.v());
#if CXMAT_DETAIL_DSP
  // With the DSP extension, V transposed once so that P·V's products are rows too, which the
  // product kernel's switch gives the dual multiply-accumulate at run time (in constant evaluation
  // the same sums by its loops; the copy costs S·H·d_v steps there).
  std::int8_t(&vt)[vw][S] = ws.vt;
  for (std::size_t j = 0; j < S; ++j) {
    for (std::size_t t = 0; t < vw; ++t) vt[t][j] = v[j][t];
  }
#endif
  const softmax_params sm = checked_softmax_params(l.softmax);
  for (std::size_t i = 0; i < N; ++i) {
    std::int8_t q[1][qw], p[1][S], c[1][vw];
    bool keep[S];
    for (std::size_t j = 0; j < S; ++j) keep[j] = (true && ... && allows(opts, i, j, N, S));
    matmul_transposed_kernel(rows_of<DModel>{x + i, 0}, rows_of<DModel>{l.wq.elems, 0}, 1, qw, DModel, l.bq.elems[0],
                             l.query, q, 0, l.channels.q());
    for (std::size_t h = 0; h < H; ++h) {
      matmul_transposed_kernel(rows_of<qw>{q, h * DK}, rows_of<qw>{k, h * DK}, 1, S, DK, nullptr, l.scores, p, 0);
      softmax_row<S>(p[0], p[0], sizeof...(O) == 0 ? nullptr : keep, sm);
      if constexpr (!std::is_same_v<Probs, std::nullptr_t>) {
        for (std::size_t j = 0; j < S; ++j) probs->items[h].elems[i][j] = p[0][j];
      }
      // C_i(h·DV + j) = Σ_t p(t)·V(t, h·DV + j): V read down its columns, or along the rows of
      // its transpose with the DSP extension.
#if CXMAT_DETAIL_DSP
      matmul_transposed_kernel(rows_of<S>{p, 0}, rows_of<S>{vt + h * DV, 0}, 1, DV, S, nullptr, l.context, c, h * DV);
#else
      matmul_transposed_kernel(rows_of<S>{p, 0}, columns_of<vw>{v, h * DV}, 1, DV, S, nullptr, l.context, c, h * DV);
#endif
    }
    emit(i, c);
  }
}

// heads_by_row's emit for a layer with W_o: Y_i = C_i·Woᵀ + bo into out's row i as soon as C_i is
// known.
template <std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DOut, bool PC>
constexpr auto output_projection(const attention_layer<DModel, H, DK, DV, DOut, PC>& layer,
                                 std::int8_t (*out)[DOut]) noexcept {
  return [&layer, out](std::size_t i, const std::int8_t(*c)[H * DV]) {
    matmul_transposed_kernel(rows_of<H * DV>{c, 0}, rows_of<H * DV>{layer.wo.elems, 0}, 1, DOut, H * DV,
                             layer.bo.elems[0], layer.output, out + i, 0, layer.output_channels.get());
  };
}

}  // namespace detail

/// Int8 multi-head self-attention without output projection: x is n x d_model (quantized with
/// the layer's input quantization), the result n x (H·d_v), the heads side by side (quantized with
/// the context quantization). Options: masks as in the float API (mask, key_padding, causal);
/// masked keys get probability exactly 0, a fully masked query row gives the zero point (real 0).
/// K and V are computed into ws (the caller's memory, heads' workspace<n>).
template <extent N, extent DM, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC, class... O>
requires InputFitsLayer<DM, DModel> &&
    (QuantizedMaskFits<O, N>&&...) constexpr matrix<std::int8_t, N, H * DV> multi_head_attention(
        const matrix<std::int8_t, N, DM>& x, const attention_heads<DModel, H, DK, DV, PC>& heads,
        attention_workspace<N.size, H * DK, H * DV>& ws, const O&... opts) noexcept {
  static_assert(N.size <= max_softmax_row && DModel <= max_matmul_depth && N.size <= max_matmul_depth,
                "q8::multi_head_attention: n or d_model too large for the int8 kernels");
  matrix<std::int8_t, N, H * DV> ctx;
  detail::heads_by_row<N.size, N.size>(
      x.elems, x.elems, heads, ws,
      [&ctx](std::size_t i, const std::int8_t(*c)[H * DV]) {
        for (std::size_t j = 0; j < H * DV; ++j) ctx.elems[i][j] = c[0][j];
      },
      static_cast<std::nullptr_t*>(nullptr), opts...);
  return ctx;
}
/// The same with K and V on the stack.
template <extent N, extent DM, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC, class... O>
requires InputFitsLayer<DM, DModel> &&
    (QuantizedMaskFits<O, N>&&...) constexpr matrix<std::int8_t, N, H * DV> multi_head_attention(
        const matrix<std::int8_t, N, DM>& x, const attention_heads<DModel, H, DK, DV, PC>& heads,
        const O&... opts) noexcept {
  attention_workspace<N.size, H * DK, H * DV> ws;
  return multi_head_attention(x, heads, ws, opts...);
}

namespace detail {
// Self-attention with output projection into out (N rows of DOut), K and V in ws.
template <std::size_t N, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DOut, bool PC,
          class... O>
constexpr void self_attention_rows(const std::int8_t (*x)[DModel],
                                   const attention_layer<DModel, H, DK, DV, DOut, PC>& layer,
                                   attention_workspace<N, H * DK, H * DV>& ws, std::int8_t (*out)[DOut],
                                   const O&... opts) noexcept {
  static_assert(N <= max_softmax_row && DModel <= max_matmul_depth && H * DV <= max_matmul_depth,
                "q8::multi_head_attention: n or d_model too large for the int8 kernels");
  // Y_i = C_i·Woᵀ + bo as soon as C_i is known.
  heads_by_row<N, N>(x, x, static_cast<const attention_heads<DModel, H, DK, DV, PC>&>(layer), ws,
                     output_projection(layer, out), static_cast<std::nullptr_t*>(nullptr), opts...);
}

// Cross-attention with output projection into out (L rows of DOut), K and V of the S memory rows in ws.
template <std::size_t L, std::size_t S, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV,
          std::size_t DOut, bool PC, class... O>
constexpr void cross_attention_rows(const std::int8_t (*x)[DModel], const std::int8_t (*memory)[DModel],
                                    const attention_layer<DModel, H, DK, DV, DOut, PC>& layer,
                                    attention_workspace<S, H * DK, H * DV>& ws, std::int8_t (*out)[DOut],
                                    const O&... opts) noexcept {
  static_assert(
      S <= max_softmax_row && DModel <= max_matmul_depth && H * DV <= max_matmul_depth && S <= max_matmul_depth,
      "q8::cross_attention: s or d_model too large for the int8 kernels");
  heads_by_row<L, S>(x, memory, static_cast<const attention_heads<DModel, H, DK, DV, PC>&>(layer), ws,
                     output_projection(layer, out), static_cast<std::nullptr_t*>(nullptr), opts...);
}
}  // namespace detail

/// Int8 multi-head self-attention with output projection: x is n x d_model, the result n x d_out
/// (quantized with the layer's output quantization). Options as above. K and V are computed
/// into ws (the caller's memory, layer's workspace<n>).
template <extent N, extent DM, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DOut,
          bool PC, class... O>
requires InputFitsLayer<DM, DModel> &&
    (QuantizedMaskFits<O, N>&&...) constexpr matrix<std::int8_t, N, DOut> multi_head_attention(
        const matrix<std::int8_t, N, DM>& x, const attention_layer<DModel, H, DK, DV, DOut, PC>& layer,
        attention_workspace<N.size, H * DK, H * DV>& ws, const O&... opts) noexcept {
  matrix<std::int8_t, N, DOut> out;
  detail::self_attention_rows<N.size>(x.elems, layer, ws, out.elems, opts...);
  return out;
}
/// The same with K and V on the stack.
template <extent N, extent DM, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, std::size_t DOut,
          bool PC, class... O>
requires InputFitsLayer<DM, DModel> &&
    (QuantizedMaskFits<O, N>&&...) constexpr matrix<std::int8_t, N, DOut> multi_head_attention(
        const matrix<std::int8_t, N, DM>& x, const attention_layer<DModel, H, DK, DV, DOut, PC>& layer,
        const O&... opts) noexcept {
  attention_workspace<N.size, H * DK, H * DV> ws;
  return multi_head_attention(x, layer, ws, opts...);
}

/// Int8 multi-head cross-attention with output projection (nn.MultiheadAttention(x, memory,
/// memory), the decoder's multihead_attn): queries from x (n x d_model, the layer's input
/// quantization), keys and values from memory (s x d_model, quantized with the layer's own memory
/// quantization: its `key` and `value` products hold that zero point and scale), the result
/// n x d_out (the output quantization). Options: masks fitting the n x s scores (mask,
/// key_padding over the memory, causal, causal_lower_right), as in the float cross_attention.
/// K and V are computed into ws (the caller's memory, layer's workspace<s>).
template <extent L, extent DM, extent S, extent DMm, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV,
          std::size_t DOut, bool PC, class... O>
requires InputFitsLayer<DM, DModel> && MemoryFitsLayer<DMm, DModel> &&
    (QuantizedScoreMaskFits<O, L, S>&&...) constexpr matrix<std::int8_t, L, DOut> cross_attention(
        const matrix<std::int8_t, L, DM>& x, const matrix<std::int8_t, S, DMm>& memory,
        const attention_layer<DModel, H, DK, DV, DOut, PC>& layer, attention_workspace<S.size, H * DK, H * DV>& ws,
        const O&... opts) noexcept {
  matrix<std::int8_t, L, DOut> out;
  detail::cross_attention_rows<L.size, S.size>(x.elems, memory.elems, layer, ws, out.elems, opts...);
  return out;
}
/// The same with K and V on the stack.
template <extent L, extent DM, extent S, extent DMm, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV,
          std::size_t DOut, bool PC, class... O>
requires InputFitsLayer<DM, DModel> && MemoryFitsLayer<DMm, DModel> &&
    (QuantizedScoreMaskFits<O, L, S>&&...) constexpr matrix<std::int8_t, L, DOut> cross_attention(
        const matrix<std::int8_t, L, DM>& x, const matrix<std::int8_t, S, DMm>& memory,
        const attention_layer<DModel, H, DK, DV, DOut, PC>& layer, const O&... opts) noexcept {
  attention_workspace<S.size, H * DK, H * DV> ws;
  return cross_attention(x, memory, layer, ws, opts...);
}

/// Shape error: q8::cross_attention(x, memory, layer) with x's or memory's width other than the
/// layer's d_model (x's reported first).
template <extent L, extent DM, extent S, extent DMm, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV,
          std::size_t DOut, bool PC, class... O>
requires(!(
    InputFitsLayer<DM, DModel> &&
    MemoryFitsLayer<
        DMm, DModel>)) decltype(cxmat::detail::
                                    first_failure<
                                        cxmat::detail::check<InputFitsLayer<DM, DModel>,
                                                             shape_error::q8_attention_x_cols_must_equal_layer_d_model<
                                                                 dim_of<DM>, DModel>>,
                                        cxmat::detail::check<
                                            MemoryFitsLayer<DMm, DModel>,
                                            shape_error::q8_cross_attention_memory_cols_must_equal_layer_d_model<
                                                dim_of<DMm>, DModel>>>::error())
    cross_attention(const matrix<std::int8_t, L, DM>& x, const matrix<std::int8_t, S, DMm>& memory,
                    const attention_layer<DModel, H, DK, DV, DOut, PC>& layer, const O&... opts) noexcept;

/// Every head's int8 attention probabilities, H x n x n (scale 1/256, zero point -128: real
/// weight = (p + 128) / 256), as the layer computes them; masked keys are -128 (weight 0). For
/// attention_heads or attention_layer (the output projection plays no part). Options as above.
template <extent N, extent DM, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC, class... O>
requires InputFitsLayer<DM, DModel> &&
    (QuantizedMaskFits<O, N>&&...) constexpr batch<std::int8_t, H, N, N> attention_probabilities(
        const matrix<std::int8_t, N, DM>& x, const attention_heads<DModel, H, DK, DV, PC>& heads,
        const O&... opts) noexcept {
  static_assert(N.size <= max_softmax_row && DModel <= max_matmul_depth && N.size <= max_matmul_depth,
                "q8::attention_probabilities: n or d_model too large for the int8 kernels");
  batch<std::int8_t, H, N, N> probs{};
  attention_workspace<N.size, H * DK, H * DV> ws;
  detail::heads_by_row<N.size, N.size>(
      x.elems, x.elems, heads, ws, [](std::size_t, const std::int8_t(*)[H * DV]) {}, &probs, opts...);
  return probs;
}

/// Shape error: q8::attention_probabilities(x, layer) with x's width other than the layer's d_model.
template <extent N, extent DM, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC, class... O>
requires(!InputFitsLayer<DM, DModel>)
    shape_error::q8_attention_x_cols_must_equal_layer_d_model<dim_of<DM>, DModel> attention_probabilities(
        const matrix<std::int8_t, N, DM>& x, const attention_heads<DModel, H, DK, DV, PC>& heads, const O&... opts)
noexcept;

/// Shape error: q8::multi_head_attention(x, layer) with x's width other than the layer's d_model.
template <extent N, extent DM, std::size_t DModel, std::size_t H, std::size_t DK, std::size_t DV, bool PC, class... O>
requires(!InputFitsLayer<DM, DModel>)
    shape_error::q8_attention_x_cols_must_equal_layer_d_model<dim_of<DM>, DModel> multi_head_attention(
        const matrix<std::int8_t, N, DM>& x, const attention_heads<DModel, H, DK, DV, PC>& heads, const O&... opts)
noexcept;

/// Error: q8::multi_head_attention(x, layer) with a uint8 x (TFLite's older asymmetric uint8
/// scheme). The int8 layer takes int8, as TFLite's int8 kernels do: a uint8 tensor q with zero
/// point z is the int8 tensor q - 128 with zero point z - 128 and the same scale.
template <extent N, extent DM, class Layer, class... O>
shape_error::q8_input_must_be_int8_not_uint8<dim_of<N>, dim_of<DM>> multi_head_attention(
    const matrix<std::uint8_t, N, DM>& x, const Layer& layer, const O&... opts) noexcept;

/// Error: q8::attention_probabilities(x, layer) with a uint8 x (see above).
template <extent N, extent DM, class Layer, class... O>
shape_error::q8_input_must_be_int8_not_uint8<dim_of<N>, dim_of<DM>> attention_probabilities(
    const matrix<std::uint8_t, N, DM>& x, const Layer& layer, const O&... opts) noexcept;

}  // namespace cxmat::q8

#include <cxmat/quantized/plain_errors.hpp>
