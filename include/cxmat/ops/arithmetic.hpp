// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Linear algebra on shape-typed matrices: products, transposes, sums and scalings.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/kernels/accumulator.hpp>
#include <cxmat/kernels/matmul.hpp>

namespace cxmat {

namespace detail {
// a·b written into out, the caller's matrix (a workspace's: a's rows, b's columns, whatever their
// names), whatever it held: matmul's arithmetic without a result on the stack.
template <class A, extent RO, extent CO, class T, extent R, extent K1, extent K2, extent C>
constexpr void matmul_into(matrix<A, RO, CO>& out, const matrix<T, R, K1>& a, const matrix<T, K2, C>& b) noexcept {
  static_assert(std::is_same_v<A, accumulator_t<T>>, "matmul_into: out holds the products' accumulator type");
  matmul_kernel(a.elems, b.elems, out.elems);
}
}  // namespace detail

/// Matrix product a·b: (R x K) · (K x C) -> R x C. a.cols must equal b.rows (and their names
/// agree), otherwise the call does not compile. The inner dimension's name disappears.
///
/// Each element sums over k in increasing order from 0 (kernels/matmul.hpp), in
/// accumulator_t<T>, which is also the result's element type: T itself for floating-point
/// types, a wider integer for narrow integers (int8 -> int32, int16 -> int64, ...), so integer
/// products never wrap silently; an overflow of the accumulator in a constant expression does
/// not compile.
template <class T, extent R, extent K1, extent K2, extent C>
requires rules_hold<rules_of::matmul<T, R, K1, K2, C>>
constexpr matrix<accumulator_t<T>, R, C> matmul(const matrix<T, R, K1>& a, const matrix<T, K2, C>& b) noexcept {
  matrix<accumulator_t<T>, R, C> out;
  detail::matmul_into(out, a, b);
  return out;
}

/// Shape error: matmul(a, b) with a.cols != b.rows (or differently named) reports
/// shape_error::matmul_a_cols_must_equal_b_rows<a.rows, a.cols, b.rows, b.cols>.
template <class T, extent R, extent K1, extent K2, extent C>
decltype(detail::first_failure<rules_of::matmul<T, R, K1, K2, C>>::error()) matmul(const matrix<T, R, K1>& a,
                                                                                   const matrix<T, K2, C>& b) noexcept;

/// a * b is matmul(a, b) (elements of accumulator_t<T>).
template <class T, extent R, extent K1, extent K2, extent C>
requires rules_hold<rules_of::matmul<T, R, K1, K2, C>>
constexpr matrix<accumulator_t<T>, R, C> operator*(const matrix<T, R, K1>& a, const matrix<T, K2, C>& b) noexcept {
  return matmul(a, b);
}

/// Shape error: a * b with a.cols != b.rows, reported as for matmul(a, b).
template <class T, extent R, extent K1, extent K2, extent C>
decltype(detail::first_failure<rules_of::matmul<T, R, K1, K2, C>>::error()) operator*(
    const matrix<T, R, K1>& a, const matrix<T, K2, C>& b) noexcept;

/// Transpose: R x C -> C x R (names swap with the sizes).
template <class T, extent R, extent C>
constexpr matrix<T, C, R> transpose(const matrix<T, R, C>& a) noexcept {
  matrix<T, C, R> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[j][i] = a.elems[i][j];
  }
  return out;
}

namespace detail {
// a + b written into out, the caller's matrix (a workspace's); out may be a or b (each element
// is read once, before it is written). The three are of one size, whatever their names.
template <class T, std::size_t R, std::size_t C>
constexpr void add_into(T (&out)[R][C], const T (&a)[R][C], const T (&b)[R][C]) noexcept {
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) out[i][j] = a[i][j] + b[i][j];
  }
}
}  // namespace detail

/// Elementwise sum; both operands have the same shape (and names). Names: the named one wins.
template <class T, extent R1, extent C1, extent R2, extent C2>
requires rules_hold<rules_of::elementwise<T, R1, C1, R2, C2>>
constexpr auto operator+(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b) noexcept {
  matrix<T, common_extent_v<R1, R2>, common_extent_v<C1, C2>> out{};
  detail::add_into(out.elems, a.elems, b.elems);
  return out;
}

/// Shape error: a + b with different shapes (or names).
template <class T, extent R1, extent C1, extent R2, extent C2>
decltype(detail::first_failure<rules_of::elementwise<T, R1, C1, R2, C2>>::error()) operator+(
    const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b) noexcept;

/// Elementwise difference; both operands have the same shape.
template <class T, extent R1, extent C1, extent R2, extent C2>
requires rules_hold<rules_of::elementwise<T, R1, C1, R2, C2>>
constexpr auto operator-(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b) noexcept {
  matrix<T, common_extent_v<R1, R2>, common_extent_v<C1, C2>> out{};
  for (std::size_t i = 0; i < R1.size; ++i) {
    for (std::size_t j = 0; j < C1.size; ++j) out.elems[i][j] = a.elems[i][j] - b.elems[i][j];
  }
  return out;
}

/// Shape error: a - b with different shapes (or names).
template <class T, extent R1, extent C1, extent R2, extent C2>
decltype(detail::first_failure<rules_of::elementwise<T, R1, C1, R2, C2>>::error()) operator-(
    const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b) noexcept;

/// Elementwise negation.
template <class T, extent R, extent C>
constexpr matrix<T, R, C> operator-(const matrix<T, R, C>& a) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = -a.elems[i][j];
  }
  return out;
}

/// Every element times the scalar s.
template <class T, extent R, extent C>
constexpr matrix<T, R, C> operator*(const matrix<T, R, C>& a, const std::type_identity_t<T>& s) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = a.elems[i][j] * s;
  }
  return out;
}

/// The scalar s times every element.
template <class T, extent R, extent C>
constexpr matrix<T, R, C> operator*(const std::type_identity_t<T>& s, const matrix<T, R, C>& a) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = s * a.elems[i][j];
  }
  return out;
}

/// Every element divided by the scalar s (IEEE rules at run time: x / 0 is ±inf or NaN; in a
/// constant expression a division by zero does not compile).
template <class T, extent R, extent C>
constexpr matrix<T, R, C> operator/(const matrix<T, R, C>& a, const std::type_identity_t<T>& s) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = a.elems[i][j] / s;
  }
  return out;
}

}  // namespace cxmat
