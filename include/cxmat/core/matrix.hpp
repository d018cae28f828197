// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// matrix<T, Rows, Cols>: a fixed-size matrix whose shape is part of its type.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// A Rows x Cols matrix of T stored row-major in a plain array, with no heap and no hidden state.
///
/// An aggregate and a structural type: it is written row by row,
/// `constexpr matrix<double, 2, 3> m{{ {1, 2, 3}, {4, 5, 6} }};` (missing elements are zero),
/// can be a template argument, and copies are plain memory copies. `Rows` and `Cols` are plain
/// sizes or named dimensions (CXMAT_DIM). The storage `elems` is public only because structural
/// types require it; use `m(i, j)`.
template <class T, extent Rows, extent Cols>
struct matrix {
  static_assert(Rows.size > 0 && Cols.size > 0, "cxmat::matrix<T, Rows, Cols>: Rows and Cols must be at least 1");
  static_assert(std::is_object_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T>,
                "cxmat::matrix<T, Rows, Cols>: T must be a non-const, non-volatile object type");

  using value_type = T;
  using size_type = std::size_t;

  static constexpr std::size_t rows = Rows.size;
  static constexpr std::size_t cols = Cols.size;
  static constexpr std::size_t size = Rows.size * Cols.size;
  static constexpr auto row_extent = Rows;
  static constexpr auto col_extent = Cols;
  /// The rows and columns as dimension types, e.g. `dim<2, n_dim>` (see dim_of).
  using row_dim = dim_of<Rows>;
  using col_dim = dim_of<Cols>;

  T elems[Rows.size][Cols.size];

  /// Element in row i, column j (zero-based). Unchecked at run time, like an array; an index out
  /// of range in a constant expression is a compile error.
  constexpr T& operator()(std::size_t i, std::size_t j) noexcept { return elems[i][j]; }
  constexpr const T& operator()(std::size_t i, std::size_t j) const noexcept { return elems[i][j]; }

  /// The row-major storage, for interoperation with code that takes a pointer.
  constexpr T* data() noexcept { return &elems[0][0]; }
  constexpr const T* data() const noexcept { return &elems[0][0]; }
};

/// `matrix m{{ {1.0, 2.0}, {3.0, 4.0} }};` deduces matrix<double, 2, 2> from the braces.
template <class T, std::size_t R, std::size_t C>
matrix(const T (&)[R][C]) -> matrix<T, R, C>;

/// A matrix whose size is deduced from nested braces or from a 2-D array:
/// `make_matrix<double>({{1, 2}, {3, 4}})` is a matrix<double, 2, 2>, elements converted to T as
/// if by static_cast; `make_matrix({{1.0, 2.0}, {3.0, 4.0}})` (T left out) keeps the elements'
/// type. One template, so `make_matrix<float>(a)` for a `const float (&)[16][16]` is not ambiguous.
template <class T = void, std::size_t R, std::size_t C, class U>
constexpr matrix<std::conditional_t<std::is_void_v<T>, U, T>, R, C> make_matrix(const U (&values)[R][C]) noexcept {
  matrix<std::conditional_t<std::is_void_v<T>, U, T>, R, C> out{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) {
      out.elems[i][j] = static_cast<std::conditional_t<std::is_void_v<T>, U, T>>(values[i][j]);
    }
  }
  return out;
}

/// A 1 x N matrix.
template <class T, extent N>
using row_vector = matrix<T, 1, N>;

/// An N x 1 matrix.
template <class T, extent N>
using column_vector = matrix<T, N, 1>;

namespace detail {
template <class M>
inline constexpr bool is_matrix_v = false;
template <class T, extent R, extent C>
inline constexpr bool is_matrix_v<matrix<T, R, C>> = true;
}  // namespace detail

/// Any cxmat::matrix (cv-qualifiers and references ignored).
template <class M>
concept Matrix = detail::is_matrix_v<std::remove_cvref_t<M>>;

/// A matrix with as many rows as columns, and the same names for both (if named).
template <class M>
concept SquareMatrix =
    Matrix<M> && compatible_extents<std::remove_cvref_t<M>::row_extent, std::remove_cvref_t<M>::col_extent>;

/// Two matrices of the same element type and compatible shapes are equal when every element is.
/// (Exact comparison; see approx_equal for floating-point results.)
template <class T, extent R1, extent C1, extent R2, extent C2>
requires rules_hold<rules_of::compare<R1, C1, R2, C2>>
constexpr bool operator==(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b) noexcept {
  for (std::size_t i = 0; i < R1.size; ++i) {
    for (std::size_t j = 0; j < C1.size; ++j) {
      if (!(a.elems[i][j] == b.elems[i][j])) return false;
    }
  }
  return true;
}

/// Shape error: a == b with different shapes (or names) names the rule it breaks.
template <class T, extent R1, extent C1, extent R2, extent C2>
decltype(detail::first_failure<rules_of::compare<R1, C1, R2, C2>>::error()) operator==(
    const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b) noexcept;

/// The same values typed with the dimensions R2 x C2: `with_dims<n, d_model>(X)` names the rows
/// n and the columns d_model of a plain 2 x 4 matrix. The sizes must be equal, and a name may be
/// added to an unnamed dimension or dropped, never changed into another name.
template <extent R2, extent C2, class T, extent R, extent C>
requires rules_hold<rules_of::with_dims<R, C, R2, C2>>
constexpr matrix<T, R2, C2> with_dims(const matrix<T, R, C>& m) noexcept {
  matrix<T, R2, C2> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = m.elems[i][j];
  }
  return out;
}

/// Shape error: with_dims<R2, C2>(m) with other sizes, or renaming a named dimension.
template <extent R2, extent C2, class T, extent R, extent C>
decltype(detail::first_failure<rules_of::with_dims<R, C, R2, C2>>::error()) with_dims(
    const matrix<T, R, C>& m) noexcept;

/// A matrix with every element equal to `value`.
template <class T, extent R, extent C>
constexpr matrix<T, R, C> filled(const T& value) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = value;
  }
  return out;
}

/// The N x N identity matrix.
template <class T, extent N>
constexpr matrix<T, N, N> identity() noexcept {
  matrix<T, N, N> out{};
  for (std::size_t i = 0; i < N.size; ++i) out.elems[i][i] = T(1);
  return out;
}

}  // namespace cxmat
