// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Printing matrices and batches to a std::ostream as numpy prints arrays, with their shapes and
// dimension names, and as Markdown or LaTeX tables for slides (hosted builds only; the core
// headers never include this one).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <cxmat/attention/result.hpp>
#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/io/labels.hpp>
#include <cxmat/io/number_format.hpp>
#include <cxmat/io/shape_text.hpp>

namespace cxmat {

/// The name of the head axis, "H": the first axis of H x L x S attention weights.
struct head_axis_dim {
  static constexpr const char* name = "H";
};

/// The extent of H heads, named "H": `batch<double, heads_v<3>, n, n>` prints as
/// "3 x 5 x 5 (H x n x n)".
template <std::size_t H>
inline constexpr extent<head_axis_dim> heads_v{H};

/// The same B x R x C values with the first axis named H (heads), so that printing shows
/// "H x n x n" and "weights[H=1]" instead of a bare count.
template <class T, extent B, extent R, extent C>
constexpr batch<T, heads_v<B.size>, R, C> as_heads(const batch<T, B, R, C>& x) noexcept {
  batch<T, heads_v<B.size>, R, C> out{};
  for (std::size_t b = 0; b < B.size; ++b) out.items[b] = x.items[b];
  return out;
}

/// The shape as text, with names when a dimension is named: "2 x 4 (n x d_model)" for a matrix,
/// "3 x 2 x 4 (B x n x d_model)" for a batch, "2 x 3" when nothing is named (see shape_text.hpp
/// for the compile-time form).
template <class M>
requires Matrix<M> || Batch<M> std::string shape_of(const M& /*unused*/) {
  return std::string(shape_text<std::remove_cvref_t<M>>());
}

namespace detail {

// Joins pieces of text by appending (GCC 12 warns falsely, -Wrestrict, on `"a" + std::string`).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (out.append(std::string_view(parts)), ...);
  return out;
}

template <class T, extent R, extent C>
void add_to(array_formatter<T>& f, const matrix<T, R, C>& m) {
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) f.add(m.elems[i][j]);
  }
}

// numpy's _formatArray, for 1 to 3 axes: each level of nesting adds one space to the hanging
// indent and takes one column off the width; a row wraps before a word that would pass the
// width (less one column for the closing bracket), unless the line holds no word yet.
// `width` 0 means no wrapping.
template <class T>
std::string format_row(array_formatter<T>& f, const T* row, std::size_t cols, const std::string& hanging,
                       std::size_t width, bool wrap) {
  const std::size_t elem_width = width > 0 ? width - 1 : 0;
  std::string s, line = hanging;
  for (std::size_t j = 0; j < cols; ++j) {
    const std::string word = f.format(row[j]);
    if (wrap && line.size() + word.size() > elem_width && line.size() > hanging.size()) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      s += line;
      s += '\n';
      line = hanging;
    }
    line += word;
    if (j + 1 != cols) line += ' ';
  }
  s += line;
  return cat("[", std::string_view(s).substr(hanging.size()), "]");
}

template <class T, extent R, extent C>
std::string format_matrix(array_formatter<T>& f, const matrix<T, R, C>& m, const std::string& hanging,
                          std::size_t width, bool wrap) {
  const std::string next = cat(hanging, " ");
  std::string s;
  for (std::size_t i = 0; i < R.size; ++i) {
    s += hanging;
    s += format_row(f, m.elems[i], C.size, next, width - 1, wrap);
    if (i + 1 != R.size) s += '\n';
  }
  return cat("[", std::string_view(s).substr(hanging.size()), "]");
}

template <class T, extent B, extent R, extent C>
std::string format_batch(array_formatter<T>& f, const batch<T, B, R, C>& x, std::size_t width, bool wrap) {
  std::string s;
  for (std::size_t b = 0; b < B.size; ++b) {
    s += ' ';
    s += format_matrix(f, x.items[b], "  ", width - 1, wrap);
    if (b + 1 != B.size) s += "\n\n";
  }
  return cat("[", std::string_view(s).substr(1), "]");
}

