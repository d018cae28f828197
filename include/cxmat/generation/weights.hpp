// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// How a language model stores its weights: as float matrices, as 16-bit floats (float16 or
// bfloat16, as checkpoints ship them) widened where used, or as int8 in groups (Q8_0, the scheme
// of llama2.c's int8 checkpoints and of llama.cpp) with float activations. A model's block is one
// definition for all three: it multiplies, looks up and scores through the functions here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/generation/workspace.hpp>
#include <cxmat/math/half.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/quantized/group_linear.hpp>
#include <cxmat/transformer/embedding.hpp>

namespace cxmat {

/// Float weights: linear maps as d_in x d_out matrices, tables as vocab x d_model.
struct dense_weights {
  template <class T, extent In, extent Out>
  using linear = matrix<T, In, Out>;
  template <class T, extent Vocab, extent D>
  using table = matrix<T, Vocab, D>;
  /// What a product on R rows of width In needs besides its input and output: nothing.
  template <class T, std::size_t R, extent In>
  using input_scratch = detail::no_input_scratch<R, In>;
};

/// A Rows x Cols matrix stored as 16-bit floats of format F (`bits`: each element's encoding),
/// half the bytes of float. `widen()` gives the float matrix, exactly.
template <half_format F, extent Rows, extent Cols>
struct half_matrix {
  static constexpr half_format format = F;
  static constexpr std::size_t rows = Rows.size;
  static constexpr std::size_t cols = Cols.size;
  matrix<std::uint16_t, Rows, Cols> bits;

  [[nodiscard]] constexpr matrix<float, Rows, Cols> widen() const noexcept {
    matrix<float, Rows, Cols> out{};
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j) out.elems[i][j] = widen_half<F>(bits.elems[i][j]);
    }
    return out;
  }
  /// Element (i, j), widened.
  [[nodiscard]] constexpr float operator()(std::size_t i, std::size_t j) const noexcept {
    return widen_half<F>(bits.elems[i][j]);
  }
};

/// 16-bit float weights (F: half_format::binary16 or bfloat16), as Hugging Face and GGUF
/// checkpoints hold them, for every linear map, the token table and a separate head; T must be
/// float. Each product widens its weight exactly into a float matrix and runs the float product
/// on it, so a model computes the very bits of the float model whose weights are the widened
/// values; the price is that temporary (d_in x d_out floats, on the stack) and a widening per
/// use (in a constant expression, operations per weight). For flash where a product's temporary
/// fits the RAM: on a microcontroller, int8 groups (q8_group_weights) keep both small.
template <half_format F>
struct half_weights {
  template <class T, extent In, extent Out>
  using linear = half_matrix<F, In, Out>;
  template <class T, extent Vocab, extent D>
  using table = half_matrix<F, Vocab, D>;
  /// Nothing in a workspace: the widened weight is a temporary of the product (above).
  template <class T, std::size_t R, extent In>
  using input_scratch = detail::no_input_scratch<R, In>;
};

/// int8 weights in groups of GroupSize inputs (q8::group_weights) for every linear map and for the
/// token table; norms stay float, and so do the activations (T must be float): each product
/// quantizes its input rows as it goes (q8::group_linear).
template <std::size_t GroupSize>
struct q8_group_weights {
  template <class T, extent In, extent Out>
  using linear = q8::group_weights<In, Out, GroupSize>;
  template <class T, extent Vocab, extent D>
  using table = q8::group_weights<D, Vocab, GroupSize>;
  /// A product on R rows of width In quantizes them first: their int8 groups and scales.
  template <class T, std::size_t R, extent In>
  using input_scratch = q8::group_weights<In, extent{R}, GroupSize>;
};

