// The shape rules of cxmat's operations, one named concept each. Functions state their rules
// with these names, so a rejected call is reported by the rule it broke ("because
// 'InnerExtentsMatch<...>' evaluated to false") and can be tested with
// `static_assert(!requires { matmul(a, b); })`.
#pragma once

#include <cstddef>

#include <cxmat/extent.hpp>

namespace cxmat {

/// matmul(a, b): a.cols must equal b.rows (sizes, and names where both are named).
template <auto ACols, auto BRows>
concept InnerExtentsMatch = compatible_extents<ACols, BRows>;

/// Elementwise a + b, a - b, a == b: same rows and same columns.
template <auto ARows, auto ACols, auto BRows, auto BCols>
concept SameShape = compatible_extents<ARows, BRows> && compatible_extents<ACols, BCols>;

/// hconcat(a, b, ...): every operand has the same number of rows.
template <auto First, auto... Rest>
concept RowsMatch = (compatible_extents<First, Rest> && ...);

/// vconcat(a, b, ...): every operand has the same number of columns.
template <auto First, auto... Rest>
concept ColumnsMatch = (compatible_extents<First, Rest> && ...);

/// split_columns<H>(m), column_block<I, H>(m): H divides the number of columns, I < H.
template <auto Cols, std::size_t H>
concept ColumnsDivideInto = (H > 0) && (Cols.size % H == 0);

/// attention: queries and keys have the same width d_k.
template <auto QCols, auto KCols>
concept QueryKeyWidthsMatch = compatible_extents<QCols, KCols>;

/// attention: keys and values have the same length S (one value row per key row).
template <auto KRows, auto VRows>
concept KeyValueLengthsMatch = compatible_extents<KRows, VRows>;

/// projections: X's width d_model equals the rows of the projection matrix.
template <auto XCols, auto WRows>
concept ProjectionFitsInput = compatible_extents<XCols, WRows>;

}  // namespace cxmat

namespace cxmat {

/// multi-head attention: the number of heads H divides a projection width (H·d_k or H·d_v).
template <auto Width, std::size_t H>
concept HeadsDivideWidth = (H > 0) && (Width.size % H == 0);

/// multi-head attention: W_o has one row per concatenated head column (H·d_v).
template <auto ConcatCols, auto WoRows>
concept OutputProjectionFitsHeads = compatible_extents<ConcatCols, WoRows>;

}  // namespace cxmat
