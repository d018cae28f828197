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
#include <cxmat/math/fp.hpp>

namespace cxmat::q8 {

/// A d_in x d_out weight quantized in groups of GroupSize inputs (GroupSize divides d_in). Stored
/// out x in, as llama.cpp and llama2.c store it (each output's weights contiguous): weight (k, o)
/// is values(o, k) · scales(o, k / GroupSize).
template <extent In, extent Out, std::size_t GroupSize>
struct group_weights {
  static_assert(GroupSize > 0 && In.size % GroupSize == 0,
                "q8::group_weights<In, Out, GroupSize>: the group size must divide the input width");
  static constexpr std::size_t group_size = GroupSize;
  static constexpr std::size_t groups = In.size / GroupSize;
  static constexpr auto in_extent = In;
  static constexpr auto out_extent = Out;

  matrix<std::int8_t, Out, In> values;
  matrix<float, Out, groups> scales;
};

namespace detail {

// round(v) for |v| <= 127.5, halves away from zero (C's roundf): v - trunc(v) is exact there.
constexpr std::int32_t round_to_int8_range(float v) noexcept {
  const auto t = static_cast<std::int32_t>(v);
  const float fraction = v - static_cast<float>(t);
  if (fraction >= 0.5f) return t + 1;
  if (fraction <= -0.5f) return t - 1;
  return t;
}

// One group of n values quantized as Q8_0: scale = max |v| / 127, q = round(v / scale); an all-zero
// group has scale 0 and values 0.
constexpr float quantize_group(const float* v, std::size_t n, std::int8_t* q) noexcept {
  float largest = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    const float a = v[i] < 0.0f ? -v[i] : v[i];
    largest = a > largest ? a : largest;
  }
  const float scale = largest / 127.0f;
  for (std::size_t i = 0; i < n; ++i) {
    q[i] = scale == 0.0f ? std::int8_t{0} : static_cast<std::int8_t>(round_to_int8_range(v[i] / scale));
  }
  return scale;
}

}  // namespace detail

/// The group quantization of w (d_in x d_out, the library's orientation, float or double; each
/// element converted to float first), as llama2.c's export quantizes: per output and group,
/// scale = max |w| / 127 and q = round(w / scale). Usable in constant expressions, so a float
/// model becomes an int8 one in the compiler.
template <std::size_t GroupSize, class T, extent In, extent Out>
requires(GroupSize > 0 &&
         In.size % GroupSize ==
             0) constexpr group_weights<In, Out, GroupSize> quantize_groups(const matrix<T, In, Out>& w) noexcept {
  group_weights<In, Out, GroupSize> out{};
  for (std::size_t o = 0; o < Out.size; ++o) {
    for (std::size_t g = 0; g < In.size / GroupSize; ++g) {
      float group[GroupSize]{};
      for (std::size_t i = 0; i < GroupSize; ++i) group[i] = static_cast<float>(w.elems[g * GroupSize + i][o]);
      out.scales.elems[o][g] = detail::quantize_group(group, GroupSize, &out.values.elems[o][g * GroupSize]);
    }
  }
  return out;
}

/// The same quantization of a table stored out x in already (an embedding: vocab x d_model, each
/// token's row one output), as the token table of llama2.c's int8 checkpoints.
template <std::size_t GroupSize, class T, extent Rows, extent Cols>
requires(GroupSize > 0 && Cols.size % GroupSize == 0) constexpr group_weights<
    Cols, Rows, GroupSize> quantize_table_groups(const matrix<T, Rows, Cols>& table) noexcept {
  group_weights<Cols, Rows, GroupSize> out{};
  for (std::size_t r = 0; r < Rows.size; ++r) {
    for (std::size_t g = 0; g < Cols.size / GroupSize; ++g) {
      float group[GroupSize]{};
      for (std::size_t i = 0; i < GroupSize; ++i) group[i] = static_cast<float>(table.elems[r][g * GroupSize + i]);
      out.scales.elems[r][g] = detail::quantize_group(group, GroupSize, &out.values.elems[r][g * GroupSize]);
    }
  }
  return out;
}

/// Output o's weights as floats (values · scales): an embedding's row, or a check.
template <extent In, extent Out, std::size_t GroupSize>
constexpr matrix<float, 1, In> dequantize_row(const group_weights<In, Out, GroupSize>& w, std::size_t o) noexcept {
  matrix<float, 1, In> row{};
  for (std::size_t k = 0; k < In.size; ++k) {
    row.elems[0][k] = static_cast<float>(w.values.elems[o][k]) * w.scales.elems[o][k / GroupSize];
  }
  return row;
}

/// x·W for x (R x d_in, float) and group-quantized W: each row of x quantized in the same groups
/// (Q8_0, as above), then for output o: Σ_g (Σ_{k in g} qx_k · qw_ok) · (sx_g · sw_og), the inner
/// sums exact in int32 and the groups added in float in increasing order as (dot · sw) · sx + sum
/// — llama2.c's runq.c matmul, term for term, with the library's one fusion policy for the last
/// multiply-add (math/fp.hpp). R x d_out.
template <extent R, extent In, extent Out, std::size_t GroupSize>
constexpr matrix<float, R, Out> group_linear(const matrix<float, R, In>& x,
                                             const group_weights<In, Out, GroupSize>& w) noexcept {
  constexpr std::size_t groups = In.size / GroupSize;
  matrix<float, R, Out> out{};
  for (std::size_t r = 0; r < R.size; ++r) {
    std::int8_t qx[In.size]{};
    float sx[groups]{};
    for (std::size_t g = 0; g < groups; ++g)
      sx[g] = detail::quantize_group(&x.elems[r][g * GroupSize], GroupSize, &qx[g * GroupSize]);
    for (std::size_t o = 0; o < Out.size; ++o) {
      const std::int8_t* wo = w.values.elems[o];
      float sum = 0.0f;
      for (std::size_t g = 0; g < groups; ++g) {
        std::int32_t dot = 0;
        for (std::size_t i = g * GroupSize; i < (g + 1) * GroupSize; ++i)
          dot += static_cast<std::int32_t>(qx[i]) * static_cast<std::int32_t>(wo[i]);
        sum = cxmat::detail::multiply_add_scalar(static_cast<float>(dot) * w.scales.elems[o][g], sx[g], sum);
      }
      out.elems[r][o] = sum;
    }
  }
  return out;
}

}  // namespace cxmat::q8