namespace detail {

// out = x·W for each storage, written into out (whatever it held) with the storage's input
// scratch (Weights::input_scratch<T, R, In>).
template <class T, extent R, extent In, extent In2, extent Out, class Scratch>
constexpr void apply_linear_into(matrix<T, R, Out>& out, const matrix<T, R, In>& x, const matrix<T, In2, Out>& w,
                                 Scratch& /*none*/) noexcept {
  matmul_into(out, x, w);
}
template <extent R, extent In, extent Out, std::size_t GroupSize>
constexpr void apply_linear_into(matrix<float, R, Out>& out, const matrix<float, R, In>& x,
                                 const q8::group_weights<In, Out, GroupSize>& w,
                                 q8::group_weights<In, R, GroupSize>& rows) noexcept {
  q8::group_linear_into(out, x, w, rows);
}
template <class T, extent R, extent In, half_format F, extent In2, extent Out, class Scratch>
constexpr void apply_linear_into(matrix<T, R, Out>& out, const matrix<T, R, In>& x, const half_matrix<F, In2, Out>& w,
                                 Scratch& /*none*/) noexcept {
  static_assert(std::is_same_v<T, float>, "16-bit float weights are widened to float: the model's T must be float");
  matmul_into(out, x, w.widen());
}

// The rows of the table for the tokens into out (every id already checked to be below vocab).
template <class T, extent R, extent D, extent V, extent D2, class I, extent One, extent N>
constexpr void embed_rows_into(matrix<T, R, D>& out, const matrix<T, V, D2>& table,
                               const matrix<I, One, N>& tokens) noexcept {
  for (std::size_t r = 0; r < N.size; ++r) {
    const auto token = static_cast<std::size_t>(tokens.elems[0][r]);
    for (std::size_t c = 0; c < D.size; ++c) out.elems[r][c] = table.elems[token][c];
  }
}
template <class T, extent R, extent D, extent V, std::size_t GroupSize, class I, extent One, extent N>
constexpr void embed_rows_into(matrix<T, R, D>& out, const q8::group_weights<D, V, GroupSize>& table,
                               const matrix<I, One, N>& tokens) noexcept {
  static_assert(std::is_same_v<T, float>, "a group-quantized table gives float rows");
  for (std::size_t r = 0; r < N.size; ++r) {
    const auto token = static_cast<std::size_t>(tokens.elems[0][r]);
    for (std::size_t c = 0; c < D.size; ++c) out.elems[r][c] = table.dequantized(token, c);
  }
}
template <class T, extent R, extent D, half_format F, extent V, extent D2, class I, extent One, extent N>
constexpr void embed_rows_into(matrix<T, R, D>& out, const half_matrix<F, V, D2>& table,
                               const matrix<I, One, N>& tokens) noexcept {
  static_assert(std::is_same_v<T, float>, "a 16-bit float table gives float rows");
  for (std::size_t r = 0; r < N.size; ++r) {
    const auto token = static_cast<std::size_t>(tokens.elems[0][r]);
    for (std::size_t c = 0; c < D.size; ++c) out.elems[r][c] = table(token, c);
  }
}

// x·tableᵀ into out: the logits of a head stored vocab x d_model, with the storage's scratch.
template <class T, extent R, extent D, extent V, extent D2, class Scratch>
constexpr void table_logits_into(matrix<T, R, V>& out, const matrix<T, R, D>& x, const matrix<T, V, D2>& table,
                                 Scratch& /*none*/) noexcept {
  logits_into(out, x, table);
}
template <extent R, extent D, extent V, std::size_t GroupSize>
constexpr void table_logits_into(matrix<float, R, V>& out, const matrix<float, R, D>& x,
                                 const q8::group_weights<D, V, GroupSize>& table,
                                 q8::group_weights<D, R, GroupSize>& rows) noexcept {
  q8::group_linear_into(out, x, table, rows);
}
template <extent R, extent D, half_format F, extent V, extent D2, class Scratch>
constexpr void table_logits_into(matrix<float, R, V>& out, const matrix<float, R, D>& x,
                                 const half_matrix<F, V, D2>& table, Scratch& /*none*/) noexcept {
  logits_into(out, x, table.widen());
}

}  // namespace detail

}  // namespace cxmat