inline std::size_t line_width_of(const print_options& opt) {
  return opt.line_width > 3 ? static_cast<std::size_t>(opt.line_width) : 3;
}

// The number of head h (an index) as printed: h + first_head_number.
inline std::string head_number(std::size_t h, std::size_t first_head_number) {
  return std::to_string(h + first_head_number);
}

// "[H=1]" for a named batch axis, "[1]" for a plain one; an axis of heads (named H) is numbered
// from first_head_number, any other axis from 0.
template <auto B>
std::string batch_index_text(std::size_t b, std::size_t first_head_number = 0) {
  const std::string_view name = extent_name<B>();
  const std::size_t first = name == head_axis_dim::name ? first_head_number : 0;
  return cat("[", name, name.empty() ? "" : "=", head_number(b, first), "]");
}

}  // namespace detail

/// Writes m as numpy's print(m) does: one notation and one column width for all elements,
/// shortest round-trip digits up to `precision`, integral values as `7.`, scientific notation
/// when magnitudes call for it (1e300 prints as `1.e+300`, not 301 digits), each row on one
/// line (or wrapped at `line_width` columns as numpy does, when line_width is set):
///   [[ 7.   8.   9. ]
///    [15.8 18.4 21. ]]
/// Ends with a newline.
template <class T, extent R, extent C>
std::ostream& print_values(std::ostream& os, const matrix<T, R, C>& m, print_options opt = {}) {
  array_formatter<T> f(opt);
  detail::add_to(f, m);
  return os << detail::format_matrix(f, m, " ", detail::line_width_of(opt), opt.line_width > 0) << '\n';
}

/// Writes a B x R x C batch as numpy prints a 3-d array: the matrices one after another,
/// separated by a blank line, all elements in one format. Ends with a newline.
template <class T, extent B, extent R, extent C>
std::ostream& print_values(std::ostream& os, const batch<T, B, R, C>& x, print_options opt = {}) {
  array_formatter<T> f(opt);
  for (std::size_t b = 0; b < B.size; ++b) detail::add_to(f, x.items[b]);
  return os << detail::format_batch(f, x, detail::line_width_of(opt), opt.line_width > 0) << '\n';
}

/// m as text, as print_values writes it (with the final newline).
template <class M>
requires Matrix<M> || Batch<M> std::string to_string(const M& m, print_options opt = {}) {
  std::ostringstream os;
  print_values(os, m, opt);
  return os.str();
}

/// Writes "label (shape):" and the values: how the examples show each step.
///   Q (2 x 3 (n x d_k)):
///   [[ 7.   8.   9. ]
///    [15.8 18.4 21. ]]
template <class T, extent R, extent C>
std::ostream& print(std::ostream& os, std::string_view label, const matrix<T, R, C>& m, print_options opt = {}) {
  os << label << " (" << shape_of(m) << "):\n";
  return print_values(os, m, opt);
}

/// Writes a batch under "label (shape):", matrix by matrix, each under "label[H=0] (shape):"
/// (the batch axis's name, or "label[0]" when it has none; heads are numbered from
/// opt.first_head_number). All matrices share one format, so their columns line up and a value
/// in one reads like the same value in another.
template <class T, extent B, extent R, extent C>
std::ostream& print(std::ostream& os, std::string_view label, const batch<T, B, R, C>& x, print_options opt = {}) {
  os << label << " (" << shape_of(x) << "):\n";
  array_formatter<T> f(opt);
  for (std::size_t b = 0; b < B.size; ++b) detail::add_to(f, x.items[b]);
  for (std::size_t b = 0; b < B.size; ++b) {
    os << label << detail::batch_index_text<B>(b, opt.first_head_number) << " (" << shape_of(x.items[b]) << "):\n"
       << detail::format_matrix(f, x.items[b], " ", detail::line_width_of(opt), opt.line_width > 0) << '\n';
  }
  return os;
}

