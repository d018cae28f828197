// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Labels of the rows and columns of a printed matrix (the tokens of attention weights): one label
// per row (column), or none. A list whose length is part of its type (std::array, a C array,
// std::span of fixed extent) is checked at compile time, as a shape rule with its shape error; a
// std::vector at run time, where a wrong count is reported in the output and the rows (columns)
// are numbered instead. Hosted builds only.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <cxmat/core/config.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/shape_rules.hpp>

namespace cxmat {

/// A list of labels: a std::vector<std::string>, or a list whose length is known at compile time
/// (std::array, a C array, std::span of fixed extent) of anything a std::string_view is made from
/// (const char*, std::string, std::string_view).
template <class L>
concept LabelList = requires(const L& labels) {
  std::size(labels);
  { *std::begin(labels) } -> std::convertible_to<std::string_view>;
};

namespace detail {

// The number of labels of a list whose length is in its type; unknown_label_count otherwise
// (a vector's length is only known at run time).
inline constexpr std::size_t unknown_label_count = static_cast<std::size_t>(-1);
template <class L>
inline constexpr std::size_t label_count_v = unknown_label_count;
template <class S, std::size_t N>
inline constexpr std::size_t label_count_v<std::array<S, N>> = N;
template <class S, std::size_t N>
inline constexpr std::size_t label_count_v<S[N]> = N;
template <class S, std::size_t N>
inline constexpr std::size_t label_count_v<std::span<S, N>> = N;  // dynamic_extent is unknown_label_count

}  // namespace detail

/// print_heatmap, write_svg_heatmap: a list of labels whose length is known at compile time has
/// one label per entry of its axis, or none.
template <class Labels, auto Axis>
concept LabelsFitAxis = detail::label_count_v<std::remove_cvref_t<Labels>>
== detail::unknown_label_count || detail::label_count_v<std::remove_cvref_t<Labels>> == 0 ||
    detail::label_count_v<std::remove_cvref_t<Labels>> == Axis.size;

namespace shape_error {
template <std::size_t Count, class Rows>
struct heatmap_row_labels_must_be_one_per_row;  // print_heatmap / write_svg_heatmap(w, row_labels, col_labels): one
                                                // label per row of w (a query), or none
template <std::size_t Count, class Cols>
struct heatmap_col_labels_must_be_one_per_column;  // print_heatmap / write_svg_heatmap(w, row_labels, col_labels): one
                                                   // label per column of w (a key), or none
}  // namespace shape_error

namespace rule {
template <class Labels, auto Rows>
using row_labels =
    detail::check<LabelsFitAxis<Labels, Rows>, shape_error::heatmap_row_labels_must_be_one_per_row<
                                                   detail::label_count_v<std::remove_cvref_t<Labels>>, dim_of<Rows>>>;
template <class Labels, auto Cols>
using col_labels =
    detail::check<LabelsFitAxis<Labels, Cols>, shape_error::heatmap_col_labels_must_be_one_per_column<
                                                   detail::label_count_v<std::remove_cvref_t<Labels>>, dim_of<Cols>>>;
}  // namespace rule

namespace rules_of {
// print_heatmap(os, label, w, row_labels, col_labels), write_svg_heatmap(os, w, row_labels,
// col_labels) for w with Rows x Cols (per head, for a batch).
template <class RowLabels, auto Rows, class ColLabels, auto Cols>
using heatmap_labels = detail::rule_list<rule::row_labels<RowLabels, Rows>, rule::col_labels<ColLabels, Cols>>;
}  // namespace rules_of

namespace detail {

template <LabelList L>
std::vector<std::string> label_strings(const L& labels) {
  std::vector<std::string> out;
  for (const auto& label : labels) out.emplace_back(std::string_view(label));
  return out;
}

// The labels of an axis of `count` entries, or none when their number is not `count`: then
// `error` is the sentence that says so (for the output, before the picture), so that a missing
// label never leaves the last rows numbered among labelled ones without a word. "where" names the
// picture ("w", "write_svg_heatmap"), "axis" the entries ("row", "column").
inline std::vector<std::string> labels_for_axis(std::vector<std::string> labels, std::size_t count,
                                                std::string_view where, const char* axis, std::string& error) {
  if (labels.empty() || labels.size() == count) return labels;
  error += std::string(where);
  error += ": error: ";
  error += std::to_string(labels.size());
  error += ' ';
  error += axis;
  error += labels.size() == 1 ? " label for " : " labels for ";
  error += std::to_string(count);
  error += ' ';
  error += axis;
  error += "s; one label per ";
  error += axis;
  error += " (or none): the ";
  error += axis;
  error += "s are numbered instead\n";
  return {};
}

}  // namespace detail

}  // namespace cxmat

#if CXMAT_PLAIN_ERRORS
#include <cxmat/core/plain_errors.hpp>

namespace cxmat::detail::plain {

template <std::size_t Count, class Axis>
constexpr sentence label_count(const char* axis, const char* query_or_key) noexcept {
  sentence s;
  s.put("print_heatmap / write_svg_heatmap: ").put(Count).put(' ').put(axis).put(Count == 1 ? " label" : " labels");
  s.put(" for the weights' ").put(axis).put("s ");
  put_dim<Axis>(s);
  s.put(": give one label per ").put(axis).put(" (a ").put(query_or_key).put("'s token), or none.");
  return s;
}

}  // namespace cxmat::detail::plain

namespace cxmat::shape_error {
template <std::size_t Count, class Rows>
struct heatmap_row_labels_must_be_one_per_row {
  static_assert(false, detail::plain::label_count<Count, Rows>("row", "query"));
};
template <std::size_t Count, class Cols>
struct heatmap_col_labels_must_be_one_per_column {
  static_assert(false, detail::plain::label_count<Count, Cols>("column", "key"));
};
}  // namespace cxmat::shape_error
#endif
