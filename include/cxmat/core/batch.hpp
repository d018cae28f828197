// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// batch<T, B, Rows, Cols>: B matrices of one shape, e.g. a B x n x d input or H x L x S weights.
#pragma once

#include <cstddef>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// A stack of B matrices of shape Rows x Cols (a rank-3 tensor B x Rows x Cols), stored as B
/// consecutive matrices. Aggregate and structural, like matrix: `batch<double, 2, 2, 3> x{{ m0, m1 }};`.
template <class T, extent B, extent Rows, extent Cols>
struct batch {
  static_assert(B.size > 0, "cxmat::batch<T, B, Rows, Cols>: B must be at least 1");

  using value_type = T;
  using matrix_type = matrix<T, Rows, Cols>;

  static constexpr std::size_t count = B.size;
  static constexpr std::size_t rows = Rows.size;
  static constexpr std::size_t cols = Cols.size;
  static constexpr auto batch_extent = B;
  static constexpr auto row_extent = Rows;
  static constexpr auto col_extent = Cols;

  matrix_type items[B.size];

  /// Matrix b of the stack (unchecked at run time; a compile error out of range when constant).
  constexpr matrix_type& operator[](std::size_t b) noexcept { return items[b]; }
  constexpr const matrix_type& operator[](std::size_t b) const noexcept { return items[b]; }

  /// Element (b, i, j).
  constexpr T& operator()(std::size_t b, std::size_t i, std::size_t j) noexcept { return items[b].elems[i][j]; }
  constexpr const T& operator()(std::size_t b, std::size_t i, std::size_t j) const noexcept {
    return items[b].elems[i][j];
  }
};

namespace detail {
template <class M>
inline constexpr bool is_batch_v = false;
template <class T, extent B, extent R, extent C>
inline constexpr bool is_batch_v<batch<T, B, R, C>> = true;
}  // namespace detail

/// Any cxmat::batch.
template <class M>
concept Batch = detail::is_batch_v<std::remove_cvref_t<M>>;

/// Two batches are equal when their shapes are compatible and every matrix is equal.
template <class T, extent B1, extent R1, extent C1, extent B2, extent R2, extent C2>
requires rules_hold<rules_of::batch_compare<B1, R1, C1, B2, R2, C2>>
constexpr bool operator==(const batch<T, B1, R1, C1>& a, const batch<T, B2, R2, C2>& b) noexcept {
  for (std::size_t n = 0; n < B1.size; ++n) {
    if (!(a.items[n] == b.items[n])) return false;
  }
  return true;
}

/// Shape error: a == b for batches of different B or item shapes.
template <class T, extent B1, extent R1, extent C1, extent B2, extent R2, extent C2>
decltype(detail::first_failure<rules_of::batch_compare<B1, R1, C1, B2, R2, C2>>::error()) operator==(
    const batch<T, B1, R1, C1>& a, const batch<T, B2, R2, C2>& b) noexcept;

/// The mean of the B matrices (e.g. attention weights averaged over heads).
template <class T, extent B, extent R, extent C>
constexpr matrix<T, R, C> mean(const batch<T, B, R, C>& x) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t n = 0; n < B.size; ++n) {
    for (std::size_t i = 0; i < R.size; ++i) {
      for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] += x.items[n].elems[i][j];
    }
  }
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = out.elems[i][j] / static_cast<T>(B.size);
  }
  return out;
}

}  // namespace cxmat
