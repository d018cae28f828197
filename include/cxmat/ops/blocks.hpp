// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Joining and cutting matrices: hconcat, vconcat, split_columns, column_block, row selection.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {
namespace detail {

// The extent shared by compatible extents: the first named one, else unnamed.
template <auto First, auto... Rest>
constexpr auto common_extent_of() noexcept {
  if constexpr (sizeof...(Rest) == 0) {
    return First;
  } else {
    return common_extent<First, common_extent_of<Rest...>()>();
  }
}

// The extent of blocks laid side by side: sizes add up; k blocks of one name N are named k*N
// (so H heads of width d_model/H join back into d_model); mixed names give an unnamed extent.
template <auto First, auto... Rest>
constexpr auto joined_extent() noexcept {
  constexpr std::size_t total = (First.size + ... + Rest.size);
  if constexpr ((std::is_same_v<name_of<First>, name_of<Rest>> && ...)) {
    using joined_name = typename times_name<1 + sizeof...(Rest), name_of<First>>::type;
    return extent<joined_name>{total};
  } else {
    return extent<anonymous>{total};
  }
}

}  // namespace detail

/// Joins matrices side by side: (R x C0), (R x C1), ... -> R x (C0 + C1 + ...). Every operand has
/// the same rows. This is the Concat of multi-head attention: hconcat(head0, head1).
template <class T, extent R0, extent C0, extent... Rs, extent... Cs>
requires rules_hold<rules_of::hconcat<R0, Rs...>>
constexpr auto hconcat(const matrix<T, R0, C0>& first, const matrix<T, Rs, Cs>&... rest) noexcept {
  matrix<T, detail::common_extent_of<R0, Rs...>(), detail::joined_extent<C0, Cs...>()> out{};
  std::size_t offset = 0;
  const auto append = [&out, &offset](const auto& block) {
    using block_type = std::remove_cvref_t<decltype(block)>;
    for (std::size_t i = 0; i < block_type::rows; ++i) {
      for (std::size_t j = 0; j < block_type::cols; ++j) out.elems[i][offset + j] = block.elems[i][j];
    }
    offset += block_type::cols;
  };
  append(first);
  (append(rest), ...);
  return out;
}

/// Shape error: hconcat of blocks with different rows reports every block's rows.
template <class T, extent R0, extent C0, extent... Rs, extent... Cs>
decltype(detail::first_failure<rules_of::hconcat<R0, Rs...>>::error()) hconcat(
    const matrix<T, R0, C0>& first, const matrix<T, Rs, Cs>&... rest) noexcept;

/// Stacks matrices on top of each other: (R0 x C), (R1 x C), ... -> (R0 + R1 + ...) x C.
template <class T, extent R0, extent C0, extent... Rs, extent... Cs>
requires rules_hold<rules_of::vconcat<C0, Cs...>>
constexpr auto vconcat(const matrix<T, R0, C0>& first, const matrix<T, Rs, Cs>&... rest) noexcept {
  matrix<T, detail::joined_extent<R0, Rs...>(), detail::common_extent_of<C0, Cs...>()> out{};
  std::size_t offset = 0;
  const auto append = [&out, &offset](const auto& block) {
    using block_type = std::remove_cvref_t<decltype(block)>;
    for (std::size_t i = 0; i < block_type::rows; ++i) {
      for (std::size_t j = 0; j < block_type::cols; ++j) out.elems[offset + i][j] = block.elems[i][j];
    }
    offset += block_type::rows;
  };
  append(first);
  (append(rest), ...);
  return out;
}

/// Shape error: vconcat of blocks with different columns reports every block's columns.
template <class T, extent R0, extent C0, extent... Rs, extent... Cs>
decltype(detail::first_failure<rules_of::vconcat<C0, Cs...>>::error()) vconcat(
    const matrix<T, R0, C0>& first, const matrix<T, Rs, Cs>&... rest) noexcept;

/// Block I of the H equal column blocks of m: R x C -> R x (C / H), columns [I·C/H, (I+1)·C/H).
/// H must divide C and I < H. A width named d is cut into widths named d/H.
template <std::size_t I, std::size_t H, class T, extent R, extent C>
requires rules_hold<rules_of::column_block<C, I, H>>
constexpr matrix<T, R, divided_v<C, H>> column_block(const matrix<T, R, C>& m) noexcept {
  constexpr std::size_t width = C.size / H;
  matrix<T, R, divided_v<C, H>> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < width; ++j) out.elems[i][j] = m.elems[i][I * width + j];
  }
  return out;
}

/// Shape error: column_block<I, H>(m) where H does not divide the columns, or I >= H.
template <std::size_t I, std::size_t H, class T, extent R, extent C>
decltype(detail::first_failure<rules_of::column_block<C, I, H>>::error()) column_block(
    const matrix<T, R, C>& m) noexcept;

/// m cut into H equal column blocks, left to right: `auto [Q0, Q1] = split_columns<2>(Q);`.
/// H must divide the number of columns.
template <std::size_t H, class T, extent R, extent C>
requires rules_hold<rules_of::split_columns<C, H>>
constexpr std::array<matrix<T, R, divided_v<C, H>>, H> split_columns(const matrix<T, R, C>& m) noexcept {
  constexpr std::size_t width = C.size / H;
  std::array<matrix<T, R, divided_v<C, H>>, H> out{};
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < R.size; ++i) {
      for (std::size_t j = 0; j < width; ++j) out[h].elems[i][j] = m.elems[i][h * width + j];
    }
  }
  return out;
}

/// Shape error: split_columns<H>(m) where H does not divide the columns.
template <std::size_t H, class T, extent R, extent C>
decltype(detail::first_failure<rules_of::split_columns<C, H>>::error()) split_columns(
    const matrix<T, R, C>& m) noexcept;

/// The rows I... of m, in that order: `select_rows<2, 0>(m)` is a 2 x C matrix of rows 2 and 0.
template <std::size_t... I, class T, extent R, extent C>
requires rules_hold<rules_of::select_rows<R, I...>>
constexpr matrix<T, sizeof...(I), C> select_rows(const matrix<T, R, C>& m) noexcept {
  constexpr std::size_t picks[] = {I...};
  matrix<T, sizeof...(I), C> out{};
  for (std::size_t i = 0; i < sizeof...(I); ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = m.elems[picks[i]][j];
  }
  return out;
}

/// Reorders the rows of m: row i of the result is row P[i] of m. P... must be a permutation of
/// 0 .. R-1 (worksheet 004 swaps the first two tokens: `permute_rows<1, 0, 2, 3, 4>(X)`).
template <std::size_t... P, class T, extent R, extent C>
requires rules_hold<rules_of::permute_rows<R, P...>>
constexpr matrix<T, R, C> permute_rows(const matrix<T, R, C>& m) noexcept {
  constexpr std::size_t picks[] = {P...};
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = m.elems[picks[i]][j];
  }
  return out;
}

/// Shape error: select_rows<I...>(m) with no index or an index past the last row.
template <std::size_t... I, class T, extent R, extent C>
decltype(detail::first_failure<rules_of::select_rows<R, I...>>::error()) select_rows(const matrix<T, R, C>& m) noexcept;

/// Shape error: permute_rows<P...>(m) where P is not 0 .. R-1 in some order.
template <std::size_t... P, class T, extent R, extent C>
decltype(detail::first_failure<rules_of::permute_rows<R, P...>>::error()) permute_rows(
    const matrix<T, R, C>& m) noexcept;

}  // namespace cxmat
