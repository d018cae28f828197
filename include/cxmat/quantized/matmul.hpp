// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// int8 matrix products with int32 accumulation and requantization: TFLite's int8
// FULLY_CONNECTED / BATCH_MATMUL reference kernels, CMSIS-NN's arm_fully_connected_s8 and
// arm_batch_matmul_s8 (one batch item), bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/kernels/runtime_dsp.hpp>
#include <cxmat/kernels/runtime_mve.hpp>
#include <cxmat/math/fp.hpp>
#include <cxmat/quantized/requantize.hpp>

namespace cxmat::q8 {

/// The parameters of an int8 product, CMSIS-NN's names (cmsis_nn_fc_params + per-tensor quant):
/// lhs_offset and rhs_offset are ADDED to the inputs (the negated zero points: TFLite's
/// input_offset = -input zero point, filter_offset = -filter zero point), output_offset is the
/// output zero point, output maps the int32 accumulator to the output scale (real multiplier
/// lhs_scale · rhs_scale / output_scale), and the result is clamped to [activation_min,
/// activation_max] (a fused ReLU narrows it).
struct matmul_params {
  std::int32_t lhs_offset = 0, rhs_offset = 0, output_offset = 0;
  requantizer output{};
  std::int32_t activation_min = -128, activation_max = 127;
  friend constexpr bool operator==(const matmul_params&, const matmul_params&) = default;
};

/// One requantizer per output channel of a product with per-channel weights (TFLite's per-channel
/// int8 weights, one scale per output channel), in `values`; `get()` is what the kernels take.
/// The per-tensor version is empty (no storage), and its `get()` is nullptr.
template <bool PerChannel, std::size_t W>
struct channel_requantizers {
  static constexpr std::nullptr_t get() noexcept { return nullptr; }
};
template <std::size_t W>
struct channel_requantizers<true, W> {
  requantizer values[W]{};
  constexpr const requantizer* get() const noexcept { return values; }
};

/// The largest depth K for which no int32 accumulator can overflow: |(a + offset)| <= 255 for
/// int8 a and an int8 zero point, so K · 255² < 2^31.
inline constexpr std::size_t max_matmul_depth = 33025;

/// matmul_transposed(a, bt): a.cols (K) must equal bt.cols (K), bt being the right operand stored
/// transposed (C x K, the layout of TFLite's FULLY_CONNECTED weights).
template <auto ACols, auto BtCols>
concept TransposedDepthsMatch = compatible_extents<ACols, BtCols>;

/// matmul_transposed(a, bt, bias): one bias per output column, a 1 x C row.
template <auto BtRows, auto BiasCols>
concept BiasFitsColumns = compatible_extents<BtRows, BiasCols>;

namespace shape_error {
template <class ACols, class BtCols>
struct matmul_transposed_a_cols_must_equal_bt_cols;  // a is R x K, bt is C x K (the right operand transposed)
template <class BtRows, class BiasCols>
struct matmul_transposed_bias_must_be_1_by_bt_rows;  // bias is 1 x C: one int32 per output column
}  // namespace shape_error

namespace detail {

// Views of int8 operands as rows x depth, over 2-D arrays (so that every access stays inside
// one row array, as constant evaluation requires): rows_of reads row r from column col0 on,
// columns_of reads the array down its columns (element (r, k) is p[k][col0 + r]), which is how
// P·V reads V without a transposed copy.
template <std::size_t Cols>
struct rows_of {
  const std::int8_t (*p)[Cols];
  std::size_t col0;
  constexpr const std::int8_t* row(std::size_t r) const noexcept { return p[r] + col0; }
};
template <std::size_t Cols>
struct columns_of {
  const std::int8_t (*p)[Cols];
  std::size_t col0;
};

// Σ_k (a(i,k) + lhs_offset)·(b(j,k) + rhs_offset). Four terms per statement: the constant
// evaluator counts steps per statement and loop iteration, so this is what lets larger layers
// evaluate within the default limits (integer sums are exact in any order: no overflow below
// max_matmul_depth).
template <std::size_t ACols, std::size_t BCols>
constexpr std::int32_t dot(const rows_of<ACols>& a, const rows_of<BCols>& b, std::size_t i, std::size_t j,
                           std::size_t depth, std::int32_t lo, std::int32_t ro) noexcept {
  const std::int8_t* pa = a.row(i);
  const std::int8_t* pb = b.row(j);
  std::int32_t acc = 0;
  std::size_t k = 0;
  for (; k + 4 <= depth; k += 4) {
    acc += (pa[k] + lo) * (pb[k] + ro) + (pa[k + 1] + lo) * (pb[k + 1] + ro) + (pa[k + 2] + lo) * (pb[k + 2] + ro) +
           (pa[k + 3] + lo) * (pb[k + 3] + ro);
  }
  for (; k < depth; ++k) acc += (pa[k] + lo) * (pb[k] + ro);
  return acc;
}
template <std::size_t ACols, std::size_t BCols>
constexpr std::int32_t dot(const rows_of<ACols>& a, const columns_of<BCols>& b, std::size_t i, std::size_t j,
                           std::size_t depth, std::int32_t lo, std::int32_t ro) noexcept {
  const std::int8_t* pa = a.row(i);
  const std::size_t c = b.col0 + j;
  std::int32_t acc = 0;
  for (std::size_t k = 0; k < depth; ++k) acc += (pa[k] + lo) * (b.p[k][c] + ro);
  return acc;
}

// v plus the output offset, clamped to [activation_min, activation_max].
constexpr std::int8_t product_output(std::int32_t v, const matmul_params& p) noexcept {
  v += p.output_offset;
  return static_cast<std::int8_t>(v < p.activation_min ? p.activation_min
                                                       : (v > p.activation_max ? p.activation_max : v));
}

#if CXMAT_DETAIL_MVE || CXMAT_DETAIL_DSP
// matmul_transposed_kernel's run-time path with the target's int8 kernels: one function for every
// shape (a microcontroller's flash), a's rows a_stride apart, b's b_stride, out's out_stride; bias
// and channels may be null. Output columns in groups, down all rows, so that each column's bias
// and requantizer are read, checked and split once; the same sums and the same requantization as
// the portable loop.
//  - Helium (MVE): four columns per pass (dot_s8x4_mve, a group of fewer reading its last column
//    again), the offsets applied after the sums: each column's term, its bias plus lo·Σb +
//    depth·lo·ro (one pass over the column), computed once for all rows, and each row adds its
//    Σab and ro·Σa; the four outputs requantized together (requantize_s32x4_mve) unless a
//    requantizer has a left shift.
//  - The DSP extension: two columns per pass (dot_s8x2_dsp; an odd last one alone), the offsets
//    added to the values before the multiplies.
[[gnu::noinline]] inline void matmul_transposed_run_time(const std::int8_t* a, std::size_t a_stride,
                                                         const std::int8_t* b, std::size_t b_stride, std::size_t rows,
                                                         std::size_t cols, std::size_t depth, const std::int32_t* bias,
                                                         const requantizer* channels, const matmul_params& p,
                                                         std::int8_t* out, std::size_t out_stride) noexcept {
  const split_requantizer whole = split(p.output);
#if CXMAT_DETAIL_MVE
  for (std::size_t j = 0; j < cols; j += 4, b += 4 * b_stride, out += 4) {
    const std::size_t w = cols - j < 4 ? cols - j : 4;
    // Lanes past w hold zeros (written here one by one: a zero-initialized array is a memset call).
    std::int32_t term[4], multiplier[4], neg_right[4];
    split_requantizer r[4];
    bool right_only = true;  // no left shift in the group: the four outputs requantized at once
    for (std::size_t t = 0; t < 4; ++t) {
      r[t] = t >= w ? split_requantizer{0, 0, 0} : (channels != nullptr ? split(channels[j + t]) : whole);
      term[t] = t >= w ? 0
                       : static_cast<std::int32_t>(cxmat::detail::offset_column(
                             b + t * b_stride, depth, p.lhs_offset, p.rhs_offset, bias != nullptr ? bias[j + t] : 0));
      multiplier[t] = r[t].multiplier, neg_right[t] = -r[t].right, right_only = right_only && r[t].left == 0;
    }
    const int32x4_t term4 = vld1q_s32(term), multiplier4 = vld1q_s32(multiplier), neg_right4 = vld1q_s32(neg_right);
    const mve_pred16_t lanes = vctp32q(static_cast<std::uint32_t>(w));
    const std::int8_t* ai = a;
    std::int8_t* oi = out;
    for (std::size_t i = 0; i < rows; ++i, ai += a_stride, oi += out_stride) {
      const cxmat::detail::dot4_sums s = cxmat::detail::dot_s8x4_mve(ai, b, b_stride, w, depth);
      // Σab + ro·Σa + the column's term, lane by lane (vector additions wrap, as offset_dot's do).
      const std::int32_t ab[4] = {s.s0, s.s1, s.s2, s.s3};
      const auto ro_sa =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(p.rhs_offset) * static_cast<std::uint32_t>(s.a));
      const int32x4_t acc = vaddq_s32(vaddq_s32(vld1q_s32(ab), vdupq_n_s32(ro_sa)), term4);
      if (right_only) {
        vstrbq_p_s32(oi,
                     cxmat::detail::requantize_s32x4_mve(acc, multiplier4, neg_right4, p.output_offset,
                                                         p.activation_min, p.activation_max),
                     lanes);
      } else {
        std::int32_t v[4];
        vst1q_s32(v, acc);
        for (std::size_t t = 0; t < w; ++t) oi[t] = product_output(requantize_by(v[t], r[t]), p);
      }
    }
  }
#else
  for (std::size_t j = 0; j < cols; j += 2) {
    const std::size_t w = cols - j < 2 ? cols - j : 2, j1 = w == 2 ? j + 1 : j;
    const std::int32_t bias2[2] = {bias != nullptr ? bias[j] : 0, bias != nullptr ? bias[j1] : 0};
    const split_requantizer r2[2] = {channels != nullptr ? split(channels[j]) : whole,
                                     channels != nullptr ? split(channels[j1]) : whole};
    const std::int8_t* ai = a;
    std::int8_t* oi = out + j;
    for (std::size_t i = 0; i < rows; ++i, ai += a_stride, oi += out_stride) {
      std::int32_t acc[2];
      if (w == 2) {
        cxmat::detail::dot_s8x2_dsp(ai, b + j * b_stride, b + (j + 1) * b_stride, depth, p.lhs_offset, p.rhs_offset,
                                    acc);
      } else {
        acc[0] = cxmat::detail::dot_s8_dsp(ai, b + j * b_stride, depth, p.lhs_offset, p.rhs_offset);
      }
      for (std::size_t t = 0; t < w; ++t) {
        oi[t] = product_output(requantize_by(acc[t] + bias2[t], r2[t]), p);
      }
    }
  }
#endif
}
#endif

// matmul_transposed_kernel's portable loops (and its constant-evaluation path).
template <class A, class B, std::size_t OutCols, class Bias, class Channels>
constexpr void matmul_transposed_loops(A a, B b, std::size_t rows, std::size_t cols, std::size_t depth, Bias bias,
                                       const matmul_params& p, std::int8_t (*out)[OutCols], std::size_t out_col0,
                                       Channels channels) noexcept {
  // requantize's multiplier and shift checked, and the shift split, once (a named error in a
  // constant expression when not valid; requantize's documented results at run time).
  const split_requantizer whole = split(p.output);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      // Few statements: the constant evaluator counts them for every output element.
      std::int32_t v = 0;
      if constexpr (std::is_same_v<Bias, std::nullptr_t> && std::is_same_v<Channels, std::nullptr_t>) {
        v = requantize_by(dot(a, b, i, j, depth, p.lhs_offset, p.rhs_offset), whole);
      } else if constexpr (std::is_same_v<Channels, std::nullptr_t>) {
        v = requantize_by(dot(a, b, i, j, depth, p.lhs_offset, p.rhs_offset) + bias[j], whole);
      } else if constexpr (std::is_same_v<Bias, std::nullptr_t>) {
        v = requantize(dot(a, b, i, j, depth, p.lhs_offset, p.rhs_offset), channels[j]);
      } else {
        v = requantize(dot(a, b, i, j, depth, p.lhs_offset, p.rhs_offset) + bias[j], channels[j]);
      }
      out[i][out_col0 + j] = product_output(v, p);
    }
  }
}

