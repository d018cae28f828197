// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Positional encodings added to a transformer's input: the sinusoidal table of "Attention Is All
// You Need" (section 3.5) and a learned table (GPT-2's wpe, BERT's position embeddings). Rotary
// position embedding acts inside attention instead, as the option cxmat::rotary (attention/options.hpp).
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/config.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/plain_errors.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/kernels/rotary.hpp>

namespace cxmat {

/// The sinusoidal positional encodings of positions 0..N-1 in a width-D model (Vaswani et al.):
/// PE[pos][2i] = sin(pos / base^(2i/D)), PE[pos][2i+1] = cos(pos / base^(2i/D)), base 10000 by
/// default (an odd D ends with a sine column). N x D, in T (float, double or long double; the
/// angles are computed in T). `sinusoidal_positions<double, n, d_model>()`.
template <class T, extent N, extent D>
requires std::is_floating_point_v<T>
constexpr matrix<T, N, D> sinusoidal_positions(double base = 10000.0) noexcept {
  matrix<T, N, D> out{};
  detail::sinusoidal_rows(out.elems, 0, static_cast<T>(base));
  return out;
}

/// x + sinusoidal_positions<T, n, d>(base): row p of x (n x d) gets the encoding of position p.
template <class T, extent N, extent D>
requires std::is_floating_point_v<T>
constexpr matrix<T, N, D> add_sinusoidal_positions(const matrix<T, N, D>& x, double base = 10000.0) noexcept {
  matrix<T, N, D> out = sinusoidal_positions<T, N, D>(base);
  for (std::size_t i = 0; i < N.size; ++i) {
    for (std::size_t j = 0; j < D.size; ++j) out.elems[i][j] += x.elems[i][j];
  }
  return out;
}

/// Every item of a batch (B x n x d) plus the same sinusoidal encodings.
template <class T, extent B, extent N, extent D>
requires std::is_floating_point_v<T>
constexpr batch<T, B, N, D> add_sinusoidal_positions(const batch<T, B, N, D>& x, double base = 10000.0) noexcept {
  const matrix<T, N, D> table = sinusoidal_positions<T, N, D>(base);
  batch<T, B, N, D> out{};
  for (std::size_t b = 0; b < B.size; ++b) {
    for (std::size_t i = 0; i < N.size; ++i) {
      for (std::size_t j = 0; j < D.size; ++j) out.items[b].elems[i][j] = x.items[b].elems[i][j] + table.elems[i][j];
    }
  }
  return out;
}

/// add_positions: the learned table has the input's width d_model.
template <auto TableD, auto D>
concept PositionTableWidthMatches = compatible_extents<TableD, D>;

/// add_positions: the learned table has a row for each of the input's n positions.
template <auto N, auto P>
concept PositionTableCoversInput = (P.size >= N.size);

namespace shape_error {
template <class TableCols, class XCols>
struct add_positions_table_width_must_equal_x_width;  // the table is max_positions x d_model, x is n x d_model
template <class XRows, class TableRows>
struct add_positions_table_needs_a_row_per_position;  // row p of the table is added to row p of x: n <= max_positions
}  // namespace shape_error

namespace rule {
template <auto TableD, auto D>
using position_table_width =
    detail::check<PositionTableWidthMatches<TableD, D>,
                  shape_error::add_positions_table_width_must_equal_x_width<dim_of<TableD>, dim_of<D>>>;
template <auto N, auto P>
using position_table_rows =
    detail::check<PositionTableCoversInput<N, P>,
                  shape_error::add_positions_table_needs_a_row_per_position<dim_of<N>, dim_of<P>>>;
}  // namespace rule

namespace rules_of {
template <class T, auto N, auto D, auto P, auto TableD>
using add_positions = detail::rule_list<rule::numeric_elements<T>, rule::position_table_width<TableD, D>,
                                        rule::position_table_rows<N, P>>;
}  // namespace rules_of

/// Learned absolute positions: x (n x d_model) plus rows 0..n-1 of table (max_positions x
/// d_model), as `x + wpe[:n]` in GPT-2 or BERT. The table has the input's width and at least n rows.
template <class T, extent N, extent D, extent P, extent TableD>
requires rules_hold<rules_of::add_positions<T, N, D, P, TableD>>
constexpr matrix<T, N, D> add_positions(const matrix<T, N, D>& x, const matrix<T, P, TableD>& table) noexcept {
  matrix<T, N, D> out{};
  for (std::size_t i = 0; i < N.size; ++i) {
    for (std::size_t j = 0; j < D.size; ++j) out.elems[i][j] = x.elems[i][j] + table.elems[i][j];
  }
  return out;
}

/// Shape error of add_positions(x, table): the first broken rule.
template <class T, extent N, extent D, extent P, extent TableD>
decltype(detail::first_failure<rules_of::add_positions<T, N, D, P, TableD>>::error()) add_positions(
    const matrix<T, N, D>& x, const matrix<T, P, TableD>& table) noexcept;

/// Every item of a batch (B x n x d_model) plus the same rows 0..n-1 of the table.
template <class T, extent B, extent N, extent D, extent P, extent TableD>
requires rules_hold<rules_of::add_positions<T, N, D, P, TableD>>
constexpr batch<T, B, N, D> add_positions(const batch<T, B, N, D>& x, const matrix<T, P, TableD>& table) noexcept {
  batch<T, B, N, D> out{};
  for (std::size_t b = 0; b < B.size; ++b) out.items[b] = add_positions(x.items[b], table);
  return out;
}

/// Shape error of add_positions(batch, table).
template <class T, extent B, extent N, extent D, extent P, extent TableD>
decltype(detail::first_failure<rules_of::add_positions<T, N, D, P, TableD>>::error()) add_positions(
    const batch<T, B, N, D>& x, const matrix<T, P, TableD>& table) noexcept;

}  // namespace cxmat

#if CXMAT_PLAIN_ERRORS
namespace cxmat::shape_error {
template <class TableCols, class XCols>
struct add_positions_table_width_must_equal_x_width {
  static_assert(false, detail::plain::must_equal_sentence<TableCols, XCols>(
                           "add_positions(x, table): ", "the table's columns", "x's columns",
                           " (x is n x d_model, the table max_positions x d_model)."));
};
template <class XRows, class TableRows>
struct add_positions_table_needs_a_row_per_position {
  static_assert(false, [] {
    detail::plain::sentence s;
    s.put("add_positions(x, table): the table's rows ");
    detail::plain::put_dim<TableRows>(s);
    s.put(" must be at least x's rows ");
    detail::plain::put_dim<XRows>(s);
    s.put(": row p of the table is added to row p of x, one row per position.");
    return s;
  }());
};
}  // namespace cxmat::shape_error
#endif
