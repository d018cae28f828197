// Mistake: A learned position table with fewer positions than the sequence has tokens.
// Rule: add_positions(x, table) adds row p of the table to row p of x: the table needs a row per position.
// Expect: shape_error::add_positions_table_needs_a_row_per_position
// Expect-plain: static assertion failed: add_positions\(x, table\): the table's rows \(2\) must be at least x's rows \(4\)
#include <cxmat/transformer/positions.hpp>

constexpr auto x = cxmat::filled<double, 4, 3>(1.0);
#ifdef CXMAT_COMPILE_FAIL
constexpr auto table = cxmat::filled<double, 2, 3>(0.25);
#else
constexpr auto table = cxmat::filled<double, 8, 3>(0.25);
static_assert(cxmat::add_positions(x, table)(3, 2) == 1.25);
#endif
constexpr auto y = cxmat::add_positions(x, table);
#ifndef CXMAT_COMPILE_FAIL
static_assert(y(0, 0) == 1.25);
#endif
