// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The shape rules of cxmat's operations: one named concept per rule, and next to it the
// *shape error* that a call breaking the rule reports.
//
// How a shape mistake is reported. Every public function comes as a pair of overloads with the
// same parameters: the real one, constrained by the rule, and an error overload, viable exactly
// when the rule is broken, that is declared but never defined and returns a class template that
// is declared but never defined, named after the rule and holding the sizes and names involved:
//
//   error: invalid use of incomplete type 'struct cxmat::shape_error::matmul_a_cols_must_equal_b_rows<
//          cxmat::dim<2, n_dim>, cxmat::dim<2, d_k_dim>, cxmat::dim<2, n_dim>, cxmat::dim<2, d_k_dim> >'
//                                                                                  (g++)
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
// One definition per rule. A rule is a concept (the predicate) bound once to the shape error it
// reports, in namespace `cxmat::rule`; each operation has one rule list in `cxmat::rules_of`
// (core and ops here, attention in attention/rules.hpp). Both overloads of a function derive from
// that list: the real one `requires rules_hold<rules_of::op<...>>`, the error overload returns
// `decltype(detail::first_failure<rules_of::op<...>>::error())`, which exists only when a rule of
// the list is broken and then names the first one. Adding a rule or an operation: CONTRIBUTING.md.
#pragma once

#include <cstddef>
#include <type_traits>

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

/// softmax and attention compute with real numbers: floating point, or a user-defined scalar
/// (fixed point, found by ADL). Integers would truncate the weights; int8 has cxmat::q8.
template <class T>
concept RealElement = !std::is_integral_v<T>;

/// batched operations: the operands hold the same number of matrices B (and agree on its name).
template <auto B1, auto B2>
concept BatchSizesMatch = compatible_extents<B1, B2>;

/// The errors a broken rule reports, one class template per rule, never defined. Arguments are
/// dimension types `dim<size, name tag>` (unnamed sizes have the tag `cxmat::anonymous`) or plain
/// numbers. The compiler quotes the `struct` line under the error, so its comment is a hint.
namespace shape_error {
template <class ARows, class ACols, class BRows, class BCols>
struct matmul_a_cols_must_equal_b_rows;  // a is R x K, b is K x C. Q·Kᵀ: matmul(Q, transpose(K)); X·W: W is d_model x d
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
template <std::size_t Picked, class Rows>
struct select_rows_index_must_be_below_rows;  // select_rows<I...>(m): every I is a row of m, 0 .. rows-1
template <class Rows>
struct select_rows_needs_at_least_one_index;  // select_rows<I...>(m): name the rows to keep, e.g. select_rows<0, 2>(m)
template <class Rows, std::size_t... P>
struct permute_rows_needs_each_row_exactly_once;  // permute_rows<P...>(m): P is 0 .. rows-1 in some order, each once
template <class T>
struct softmax_and_attention_need_real_elements;  // integers wrap and truncate: use cxmat::q8 (cxmat/quantized.hpp) for
                                                  // int8
template <class T>
struct arithmetic_needs_numbers_not_bool;  // bool matrices are masks: pass them to mask(m) / key_padding(k)
}  // namespace shape_error

namespace detail {

/// One rule, bound to the error it reports: `Ok` is the rule's concept, `Error` its shape error.
template <bool Ok, class Error>
struct check {};

/// The rules of one operation, in the order they are reported.
template <class... Checks>
struct rule_list {};

template <class List>
inline constexpr bool holds_v = false;
template <bool... Ok, class... Errors>
inline constexpr bool holds_v<rule_list<check<Ok, Errors>...>> = (Ok && ...);

// Several rule lists as one, in order: an operation built from others reuses their lists.
template <class... Lists>
struct join_lists;
template <>
struct join_lists<> {
  using type = rule_list<>;
};
template <class... C>
struct join_lists<rule_list<C...>> {
  using type = rule_list<C...>;
};
template <class... C1, class... C2, class... Rest>
struct join_lists<rule_list<C1...>, rule_list<C2...>, Rest...> : join_lists<rule_list<C1..., C2...>, Rest...> {};
template <class... Lists>
using join_t = typename join_lists<Lists...>::type;

// `decltype(first_failure<List>::error())` is the error of the first rule of List that fails.
// With no failing rule there is no error(), so an error overload with that return type drops out
// when every rule holds, and a compiler explaining why says so in one line. (decltype of a call,
// not a member typedef or an alias, because GCC prints those as written rather than the error
// type they name.)
template <class... Checks>
struct first_failure {};
template <class Error, class... Rest>
struct first_failure<check<false, Error>, Rest...> {
  static Error error() noexcept;
};
template <class Error, class... Rest>
struct first_failure<check<true, Error>, Rest...> : first_failure<Rest...> {};
template <class... Checks>
struct first_failure<rule_list<Checks...>> : first_failure<Checks...> {};

template <std::size_t... P>
constexpr bool is_permutation() noexcept {
  constexpr std::size_t count = sizeof...(P);
  constexpr std::size_t picks[] = {P...};
  for (std::size_t value = 0; value < count; ++value) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < count; ++i) seen += (picks[i] == value) ? 1U : 0U;
    if (seen != 1) return false;
  }
  return true;
}

// The first index of I... that is not below `rows` (or rows itself if every one is).
template <std::size_t Rows, std::size_t... I>
constexpr std::size_t first_out_of_range() noexcept {
  std::size_t found = Rows;
  ((found = (found == Rows && I >= Rows) ? I : found), ...);
  return found;
}

}  // namespace detail

