// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The constant-evaluation forms of a dot product and of a scaled row sum, as fold expressions.
//
// A constant evaluator charges by the statement (Clang: -fconstexpr-steps) or by the tree node
// (GCC: -fconstexpr-ops-limit), so a loop `acc += x[k] * y[k]` costs a step per term in Clang
// and, through reference and pointer parameters, about 40 operations per term in GCC. A left
// fold over an index_sequence, `(acc + ... + x[Is] * y[Is])`, is one expression: Clang charges it
// once, and with the operands in local arrays (see the kernels) GCC charges about 10 operations
// per term. The fold adds in the loop's order, ((acc + p0) + p1) + ..., so results are the same
// bits. Long operands are folded in blocks of fold_block terms, each block one expression,
// so that no expression tree grows deeper than that.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cxmat/kernels/accumulator.hpp>

namespace cxmat::detail {

inline constexpr std::size_t fold_block = 64;

// acc + x[Off] * y[Off] + x[Off + 1] * y[Off + 1] + ..., left to right, in Acc.
template <class Acc, std::size_t Off, class T, std::size_t N, std::size_t... Is>
constexpr Acc dot_terms(Acc acc, [[maybe_unused]] const T (&x)[N], [[maybe_unused]] const T (&y)[N],
                        std::index_sequence<Is...>) noexcept {
  if constexpr (std::is_same_v<Acc, T>) {
    return (acc + ... + (x[Off + Is] * y[Off + Is]));
  } else {
    return (acc + ... + (static_cast<Acc>(x[Off + Is]) * static_cast<Acc>(y[Off + Is])));
  }
}

template <class Acc, class T, std::size_t N, std::size_t... Bs>
constexpr Acc dot_blocks(const T (&x)[N], const T (&y)[N], std::index_sequence<Bs...>) noexcept {
  Acc acc{};
  ((acc = dot_terms<Acc, Bs * fold_block>(acc, x, y, std::make_index_sequence<fold_block>{})), ...);
  return dot_terms<Acc, N / fold_block * fold_block>(acc, x, y, std::make_index_sequence<N % fold_block>{});
}

// The dot product of x and y, summed from Acc{} (+0) in increasing index order: the one dot
// product of the constant-evaluation kernels (matmul's elements, attention's scores).
template <class Acc, class T, std::size_t N>
constexpr Acc dot(const T (&x)[N], const T (&y)[N]) noexcept {
  if constexpr (N <= fold_block) {
    return dot_terms<Acc, 0>(Acc{}, x, y, std::make_index_sequence<N>{});
  } else {
    return dot_blocks<Acc>(x, y, std::make_index_sequence<N / fold_block>{});
  }
}

// acc[Off + i] = acc[Off + i] + w * y[Off + i] for each i of the block, one expression.
template <std::size_t Off, class T, std::size_t N, std::size_t... Is>
constexpr void scaled_add_terms([[maybe_unused]] T (&acc)[N], [[maybe_unused]] T w, [[maybe_unused]] const T (&y)[N],
                                std::index_sequence<Is...>) noexcept {
  ((acc[Off + Is] = acc[Off + Is] + w * y[Off + Is]), ...);
}

template <class T, std::size_t N, std::size_t... Bs>
constexpr void scaled_add_blocks(T (&acc)[N], T w, const T (&y)[N], std::index_sequence<Bs...>) noexcept {
  (scaled_add_terms<Bs * fold_block>(acc, w, y, std::make_index_sequence<fold_block>{}), ...);
  scaled_add_terms<N / fold_block * fold_block>(acc, w, y, std::make_index_sequence<N % fold_block>{});
}

// acc += w · y, element by element: one term of every output element of a weighted sum.
template <class T, std::size_t N>
constexpr void scaled_add(T (&acc)[N], T w, const T (&y)[N]) noexcept {
  if constexpr (N <= fold_block) {
    scaled_add_terms<0>(acc, w, y, std::make_index_sequence<N>{});
  } else {
    scaled_add_blocks(acc, w, y, std::make_index_sequence<N / fold_block>{});
  }
}

// to[i] = from[Off + i] for i < N: a window of a row copied into a local array, one expression.
template <std::size_t Off, class T, std::size_t N, std::size_t... Is>
constexpr void copy_terms([[maybe_unused]] T (&to)[N], [[maybe_unused]] const T* from,
                          std::index_sequence<Is...>) noexcept {
  ((to[Off + Is] = from[Off + Is]), ...);
}

template <class T, std::size_t N, std::size_t... Bs>
constexpr void copy_blocks(T (&to)[N], const T* from, std::index_sequence<Bs...>) noexcept {
  (copy_terms<Bs * fold_block>(to, from, std::make_index_sequence<fold_block>{}), ...);
  copy_terms<N / fold_block * fold_block>(to, from, std::make_index_sequence<N % fold_block>{});
}

// to = from[0, N).
template <class T, std::size_t N>
constexpr void copy_window(T (&to)[N], const T* from) noexcept {
  if constexpr (N <= fold_block) {
    copy_terms<0>(to, from, std::make_index_sequence<N>{});
  } else {
    copy_blocks(to, from, std::make_index_sequence<N / fold_block>{});
  }
}

// to[0, N) = from: a local row copied back to its window.
template <std::size_t Off, class T, std::size_t N, std::size_t... Is>
constexpr void copy_back_terms([[maybe_unused]] T* to, [[maybe_unused]] const T (&from)[N],
                               std::index_sequence<Is...>) noexcept {
  ((to[Off + Is] = from[Off + Is]), ...);
}

template <class T, std::size_t N, std::size_t... Bs>
constexpr void copy_back_blocks(T* to, const T (&from)[N], std::index_sequence<Bs...>) noexcept {
  (copy_back_terms<Bs * fold_block>(to, from, std::make_index_sequence<fold_block>{}), ...);
  copy_back_terms<N / fold_block * fold_block>(to, from, std::make_index_sequence<N % fold_block>{});
}

template <class T, std::size_t N>
constexpr void copy_window_to(T* to, const T (&from)[N]) noexcept {
  if constexpr (N <= fold_block) {
    copy_back_terms<0>(to, from, std::make_index_sequence<N>{});
  } else {
    copy_back_blocks(to, from, std::make_index_sequence<N / fold_block>{});
  }
}

}  // namespace cxmat::detail
