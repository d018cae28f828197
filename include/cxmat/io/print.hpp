// Printing matrices and their shapes to a std::ostream (hosted builds only; the core headers
// never include this one).
#pragma once

#include <cstddef>
#include <ios>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/io/shape_text.hpp>

namespace cxmat {

/// Formatting of printed matrices: digits after the decimal point, or scientific notation.
struct print_options {
  int precision = 4;
  bool scientific = false;
};

/// The shape as text, with names when a dimension is named: "2 x 4 (n x d_model)" for a matrix,
/// "3 x 2 x 4 (B x n x d_model)" for a batch, "2 x 3" when nothing is named (see shape.hpp for
/// the compile-time form, shape_text).
template <class M>
  requires Matrix<M> || Batch<M>
std::string shape_of(const M& /*unused*/) {
  return std::string(shape_text<std::remove_cvref_t<M>>());
}

/// Writes m row by row, numpy style, right-aligned in columns:
///   [[ 7.      8.      9.    ]
///    [15.8    18.4    21.    ]]
template <class T, extent R, extent C>
std::ostream& print_values(std::ostream& os, const matrix<T, R, C>& m, print_options opt = {}) {
  std::string cells[R.size][C.size];
  std::size_t width = 0;
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) {
      std::ostringstream cell;
      if (opt.scientific) {
        cell << std::scientific;
      } else {
        cell << std::fixed;
      }
      cell.precision(opt.precision);
      cell << m(i, j);
      cells[i][j] = cell.str();
      width = cells[i][j].size() > width ? cells[i][j].size() : width;
    }
  }
  for (std::size_t i = 0; i < R.size; ++i) {
    os << (i == 0 ? "[[" : " [");
    for (std::size_t j = 0; j < C.size; ++j) {
      if (j != 0) os << ' ';
      os << std::string(width - cells[i][j].size(), ' ') << cells[i][j];
    }
    os << (i + 1 == R.size ? "]]" : "]") << '\n';
  }
  return os;
}

/// Writes "label (shape):" and the values: how the examples show each step.
template <class T, extent R, extent C>
std::ostream& print(std::ostream& os, const char* label, const matrix<T, R, C>& m, print_options opt = {}) {
  os << label << " (" << shape_of(m) << "):\n";
  return print_values(os, m, opt);
}

/// Writes a batch matrix by matrix, each under "label[b]".
template <class T, extent B, extent R, extent C>
std::ostream& print(std::ostream& os, const char* label, const batch<T, B, R, C>& x, print_options opt = {}) {
  os << label << " (" << shape_of(x) << "):\n";
  for (std::size_t b = 0; b < B.size; ++b) {
    os << label << '[' << b << "]:\n";
    print_values(os, x[b], opt);
  }
  return os;
}

/// `std::cout << m` writes the values as print_values does.
template <class T, extent R, extent C>
std::ostream& operator<<(std::ostream& os, const matrix<T, R, C>& m) {
  return print_values(os, m);
}

}  // namespace cxmat