/// Every rule of a rule list holds (see rules_of).
template <class List>
concept rules_hold = detail::holds_v<List>;

/// The rules, each bound once to its shape error. Arguments as in the concepts above.
namespace rule {
// The error names both operands' shapes, so that its hint can tell a transposed or swapped
// operand (see core/plain_errors.hpp).
template <auto ARows, auto ACols, auto BRows, auto BCols>
using matmul_inner =
    detail::check<InnerExtentsMatch<ACols, BRows>, shape_error::matmul_a_cols_must_equal_b_rows<
                                                       dim_of<ARows>, dim_of<ACols>, dim_of<BRows>, dim_of<BCols>>>;
template <auto R1, auto C1, auto R2, auto C2>
using same_shape =
    detail::check<SameShape<R1, C1, R2, C2>,
                  shape_error::elementwise_shapes_must_match<dim_of<R1>, dim_of<C1>, dim_of<R2>, dim_of<C2>>>;
template <auto First, auto... Rest>
using hconcat_rows =
    detail::check<RowsMatch<First, Rest...>, shape_error::hconcat_rows_must_match<dim_of<First>, dim_of<Rest>...>>;
template <auto First, auto... Rest>
using vconcat_cols =
    detail::check<ColumnsMatch<First, Rest...>, shape_error::vconcat_cols_must_match<dim_of<First>, dim_of<Rest>...>>;
template <auto Cols, std::size_t H>
using columns_divide =
    detail::check<ColumnsDivideInto<Cols, H>, shape_error::split_columns_h_must_divide_cols<H, dim_of<Cols>>>;
template <std::size_t I, std::size_t H>
using block_index = detail::check<BlockIndexInRange<I, H>, shape_error::column_block_index_must_be_below_h<I, H>>;
template <auto R, auto C, auto R2, auto C2>
using keeps_sizes_and_names =
    detail::check<SameShape<R, C, R2, C2>,
                  shape_error::with_dims_must_keep_sizes_and_names<dim_of<R>, dim_of<C>, dim_of<R2>, dim_of<C2>>>;
template <auto Rows, std::size_t... I>
using rows_selected =
    detail::check<(sizeof...(I) > 0), shape_error::select_rows_needs_at_least_one_index<dim_of<Rows>>>;
template <auto Rows, std::size_t... I>
using rows_in_range =
    detail::check<((I < Rows.size) && ...), shape_error::select_rows_index_must_be_below_rows<
                                                detail::first_out_of_range<Rows.size, I...>(), dim_of<Rows>>>;
template <auto Rows, std::size_t... P>
using rows_permuted = detail::check<sizeof...(P) == Rows.size && detail::is_permutation<P...>(),
                                    shape_error::permute_rows_needs_each_row_exactly_once<dim_of<Rows>, P...>>;
template <auto B1, auto B2>
using batch_sizes = detail::check<BatchSizesMatch<B1, B2>, shape_error::batch_sizes_must_match<dim_of<B1>, dim_of<B2>>>;
template <class T>
using real_elements = detail::check<RealElement<T>, shape_error::softmax_and_attention_need_real_elements<T>>;
template <class T>
using numeric_elements = detail::check<!std::is_same_v<T, bool>, shape_error::arithmetic_needs_numbers_not_bool<T>>;
}  // namespace rule

/// The rule list of each operation of the core and ops layers (attention: attention/rules.hpp).
namespace rules_of {
template <class T, auto R, auto K1, auto K2, auto C>
using matmul = detail::rule_list<rule::numeric_elements<T>, rule::matmul_inner<R, K1, K2, C>>;
template <class T, auto R1, auto C1, auto R2, auto C2>
using elementwise = detail::rule_list<rule::numeric_elements<T>, rule::same_shape<R1, C1, R2, C2>>;
template <auto R1, auto C1, auto R2, auto C2>
using compare = detail::rule_list<rule::same_shape<R1, C1, R2, C2>>;
template <auto First, auto... Rest>
using hconcat = detail::rule_list<rule::hconcat_rows<First, Rest...>>;
template <auto First, auto... Rest>
using vconcat = detail::rule_list<rule::vconcat_cols<First, Rest...>>;
template <auto Cols, std::size_t H>
using split_columns = detail::rule_list<rule::columns_divide<Cols, H>>;
template <auto Cols, std::size_t I, std::size_t H>
using column_block = detail::rule_list<rule::columns_divide<Cols, H>, rule::block_index<I, H>>;
template <auto R, auto C, auto R2, auto C2>
using with_dims = detail::rule_list<rule::keeps_sizes_and_names<R, C, R2, C2>>;
template <auto Rows, std::size_t... I>
using select_rows = detail::rule_list<rule::rows_selected<Rows, I...>, rule::rows_in_range<Rows, I...>>;
template <auto Rows, std::size_t... P>
using permute_rows = detail::rule_list<rule::rows_permuted<Rows, P...>>;
template <class T>
using softmax_rows = detail::rule_list<rule::real_elements<T>>;
template <auto B1, auto R1, auto C1, auto B2, auto R2, auto C2>
using batch_compare = detail::rule_list<rule::batch_sizes<B1, B2>, rule::same_shape<R1, C1, R2, C2>>;
}  // namespace rules_of

}  // namespace cxmat

#include <cxmat/core/plain_errors.hpp>