// out[i][out_col0 + j] = clamp(requantize(Σ_k (a(i,k) + lhs_offset)·(b(j,k) + rhs_offset) + bias[j])
// + output_offset), for i < rows, j < cols, k < depth. bias is an int32 row or nullptr (told
// apart by its type, not by comparing a pointer with null: g++ 12 cannot compare the address of
// a temporary's member with null in a constant expression). channels, when not nullptr, holds
// one requantizer per output column j (per-channel weights), used instead of p.output.
template <class A, class B, std::size_t OutCols, class Bias, class Channels = std::nullptr_t>
constexpr void matmul_transposed_kernel(A a, B b, std::size_t rows, std::size_t cols, std::size_t depth, Bias bias,
                                        const matmul_params& p, std::int8_t (*out)[OutCols], std::size_t out_col0,
                                        Channels channels = nullptr) noexcept {
#if CXMAT_DETAIL_MVE || CXMAT_DETAIL_DSP
  // The kernels' switch (cxmat::detail::run_time_form, by_evaluation's condition): Helium's
  // 16-lane multiply-accumulate, or else the DSP extension's dual one, at run time, the portable
  // loops in constant evaluation.
  if constexpr (std::is_same_v<A, rows_of<sizeof(*a.p)>> && std::is_same_v<B, rows_of<sizeof(*b.p)>>) {
    if (cxmat::detail::run_time_form<true>()) {
      return matmul_transposed_run_time(a.row(0), sizeof(*a.p), b.row(0), sizeof(*b.p), rows, cols, depth, bias,
                                        channels, p, out[0] + out_col0, OutCols);
    }
  }
#endif
  matmul_transposed_loops(a, b, rows, cols, depth, bias, p, out, out_col0, channels);
}

}  // namespace detail

