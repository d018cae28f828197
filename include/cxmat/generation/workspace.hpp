// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The memory a decoder-only model's call computes in: the rows through the blocks, one block's
// workspace (the blocks run one after the other) and the head's for the logits of one row. A
// model's `workspace<R>` is this for its block and vocabulary; `scratch_bytes<Model, R>`
// (core/workspace.hpp) its size.
#pragma once

#include <cstddef>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/workspace.hpp>

namespace cxmat {

namespace detail {
// The input scratch of a product that needs none (an empty member of a workspace; In and R keep
// two of them distinct types, so [[no_unique_address]] lets them share no bytes).
template <std::size_t R, extent In>
struct no_input_scratch {};
}  // namespace detail

/// The memory of a model's logits for one row: the row after the final norm, the logits, and
/// what the head's product needs besides (int8 groups: the row quantized).
template <class T, extent D, extent V, class HeadScratch = detail::no_input_scratch<1, D>>
struct head_workspace {
  matrix<T, 1, D> normed;
  matrix<T, 1, V> logits;
  [[no_unique_address]] HeadScratch rows;
};

/// The memory of a model's call on R new tokens, whatever it holds between calls: the rows
/// through the blocks (x), one block's workspace (block) and the head's (head).
template <class Block, std::size_t R, extent V, class HeadScratch = detail::no_input_scratch<1, Block::d_model>>
struct model_workspace {
  using value_type = typename Block::value_type;
  using head_type = head_workspace<value_type, Block::d_model, V, HeadScratch>;
  matrix<value_type, extent{R}, Block::d_model> x;
  typename Block::template workspace<R> block;
  head_type head;
};

namespace detail {
// A model's hidden(cache, tokens): hidden_into in a workspace on the stack, its rows returned.
template <class Model, class Cache, class I, extent One, extent R, class Recorder>
constexpr auto hidden_on_stack(const Model& model, Cache& cache, const matrix<I, One, R>& tokens,
                               const Recorder& recorder) noexcept {
  typename Model::template workspace<R.size> ws;
  model.hidden_into(cache, tokens, ws, recorder);
  matrix<typename Model::value_type, R, Model::d_model> out;
  for (std::size_t r = 0; r < R.size; ++r) {
    for (std::size_t c = 0; c < Model::d_model.size; ++c) out.elems[r][c] = ws.x.elems[r][c];
  }
  return out;
}

// A model's logits_of(x): logits_into for each row, in a head's workspace on the stack.
template <class Model, class T, extent R, extent D>
constexpr matrix<T, R, Model::vocab> logits_on_stack(const Model& model, const matrix<T, R, D>& x) noexcept {
  matrix<T, R, Model::vocab> out;
  typename Model::template workspace<1>::head_type head;
  for (std::size_t r = 0; r < R.size; ++r) {
    const auto& logits = model.logits_into(head, x.elems[r]);
    for (std::size_t v = 0; v < Model::vocab.size; ++v) out.elems[r][v] = logits.elems[0][v];
  }
  return out;
}
}  // namespace detail

}  // namespace cxmat
