// The shape rules of cxmat's operations: one named concept per rule, and next to it the
// *shape error* that a call breaking the rule reports.
//
// How a shape mistake is reported. Every public function comes as a pair of overloads with the
// same parameters: the real one, constrained by the rule, and an error overload, viable exactly
// when the rule is broken, that is declared but never defined and returns a class template that
// is declared but never defined, named after the rule and holding the sizes and names involved:
//
//   error: invalid use of incomplete type 'struct cxmat::shape_error::matmul_a_cols_must_equal_b_rows<
//          cxmat::dim<2, d_k_dim>, cxmat::dim<2, n_dim> >'                       (g++)
//   error: implicit instantiation of undefined template 'cxmat::shape_error::matmul_a_cols_must_...'
//                                                                                  (clang++)
//
// so the first line of the compiler's output names the operation, the rule, the sizes and the
// names. Rejection stays testable in the language: in a template (a generic lambda will do), a
// call whose result type is incomplete is an invalid expression, so
// `[](const auto& a, const auto& b) { return !requires { matmul(a, b); }; }(Q, K)` is true.
// (Outside a template every invalid expression in a requires-expression is a hard error anyway.)
// One difference from plain constraints: `decltype(matmul(a, b))` names the error type instead of
// failing, so detect callability with a requires-expression, not with decltype.
//
// Adding a rule (e.g. masks: "the mask is L x S"): write the concept here over extents, declare
// `shape_error::<operation>_<rule><dim...>` next to it with a one-line comment (the compiler
// shows that line), constrain the function with the concept, and add an error overload with the
// same parameters returning `decltype(detail::first_failure<detail::check<Rule<...>, shape_error::...>>::error())`
// (see detail/diagnostics_attention.hpp). Then add a snippet and its twin to
// static_tests/compile_fail/ and regenerate docs/shape_errors.md.
#pragma once

#include <cstddef>

#include <cxmat/core/extent.hpp>

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

/// split_columns<H>(m), column_block<I, H>(m): H divides the number of columns.
template <auto Cols, std::size_t H>
concept ColumnsDivideInto = (H > 0) && (Cols.size % H == 0);

/// column_block<I, H>(m): the block index I is one of 0 .. H-1.
template <std::size_t I, std::size_t H>
concept BlockIndexInRange = (I < H);

/// attention: queries and keys have the same width d_k.
template <auto QCols, auto KCols>
concept QueryKeyWidthsMatch = compatible_extents<QCols, KCols>;

/// attention: keys and values have the same length S (one value row per key row).
template <auto KRows, auto VRows>
concept KeyValueLengthsMatch = compatible_extents<KRows, VRows>;

/// projections: X's width d_model equals the rows of the projection matrix.
template <auto XCols, auto WRows>
concept ProjectionFitsInput = compatible_extents<XCols, WRows>;

/// multi-head attention: the number of heads H divides a projection width (H·d_k or H·d_v).
template <auto Width, std::size_t H>
concept HeadsDivideWidth = (H > 0) && (Width.size % H == 0);

/// multi-head attention: W_o has one row per concatenated head column (H·d_v).
template <auto ConcatCols, auto WoRows>
concept OutputProjectionFitsHeads = compatible_extents<ConcatCols, WoRows>;

/// batched operations: the operands hold the same number of matrices B (and agree on its name).
template <auto B1, auto B2>
concept BatchSizesMatch = compatible_extents<B1, B2>;

/// The errors a broken rule reports, one class template per rule, never defined. Arguments are
/// dimension types `dim<size, name tag>` (unnamed sizes have the tag `cxmat::anonymous`) or plain
/// numbers. The compiler quotes the `struct` line under the error, so its comment is a hint.
namespace shape_error {
template <class ACols, class BRows>
struct matmul_a_cols_must_equal_b_rows;  // a is R x K, b is K x C. Q·Kᵀ is matmul(Q, transpose(K))
template <class ARows, class ACols, class BRows, class BCols>
struct elementwise_shapes_must_match;  // a + b, a - b, a == b: same rows, same cols (and names)
template <class... Rows>
struct hconcat_rows_must_match;  // hconcat puts blocks side by side: every block has the same rows
template <class... Cols>
struct vconcat_cols_must_match;  // vconcat stacks blocks: every block has the same cols
template <std::size_t H, class Cols>
struct split_columns_h_must_divide_cols;  // H equal column blocks need cols = H * (cols / H)
template <std::size_t I, std::size_t H>
struct column_block_index_must_be_below_h;  // column_block<I, H>: blocks are numbered 0 .. H-1
template <class QCols, class KCols>
struct attention_q_and_k_widths_must_match;  // Q is L x d_k, K is S x d_k. V passed as K?
template <class KRows, class VRows>
struct attention_k_and_v_lengths_must_match;  // K is S x d_k, V is S x d_v: one value row per key
template <class XCols, class WqRows>
struct projection_x_cols_must_equal_wq_rows;  // Q = X·Wq: X is n x d_model, Wq is d_model x d_k
template <class XCols, class WkRows>
struct projection_x_cols_must_equal_wk_rows;  // K = X·Wk: X is n x d_model, Wk is d_model x d_k
template <class XCols, class WvRows>
struct projection_x_cols_must_equal_wv_rows;  // V = X·Wv: X is n x d_model, Wv is d_model x d_v
template <class WqCols, class WkCols>
struct projection_wq_and_wk_widths_must_match;  // Q·Kᵀ needs one width d_k: Wq, Wk are d_model x d_k
template <std::size_t H, class QWidth>
struct multi_head_h_must_divide_q_width;  // Wq, Wk are d_model x (H·d_k): head h reads column block h
template <std::size_t H, class VWidth>
struct multi_head_h_must_divide_v_width;  // Wv is d_model x (H·d_v): head h reads column block h
template <class ConcatCols, class WoRows>
struct output_projection_wo_rows_must_equal_h_times_d_v;  // Concat(heads) is n x (H·d_v); Wo is (H·d_v) x d_out
template <class B1, class B2>
struct batch_sizes_must_match;  // batched operands hold the same number B of matrices (same name)
template <class Rows, class Cols, class NewRows, class NewCols>
struct with_dims_must_keep_sizes_and_names;  // with_dims<R, C>(m): same sizes; a name is added or dropped, not changed
}  // namespace shape_error

namespace detail {

/// One rule of an error overload: `Ok` is the rule's concept, `Error` the shape error it reports.
template <bool Ok, class Error>
struct check {};

// `decltype(first_failure<check<...>...>::error())` is the error of the first check whose rule
// fails. With no failing rule there is no error(), so an error overload with that return type
// drops out when every rule holds, and a compiler explaining why says so in one line. (decltype
// of a call, not a member typedef or an alias, because GCC prints those as written rather than
// the error type they name.)
template <class... Checks>
struct first_failure {};
template <class Error, class... Rest>
struct first_failure<check<false, Error>, Rest...> {
  static Error error() noexcept;
};
template <class Error, class... Rest>
struct first_failure<check<true, Error>, Rest...> : first_failure<Rest...> {};

}  // namespace detail

}  // namespace cxmat
