// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Weights quantized to int8 in groups along the input (the Q8_0 scheme of llama.cpp and of
// llama2.c's int8 checkpoints and runq.c): each run of GroupSize weights of an output has its own
// float scale, and x·W is computed by quantizing each row of x the same way at run time, summing
// each group's int8 products exactly in int32, and adding the groups in float, each times the
// two scales. A quarter of the bytes of float weights, integer inner loops, float outside them.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/kernels/runtime_dsp.hpp>
#include <cxmat/kernels/runtime_mve.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat::q8 {

/// A d_in x d_out weight quantized in groups of GroupSize inputs. Stored out x in, as llama.cpp
/// and llama2.c store it (each output's weights contiguous): weight (k, o) is values(o, k) ·
/// scales(o, k / GroupSize). Where GroupSize does not divide d_in, the last group of each row is
/// the shorter rest (d_in mod GroupSize inputs): a model whose widths share no large divisor (the
/// 260K TinyStories model: 64 and 172) keeps large groups instead of falling to groups of 4.
/// llama.cpp's Q8_0 and llama2.c's files need GroupSize to divide every width; rows of such a
/// weight are the same either way.
template <extent In, extent Out, std::size_t GroupSize>
struct group_weights {
  static_assert(GroupSize > 0, "q8::group_weights<In, Out, GroupSize>: the group size must be positive");
  static constexpr std::size_t group_size = GroupSize;
  static constexpr std::size_t groups = (In.size + GroupSize - 1) / GroupSize;
  static constexpr auto in_extent = In;
  static constexpr auto out_extent = Out;

  matrix<std::int8_t, Out, In> values;
  matrix<float, Out, groups> scales;

  /// Weight (k, o) as a float: values(o, k) · scales(o, k / GroupSize).
  [[nodiscard]] constexpr float dequantized(std::size_t o, std::size_t k) const noexcept {
    return static_cast<float>(values.elems[o][k]) * scales.elems[o][k / GroupSize];
  }
};

namespace detail {

// round(r) for |r| <= 127.5, halves away from zero (C's roundf): r - trunc(r) is exact there.
constexpr std::int8_t round_to_int8(float r) noexcept {
  const auto t = static_cast<std::int32_t>(r);
  return static_cast<std::int8_t>(r - static_cast<float>(t) >= 0.5f ? t + 1
                                                                    : (r - static_cast<float>(t) <= -0.5f ? t - 1 : t));
}

// How many inputs group g of a row of `width` has: group_size, the last one the rest.
constexpr std::size_t group_length(std::size_t g, std::size_t group_size, std::size_t width) noexcept {
  return width - g * group_size < group_size ? width - g * group_size : group_size;
}

// Σ a[i]·b[i] over one group, exactly in int32 (n <= 2^16: |a·b| <= 2^14 each): at run time
// (the kernels' switch, run_time_form) Helium's 16-lane multiply-accumulate where the target has
// it (Cortex-M55), else the DSP extension's dual one (Cortex-M4/M7), the loop everywhere else;
// the same sum either way.
constexpr std::int32_t group_dot(const std::int8_t* a, const std::int8_t* b, std::size_t n) noexcept {
#if CXMAT_DETAIL_MVE
  if (cxmat::detail::run_time_form<true>()) return cxmat::detail::dot_s8_mve(a, b, n);
#elif CXMAT_DETAIL_DSP
  if (cxmat::detail::run_time_form<true>()) return cxmat::detail::dot_s8_dsp(a, b, n, 0, 0);
#endif
  std::int32_t dot = 0;
  for (std::size_t i = 0; i < n; ++i) dot += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
  return dot;
}

// The Q8_0 groups of every output of m into out (whatever it held): output o's inputs are m's
// column o (a weight, d_in x d_out: Columns) or m's row o (a table stored out x in, or rows of
// activations), each converted to float. Per group, scale = max |v| / 127 and q = round(v /
// scale); an all-zero group has scale 0 and values 0. Two passes over m itself, no copy of a
// group, few statements per value: the constant evaluator counts its operations per statement
// and loop turn, and a whole model (the 260K TinyStories size: 292 k weights, about 31 M of
// GCC's operations) must fit one constant expression under GCC's default limit (33.5 M).
template <bool Columns, class M, extent In, extent Out, std::size_t GroupSize>
constexpr void quantize_outputs(const M& m, group_weights<In, Out, GroupSize>& out) noexcept {
  for (std::size_t o = 0; o < Out.size; ++o) {
    for (std::size_t g = 0; g < out.groups; ++g) {
      const std::size_t begin = g * GroupSize, end = begin + group_length(g, GroupSize, In.size);
      float largest = 0.0f;
      for (std::size_t k = begin; k < end; ++k) {
        const float v = static_cast<float>(Columns ? m.elems[k][o] : m.elems[o][k]);
        if (v > largest || -v > largest) largest = v < 0.0f ? -v : v;
      }
      const float scale = out.scales.elems[o][g] = largest / 127.0f;
      if (scale == 0.0f) {  // an all-zero group: values 0
        for (std::size_t k = begin; k < end; ++k) out.values.elems[o][k] = 0;
        continue;
      }
      for (std::size_t k = begin; k < end; ++k) {
        out.values.elems[o][k] = round_to_int8(static_cast<float>(Columns ? m.elems[k][o] : m.elems[o][k]) / scale);
      }
    }
  }
}

}  // namespace detail