/// The int8 product a·btᵀ: a is R x K, bt is C x K (the right operand stored transposed, as
/// FULLY_CONNECTED weights [out, in] and arm_batch_matmul_s8's rhs), the result R x C with
/// out(i, j) = clamp(requantize(Σ_k (a(i,k) + lhs_offset)·(bt(j,k) + rhs_offset)) + output_offset,
/// activation_min, activation_max). K <= max_matmul_depth.
template <extent R, extent K1, extent C, extent K2>
requires TransposedDepthsMatch<K1, K2>
constexpr matrix<std::int8_t, R, C> matmul_transposed(const matrix<std::int8_t, R, K1>& a,
                                                      const matrix<std::int8_t, C, K2>& bt,
                                                      const matmul_params& params) noexcept {
  static_assert(K1.size <= max_matmul_depth, "matmul_transposed(a, bt): K above max_matmul_depth may overflow int32");
  matrix<std::int8_t, R, C> out;
  detail::matmul_transposed_kernel(detail::rows_of<K1.size>{a.elems, 0}, detail::rows_of<K2.size>{bt.elems, 0}, R.size,
                                   C.size, K1.size, nullptr, params, out.elems, 0);
  return out;
}

/// Shape error: matmul_transposed(a, bt, params) with a.cols != bt.cols.
template <extent R, extent K1, extent C, extent K2>
requires(!TransposedDepthsMatch<K1, K2>)
    shape_error::matmul_transposed_a_cols_must_equal_bt_cols<dim_of<K1>, dim_of<K2>> matmul_transposed(
        const matrix<std::int8_t, R, K1>& a, const matrix<std::int8_t, C, K2>& bt, const matmul_params& params)
