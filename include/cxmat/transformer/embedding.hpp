// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The ends of a language model: token embeddings (a vocab x d_model table looked up by a row of
// token indices), logits (x·tableᵀ with the table tied, or a separate head with linear), and
// the index of the largest entry of each row (greedy decoding).
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/kernels/fold.hpp>
#include <cxmat/kernels/loops.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/math/fp.hpp>
#include <cxmat/transformer/rules.hpp>

namespace cxmat {

namespace detail {
// Not constexpr, on purpose: a constant expression that looks up a token outside the table stops
// here, and the compiler names this function.
inline void token_index_must_be_below_vocab_in_a_constant_expression() noexcept {}
}  // namespace detail

/// The rows of `table` (vocab x d_model) picked by `tokens` (1 x n integer indices): n x d_model,
/// row i is table row tokens(0, i), as nn.Embedding. An index outside 0 .. vocab-1 does not
/// compile in a constant expression and gives a row of zeros at run time (no memory is read
/// outside the table).
template <class T, extent V, extent D, class I, extent One, extent N>
requires rules_hold<rules_of::embedding<I, One>>
constexpr matrix<T, N, D> embedding(const matrix<T, V, D>& table, const matrix<I, One, N>& tokens) noexcept {
  matrix<T, N, D> out{};
  for (std::size_t i = 0; i < N.size; ++i) {
    const I token = tokens.elems[0][i];
    bool inside = true;
    if constexpr (std::is_signed_v<I>) inside = token >= I(0);
    inside = inside && static_cast<std::size_t>(static_cast<std::make_unsigned_t<I>>(token)) < V.size;
    if (!inside) {
      if (detail::in_constant_evaluation()) detail::token_index_must_be_below_vocab_in_a_constant_expression();
      continue;
    }
    for (std::size_t j = 0; j < D.size; ++j) out.elems[i][j] = table.elems[static_cast<std::size_t>(token)][j];
  }
  return out;
}
/// Index-type error: tokens of floating point or bool elements, or more than one row.
template <class T, extent V, extent D, class I, extent One, extent N>
decltype(detail::first_failure<rules_of::embedding<I, One>>::error()) embedding(
    const matrix<T, V, D>& table, const matrix<I, One, N>& tokens) noexcept;

namespace detail {
// The run-time form of logits_of: eight vocabulary rows at a time, each sum over d_model in
// increasing order (the fold's order) with the one fusion policy, eight independent sums so that
// the multiply-adds overlap instead of waiting for each other.
template <class T, std::size_t R, std::size_t D, std::size_t V>
inline void logits_rows(const T (&x)[R][D], const T (&table)[V][D], T (&out)[R][V]) noexcept {
  constexpr std::size_t lanes = 8;
  for (std::size_t i = 0; i < R; ++i) {
    std::size_t v = 0;
    for (; v + lanes <= V; v += lanes) {
      T acc[lanes]{};
      for (std::size_t k = 0; k < D; ++k) {
        for (std::size_t l = 0; l < lanes; ++l) acc[l] = multiply_add_scalar(x[i][k], table[v + l][k], acc[l]);
      }
      for (std::size_t l = 0; l < lanes; ++l) out[i][v + l] = acc[l];
    }
    for (; v < V; ++v) out[i][v] = dot_loop(x[i], table[v], D);
  }
}

// x·tableᵀ written into out, the caller's (a workspace's), whatever it held.
template <class T, extent R, extent D, extent V, extent D2>
constexpr void logits_into(matrix<T, R, V>& out, const matrix<T, R, D>& x, const matrix<T, V, D2>& table) noexcept {
  by_evaluation<has_runtime_products>([&](auto...) { logits_rows(x.elems, table.elems, out.elems); },
                                      [&] {
                                        for (std::size_t i = 0; i < R.size; ++i) {
                                          for (std::size_t v = 0; v < V.size; ++v)
                                            out.elems[i][v] = dot<T>(x.elems[i], table.elems[v]);
                                        }
                                      });
}

template <class T, extent R, extent D, extent V, extent D2>
constexpr matrix<T, R, V> logits_of(const matrix<T, R, D>& x, const matrix<T, V, D2>& table) noexcept {
  matrix<T, R, V> out;
  logits_into(out, x, table);
  return out;
}
}  // namespace detail

/// Logits with a tied embedding table: x·tableᵀ, n x d_model times (vocab x d_model)ᵀ = n x vocab
/// (a separate output head is linear(x, w, b)).
template <class T, extent R, extent D, extent V, extent D2>
requires rules_hold<rules_of::logits<T, D, D2>>
constexpr matrix<T, R, V> logits(const matrix<T, R, D>& x, const matrix<T, V, D2>& table) noexcept {
  return detail::logits_of(x, table);
}
/// Shape error: x's width is not the table's d_model.
template <class T, extent R, extent D, extent V, extent D2>
decltype(detail::first_failure<rules_of::logits<T, D, D2>>::error()) logits(const matrix<T, R, D>& x,
                                                                            const matrix<T, V, D2>& table) noexcept;

/// Logits of every item of a batch: B x n x d_model -> B x n x vocab.
template <class T, extent B, extent R, extent D, extent V, extent D2>
requires rules_hold<rules_of::logits<T, D, D2>>
constexpr batch<T, B, R, V> logits(const batch<T, B, R, D>& x, const matrix<T, V, D2>& table) noexcept {
  batch<T, B, R, V> out{};
  for (std::size_t b = 0; b < B.size; ++b) out.items[b] = detail::logits_of(x.items[b], table);
  return out;
}
/// Shape error of the batched logits.
template <class T, extent B, extent R, extent D, extent V, extent D2>
decltype(detail::first_failure<rules_of::logits<T, D, D2>>::error()) logits(const batch<T, B, R, D>& x,
                                                                            const matrix<T, V, D2>& table) noexcept;

/// The column of the largest entry of each row, as a 1 x R row of indices (so the greedy next
/// tokens feed embedding() directly). Ties go to the first such column, as torch.argmax; a NaN
/// counts as larger than any number (the first NaN wins), as torch.argmax.
template <class T, extent R, extent C>
constexpr matrix<std::size_t, 1, R> argmax_rows(const matrix<T, R, C>& m) noexcept {
  matrix<std::size_t, 1, R> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < C.size; ++j) {
      const T& current = m.elems[i][best];
      const T& candidate = m.elems[i][j];
      if (current != current) break;  // NaN already found
      if (candidate != candidate || candidate > current) best = j;
    }
    out.elems[0][i] = best;
  }
  return out;
}

}  // namespace cxmat