/// The group quantization of w (d_in x d_out, the library's orientation, float or double; each
/// element converted to float first), as llama2.c's export quantizes: per output and group,
/// scale = max |w| / 127 and q = round(w / scale). Usable in constant expressions, so a float
/// model becomes an int8 one in the compiler.
template <std::size_t GroupSize, class T, extent In, extent Out>
requires(GroupSize >
         0) constexpr group_weights<In, Out, GroupSize> quantize_groups(const matrix<T, In, Out>& w) noexcept {
  group_weights<In, Out, GroupSize> out{};
  detail::quantize_outputs<true>(w, out);
  return out;
}

/// The same quantization of a table stored out x in already (an embedding: vocab x d_model, each
/// token's row one output), as the token table of llama2.c's int8 checkpoints.
template <std::size_t GroupSize, class T, extent Rows, extent Cols>
requires(GroupSize > 0) constexpr group_weights<Cols, Rows, GroupSize> quantize_table_groups(
    const matrix<T, Rows, Cols>& table) noexcept {
  group_weights<Cols, Rows, GroupSize> out{};
  detail::quantize_outputs<false>(table, out);
  return out;
}

/// Output o's weights as floats (values · scales): an embedding's row, or a check.
template <extent In, extent Out, std::size_t GroupSize>
constexpr matrix<float, 1, In> dequantize_row(const group_weights<In, Out, GroupSize>& w, std::size_t o) noexcept {
  matrix<float, 1, In> row{};
  for (std::size_t k = 0; k < In.size; ++k) {
    row.elems[0][k] = w.dequantized(o, k);
  }
  return row;
}

/// x·W for x (R x d_in, float) and group-quantized W: each row of x quantized in the same groups
/// (Q8_0, as above), then for output o: Σ_g (Σ_{k in g} qx_k · qw_ok) · (sx_g · sw_og), the inner
/// sums exact in int32 and the groups added in float in increasing order as (dot · sw) · sx + sum
/// — llama2.c's runq.c matmul, term for term, with the library's one fusion policy for the last
/// multiply-add (math/fp.hpp). R x d_out.
/// group_linear_into(out, x, w, qx) writes it into out with qx (the quantized rows of x,
/// group_weights<In, R, GroupSize>) the caller's: a workspace's, whatever they held.
template <extent R, extent In, extent Out, std::size_t GroupSize>
constexpr void group_linear_into(matrix<float, R, Out>& out, const matrix<float, R, In>& x,
                                 const group_weights<In, Out, GroupSize>& w,
                                 group_weights<In, R, GroupSize>& qx) noexcept {
  constexpr std::size_t groups = group_weights<In, Out, GroupSize>::groups;
  detail::quantize_outputs<false>(x, qx);  // the rows of x, quantized as the weights are
  for (std::size_t r = 0; r < R.size; ++r) {
    for (std::size_t o = 0; o < Out.size; ++o) {
      const std::int8_t* wo = w.values.elems[o];
      float sum = 0.0f;
      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t begin = g * GroupSize, length = detail::group_length(g, GroupSize, In.size);
        const std::int32_t dot = detail::group_dot(&qx.values.elems[r][begin], wo + begin, length);
        sum = cxmat::detail::multiply_add_scalar(static_cast<float>(dot) * w.scales.elems[o][g], qx.scales.elems[r][g],
                                                 sum);
      }
      out.elems[r][o] = sum;
    }
  }
}

template <extent R, extent In, extent Out, std::size_t GroupSize>
constexpr matrix<float, R, Out> group_linear(const matrix<float, R, In>& x,
                                             const group_weights<In, Out, GroupSize>& w) noexcept {
  group_weights<In, R, GroupSize> qx;
  matrix<float, R, Out> out;
  group_linear_into(out, x, w, qx);
  return out;
}

}  // namespace cxmat::q8