noexcept;

/// As above with an int32 bias (1 x C, scale lhs_scale · rhs_scale, zero point 0) added to the
/// accumulator before requantization: arm_fully_connected_s8 / TFLite's int8 FULLY_CONNECTED.
template <extent R, extent K1, extent C, extent K2, extent CB>
requires TransposedDepthsMatch<K1, K2> && BiasFitsColumns<C, CB>
constexpr matrix<std::int8_t, R, C> matmul_transposed(const matrix<std::int8_t, R, K1>& a,
                                                      const matrix<std::int8_t, C, K2>& bt,
                                                      const matrix<std::int32_t, 1, CB>& bias,
                                                      const matmul_params& params) noexcept {
  static_assert(K1.size <= max_matmul_depth,
                "matmul_transposed(a, bt, bias): K above max_matmul_depth may overflow int32");
  matrix<std::int8_t, R, C> out;
  detail::matmul_transposed_kernel(detail::rows_of<K1.size>{a.elems, 0}, detail::rows_of<K2.size>{bt.elems, 0}, R.size,
                                   C.size, K1.size, bias.elems[0], params, out.elems, 0);
  return out;
}

/// Shape error: matmul_transposed(a, bt, bias, params) with a.cols != bt.cols or a bias that is
/// not 1 x bt.rows; the first broken rule is reported.
template <extent R, extent K1, extent C, extent K2, extent CB>
requires(!(
    TransposedDepthsMatch<K1, K2> &&
    BiasFitsColumns<
        C, CB>)) decltype(cxmat::detail::
                              first_failure<
                                  cxmat::detail::check<
                                      TransposedDepthsMatch<K1, K2>,
                                      shape_error::matmul_transposed_a_cols_must_equal_bt_cols<dim_of<K1>, dim_of<K2>>>,
                                  cxmat::detail::check<BiasFitsColumns<C, CB>,
                                                       shape_error::matmul_transposed_bias_must_be_1_by_bt_rows<
                                                           dim_of<C>, dim_of<CB>>>>::error())
    matmul_transposed(const matrix<std::int8_t, R, K1>& a, const matrix<std::int8_t, C, K2>& bt,
                      const matrix<std::int32_t, 1, CB>& bias, const matmul_params& params) noexcept;