/// Writes an attention result (from the *_with_weights functions): "label: output" and
/// "label: weights", the weights' first axis named H.
template <class T, extent L, extent W, extent H, extent WL, extent S>
std::ostream& print(std::ostream& os, std::string_view label,
                    const attention_result<matrix<T, L, W>, batch<T, H, WL, S>>& r, print_options opt = {}) {
  print(os, detail::cat(label, ": output"), r.output, opt);
  return print(os, detail::cat(label, ": weights"), as_heads(r.weights), opt);
}

/// `std::cout << m` writes the values as print_values does.
template <class T, extent R, extent C>
std::ostream& operator<<(std::ostream& os, const matrix<T, R, C>& m) {
  return print_values(os, m);
}

/// `std::cout << x` writes a batch as print_values does.
template <class T, extent B, extent R, extent C>
std::ostream& operator<<(std::ostream& os, const batch<T, B, R, C>& x) {
  return print_values(os, x);
}

// ---------------------------------------------------------------------------------------------
// Tables for slides.
// ---------------------------------------------------------------------------------------------

/// Labels and number format of a table. Without column labels the header shows column
/// indices; without row labels there is no label column. Labels are one per row (column) or
/// none: another count is reported before the table (print_markdown: a line and a blank line;
/// print_latex: a % comment), and the rows (columns) are numbered instead.
struct table_options {
  print_options numbers{};
  std::vector<std::string> row_labels{};
  std::vector<std::string> col_labels{};
};

namespace detail {

template <class T, extent R, extent C>
std::vector<std::vector<std::string>> compact_cells(const matrix<T, R, C>& m, const print_options& opt) {
  array_formatter<T> f(opt);
  add_to(f, m);
  std::vector<std::vector<std::string>> cells(R.size, std::vector<std::string>(C.size));
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) cells[i][j] = f.format_compact(m.elems[i][j]);
  }
  return cells;
}

inline std::string label_or_index(const std::vector<std::string>& labels, std::size_t i) {
  return i < labels.size() ? labels[i] : std::to_string(i);
}

// "1.5e-14" -> "1.5 \times 10^{-14}", "inf" -> "\infty": a number as LaTeX math.
inline std::string latex_number(const std::string& text) {
  if (text == "nan") return "\\mathrm{nan}";
  if (text == "inf") return "\\infty";
  if (text == "-inf") return "-\\infty";
  const auto e = text.find('e');
  if (e == std::string::npos) return text;
  std::string exponent = text.substr(e + 1);
  if (exponent[0] == '+') exponent.erase(0, 1);
  const bool negative = exponent[0] == '-';
  if (negative) exponent.erase(0, 1);
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return cat(text.substr(0, e), " \\times 10^{", negative ? "-" : "", exponent, "}");
}

// Escapes the characters LaTeX treats specially in text (labels such as d_k or x_0).
inline std::string latex_text(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '_':
      case '&':
      case '%':
      case '$':
      case '#':
      case '{':
      case '}':
        out += '\\';
        out += c;
        break;
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '^':
        out += "\\^{}";
        break;
      case '~':
        out += "\\~{}";
        break;
      default:
        out += c;
    }
  }
  return out;
}

inline std::string pad_left(const std::string& s, std::size_t width) {
  return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

}  // namespace detail