/// The batched product, arm_batch_matmul_s8 (and TFLite's int8 BATCH_MATMUL with adj_y) on B
/// items without broadcasting: item b of the result is matmul_transposed(a[b], bt[b], params).
/// a is B x R x K, bt is B x C x K, the result B x R x C.
template <extent B1, extent R, extent K1, extent B2, extent C, extent K2>
requires BatchSizesMatch<B1, B2> && TransposedDepthsMatch<K1, K2>
constexpr batch<std::int8_t, B1, R, C> matmul_transposed(const batch<std::int8_t, B1, R, K1>& a,
                                                         const batch<std::int8_t, B2, C, K2>& bt,
                                                         const matmul_params& params) noexcept {
  static_assert(K1.size <= max_matmul_depth, "matmul_transposed(a, bt): K above max_matmul_depth may overflow int32");
  batch<std::int8_t, B1, R, C> out;
  for (std::size_t b = 0; b < B1.size; ++b) {
    detail::matmul_transposed_kernel(detail::rows_of<K1.size>{a.items[b].elems, 0},
                                     detail::rows_of<K2.size>{bt.items[b].elems, 0}, R.size, C.size, K1.size, nullptr,
                                     params, out.items[b].elems, 0);
  }
  return out;
}

/// Shape error: the batched matmul_transposed with different batch sizes or depths; the first
/// broken rule is reported.
template <extent B1, extent R, extent K1, extent B2, extent C, extent K2>
requires(!(
    BatchSizesMatch<B1, B2> &&
    TransposedDepthsMatch<
        K1,
        K2>)) decltype(cxmat::detail::
                           first_failure<
                               cxmat::detail::check<BatchSizesMatch<B1, B2>,
                                                    cxmat::shape_error::batch_sizes_must_match<dim_of<B1>, dim_of<B2>>>,
                               cxmat::detail::check<TransposedDepthsMatch<K1, K2>,
                                                    shape_error::matmul_transposed_a_cols_must_equal_bt_cols<
                                                        dim_of<K1>, dim_of<K2>>>>::error())
    matmul_transposed(const batch<std::int8_t, B1, R, K1>& a, const batch<std::int8_t, B2, C, K2>& bt,
                      const matmul_params& params) noexcept;

}  // namespace cxmat::q8

#include <cxmat/quantized/plain_errors.hpp>