/// Writes m as a Markdown (GitHub) table, numbers right-aligned, formatted as print_values
/// formats them but without padding or a bare trailing point ("7", "15.8", "1.e-14" -> "1e-14"):
///   |  0 |  1 |
///   |---:|---:|
///   |  7 |  8 |
template <class T, extent R, extent C>
std::ostream& print_markdown(std::ostream& os, const matrix<T, R, C>& m, const table_options& opt = {}) {
  const auto cells = detail::compact_cells(m, opt.numbers);
  std::string error;
  const auto rows = detail::labels_for_axis(opt.row_labels, R.size, "print_markdown", "row", error);
  const auto cols = detail::labels_for_axis(opt.col_labels, C.size, "print_markdown", "column", error);
  if (!error.empty()) os << error << '\n';  // a paragraph of its own, not the table's header
  const bool row_labels = !opt.row_labels.empty();
  std::size_t label_width = 1;
  for (std::size_t i = 0; row_labels && i < R.size; ++i) {
    label_width = std::max(label_width, detail::label_or_index(rows, i).size());
  }
  std::vector<std::size_t> width(C.size, 3);
  for (std::size_t j = 0; j < C.size; ++j) {
    width[j] = std::max(width[j], detail::label_or_index(cols, j).size());
    for (std::size_t i = 0; i < R.size; ++i) width[j] = std::max(width[j], cells[i][j].size());
  }
  if (row_labels) os << "| " << std::string(label_width, ' ') << ' ';
  for (std::size_t j = 0; j < C.size; ++j)
    os << "| " << detail::pad_left(detail::label_or_index(cols, j), width[j]) << ' ';
  os << "|\n";
  if (row_labels) os << "|:" << std::string(label_width + 1, '-');
  for (std::size_t j = 0; j < C.size; ++j) os << '|' << std::string(width[j] + 1, '-') << ':';
  os << "|\n";
  for (std::size_t i = 0; i < R.size; ++i) {
    if (row_labels) {
      const std::string label = detail::label_or_index(rows, i);
      os << "| " << label << std::string(label_width - label.size(), ' ') << ' ';
    }
    for (std::size_t j = 0; j < C.size; ++j) os << "| " << detail::pad_left(cells[i][j], width[j]) << ' ';
    os << "|\n";
  }
  return os;
}

/// The LaTeX forms of a matrix: a bmatrix or pmatrix (amsmath, math mode) or a tabular with
/// row and column labels (text mode; numbers in $...$ where they need math).
enum class latex_style { bmatrix, pmatrix, tabular };

/// Writes m as LaTeX. Scientific values become `1.5 \times 10^{-14}`, infinities `\infty`;
/// labels are escaped (d_k becomes d\_k).
template <class T, extent R, extent C>
std::ostream& print_latex(std::ostream& os, const matrix<T, R, C>& m, latex_style style = latex_style::bmatrix,
                          const table_options& opt = {}) {
  const auto cells = detail::compact_cells(m, opt.numbers);
  if (style != latex_style::tabular) {
    const char* env = style == latex_style::bmatrix ? "bmatrix" : "pmatrix";
    os << "\\begin{" << env << "}\n";
    for (std::size_t i = 0; i < R.size; ++i) {
      os << "  ";
      for (std::size_t j = 0; j < C.size; ++j) os << (j != 0 ? " & " : "") << detail::latex_number(cells[i][j]);
      os << (i + 1 != R.size ? " \\\\\n" : "\n");
    }
    return os << "\\end{" << env << "}\n";
  }
  std::string error;
  const auto rows = detail::labels_for_axis(opt.row_labels, R.size, "print_latex", "row", error);
  const auto cols = detail::labels_for_axis(opt.col_labels, C.size, "print_latex", "column", error);
  for (std::size_t at = 0, end = 0; (end = error.find('\n', at)) != std::string::npos; at = end + 1) {
    os << "% " << std::string_view(error).substr(at, end + 1 - at);
  }
  const bool row_labels = !opt.row_labels.empty();
  os << "\\begin{tabular}{" << (row_labels ? "l|" : "") << std::string(C.size, 'r') << "}\n  ";
  if (row_labels) os << " & ";
  for (std::size_t j = 0; j < C.size; ++j) {
    os << (j != 0 ? " & " : "") << detail::latex_text(detail::label_or_index(cols, j));
  }
  os << " \\\\\n  \\hline\n";
  for (std::size_t i = 0; i < R.size; ++i) {
    os << "  ";
    if (row_labels) os << detail::latex_text(detail::label_or_index(rows, i)) << " & ";
    for (std::size_t j = 0; j < C.size; ++j) {
      const std::string number = detail::latex_number(cells[i][j]);
      const bool math = number.find('\\') != std::string::npos;
      os << (j != 0 ? " & " : "") << (math ? detail::cat("$", number, "$") : number);
    }
    os << " \\\\\n";
  }
  return os << "\\end{tabular}\n";
}

}  // namespace cxmat
