// Printing: exact expected strings. Every numpy-format string below is what numpy 1.24 prints
// for the same array (str(np.array(...)) with the stated np.printoptions), pasted by hand;
// tables and labels are checked against strings written out by hand.
#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include <boost/hana/tuple.hpp>

#include <cxmat/io/per_head.hpp>
#include <cxmat/io/print.hpp>

#include "test_support/catch.hpp"

namespace io_print_test {
CXMAT_DIM(n, 2);
CXMAT_DIM(d_k, 3);
}  // namespace io_print_test

namespace {

using cxmat::matrix;
using io_print_test::n, io_print_test::d_k;
constexpr double infinity = std::numeric_limits<double>::infinity();
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

template <class M>
std::string str(const M& m, cxmat::print_options opt = {}) {
  std::string s = cxmat::to_string(m, opt);
  s.pop_back();  // the final newline, which numpy's str() has not
  return s;
}

cxmat::print_options precision(int p) {
  cxmat::print_options o;
  o.precision = p;
  return o;
}

}  // namespace

TEST_CASE("numbers print as numpy prints them", "[io][print]") {
  SECTION("integral values keep a bare point, columns align at the point") {
    CHECK(str(matrix<double, 1, 1>{{{7}}}) == "[[7.]]");
    CHECK(str(matrix<double, 2, 3>{{{7, 8, 9}, {15.8, 18.4, 21}}}) == "[[ 7.   8.   9. ]\n [15.8 18.4 21. ]]");
    CHECK(str(matrix<double, 1, 1>{{{-0.5}}}) == "[[-0.5]]");
    CHECK(str(matrix<double, 1, 2>{{{0.0, -0.0}}}) == "[[ 0. -0.]]");
  }
  SECTION("huge and tiny magnitudes switch to scientific notation") {
    CHECK(str(matrix<double, 1, 2>{{{1e300, 4e-14}}}) == "[[1.e+300 4.e-014]]");
    CHECK(str(matrix<double, 2, 2>{{{1e-300, 1e300}, {5e-324, 1.7976931348623157e308}}}) ==
          "[[1.00000000e-300 1.00000000e+300]\n [4.94065646e-324 1.79769313e+308]]");
    CHECK(str(matrix<double, 1, 2>{{{123456.789, 0.001}}}) == "[[1.23456789e+05 1.00000000e-03]]");
    CHECK(str(matrix<double, 1, 2>{{{1e7, 0.5}}}) == "[[1.e+07 5.e-01]]");  // ratio > 1000
    CHECK(str(matrix<double, 1, 2>{{{1e-4, 1}}}) == "[[1.e-04 1.e+00]]");   // 1e-4 is not < 1e-4, but the ratio is
    CHECK(str(matrix<double, 1, 2>{{{0.00011, 0.1}}}) == "[[0.00011 0.1    ]]");
  }
  SECTION("nan and infinities, alone and among numbers") {
    CHECK(str(matrix<double, 1, 1>{{{not_a_number}}}) == "[[nan]]");
    CHECK(str(matrix<double, 1, 3>{{{not_a_number, infinity, -infinity}}}) == "[[ nan  inf -inf]]");
    CHECK(str(matrix<double, 1, 3>{{{7, -0.5, not_a_number}}}) == "[[ 7.  -0.5  nan]]");
    CHECK(str(matrix<double, 1, 2>{{{infinity, 1e-20}}}) == "[[   inf 1.e-20]]");
    CHECK(str(matrix<double, 1, 3>{{{-infinity, 1e10, 2.5}}}) == "[[   -inf 1.0e+10 2.5e+00]]");
    CHECK(str(matrix<double, 1, 4>{{{1.0 / 3, 2.0 / 3, 100, -infinity}}}) ==
          "[[  0.33333333   0.66666667 100.                 -inf]]");
  }
  SECTION("precision, suppress_small, fixed digits, forced notation") {
    const matrix<double, 2, 2> m{{{1.0 / 3, 2.0 / 3}, {1.5, -2}}};
    CHECK(str(m, precision(3)) == "[[ 0.333  0.667]\n [ 1.5   -2.   ]]");
    cxmat::print_options fixed = precision(3);
    fixed.fixed_digits = true;
    CHECK(str(m, fixed) == "[[ 0.333  0.667]\n [ 1.500 -2.000]]");
    cxmat::print_options suppress = precision(3);
    suppress.suppress_small = true;
    CHECK(str(matrix<double, 1, 2>{{{1e-5, 1}}}, suppress) == "[[0. 1.]]");
    CHECK(str(matrix<double, 1, 2>{{{1e9, 1}}}, suppress) == "[[1.e+09 1.e+00]]");  // >= 1e8 still switches
    cxmat::print_options two = precision(2);
    two.fixed_digits = true;
    CHECK(str(matrix<double, 1, 2>{{{1.5, 2.25}}}, two) == "[[1.50 2.25]]");
    cxmat::print_options sci;
    sci.notation = cxmat::float_notation::scientific;
    CHECK(str(matrix<double, 1, 2>{{{7, 0.25}}}, sci) == "[[7.0e+00 2.5e-01]]");
    cxmat::print_options pos;
    pos.notation = cxmat::float_notation::positional;
    CHECK(str(matrix<double, 1, 2>{{{1e-5, 1}}}, pos) == "[[0.00001 1.     ]]");
  }
  SECTION("a row is one line by default; wrapped at line_width, as numpy's linewidth, when asked") {
    // Unwrapped strings: numpy's with linewidth=2**20; wrapped ones: with linewidth=75 (or 30).
    matrix<double, 1, 12> sevenths{};
    for (std::size_t j = 0; j < 12; ++j) sevenths(0, j) = static_cast<double>(j + 1) / 7;
    CHECK(str(sevenths) ==
          "[[0.14285714 0.28571429 0.42857143 0.57142857 0.71428571 0.85714286 "
          "1.         1.14285714 1.28571429 1.42857143 1.57142857 1.71428571]]");
    // A 4 x 8 matrix whose rows are 89 columns wide: 4 lines (numpy's linewidth=75 makes 8).
    matrix<double, 4, 8> wide{};
    for (std::size_t i = 0; i < 4; ++i) {
      for (std::size_t j = 0; j < 8; ++j) wide(i, j) = static_cast<double>(8 * i + j + 1) / 7;
    }
    const std::string four = str(wide);
    CHECK(std::count(four.begin(), four.end(), '\n') == 3);
    CHECK(four.substr(0, four.find('\n')) ==
          "[[0.14285714 0.28571429 0.42857143 0.57142857 0.71428571 0.85714286 1.         1.14285714]");
    cxmat::print_options numpy;
    numpy.line_width = 75;  // numpy's default linewidth
    CHECK(str(sevenths, numpy) ==
          "[[0.14285714 0.28571429 0.42857143 0.57142857 0.71428571 0.85714286\n"
          "  1.         1.14285714 1.28571429 1.42857143 1.57142857 1.71428571]]");
    const std::string eight = str(wide, numpy);
    CHECK(std::count(eight.begin(), eight.end(), '\n') == 7);
    cxmat::print_options narrow;
    narrow.line_width = 30;
    const cxmat::batch<double, 2, 1, 8> b{{{{{1.5, 2, 3, 4, 5, 6, 7, 8}}}, {{{9, 10, 11, 12, 13, 14, 15, 16}}}}};
    CHECK(str(b, narrow) ==
          "[[[ 1.5  2.   3.   4.   5.\n    6.   7.   8. ]]\n\n [[ 9.  10.  11.  12.  13.\n   14.  15.  16. ]]]");
    cxmat::print_options never;
    never.line_width = 0;
    CHECK(str(sevenths, never).find('\n') == std::string::npos);
  }
  SECTION("float is printed with float's shortest digits") {
    CHECK(str(matrix<float, 1, 2>{{{0.1f, 1.0f / 3}}}) == "[[0.1        0.33333334]]");
  }
  SECTION("integers and booleans") {
    CHECK(str(matrix<int, 1, 3>{{{1, -20, 300}}}) == "[[  1 -20 300]]");
    CHECK(str(matrix<bool, 2, 2>{{{true, false}, {false, true}}}) == "[[ True False]\n [False  True]]");
  }
}

TEST_CASE("labels carry shapes and names; batches print with their axis name", "[io][print]") {
  const matrix<double, n, d_k> q{{{7, 8, 9}, {15.8, 18.4, 21}}};
  std::ostringstream os;
  cxmat::print(os, "Q", q);
  CHECK(os.str() == "Q (2 x 3 (n x d_k)):\n[[ 7.   8.   9. ]\n [15.8 18.4 21. ]]\n");

  const cxmat::batch<double, 2, 2, 2> w{{{{{1, 2.5}, {3, 4}}}, {{{1e-5, 6}, {7, 8}}}}};
  SECTION("as numpy prints a 3-d array, one format for all") {
    CHECK(str(w) == "[[[1.0e+00 2.5e+00]\n  [3.0e+00 4.0e+00]]\n\n [[1.0e-05 6.0e+00]\n  [7.0e+00 8.0e+00]]]");
  }
  SECTION("a plain batch axis prints indices, a head axis its name") {
    std::ostringstream plain;
    cxmat::print(plain, "w", cxmat::batch<double, 2, 1, 2>{{{{{1, 2}}}, {{{3, 4.5}}}}});
    CHECK(plain.str() == "w (2 x 1 x 2):\nw[0] (1 x 2):\n[[1.  2. ]]\nw[1] (1 x 2):\n[[3.  4.5]]\n");
    std::ostringstream heads;
    cxmat::print(heads, "w", cxmat::as_heads(cxmat::batch<double, 2, 1, 2>{{{{{1, 2}}}, {{{3, 4.5}}}}}));
    CHECK(heads.str() == "w (2 x 1 x 2 (H x 1 x 2)):\nw[H=0] (1 x 2):\n[[1.  2. ]]\nw[H=1] (1 x 2):\n[[3.  4.5]]\n");
    // Heads numbered from 1 (a worksheet's head 1, head 2); other axes keep their indices.
    const cxmat::print_options from_one{.first_head_number = 1};
    std::ostringstream one;
    cxmat::print(one, "w", cxmat::as_heads(cxmat::batch<double, 2, 1, 2>{{{{{1, 2}}}, {{{3, 4.5}}}}}), from_one);
    CHECK(one.str() == "w (2 x 1 x 2 (H x 1 x 2)):\nw[H=1] (1 x 2):\n[[1.  2. ]]\nw[H=2] (1 x 2):\n[[3.  4.5]]\n");
    std::ostringstream plain_one;
    cxmat::print(plain_one, "w", cxmat::batch<double, 2, 1, 2>{{{{{1, 2}}}, {{{3, 4.5}}}}}, from_one);
    CHECK(plain_one.str() == plain.str());
  }
  SECTION("an attention result: output, then weights over H") {
    const cxmat::attention_result<matrix<double, 1, 1>, cxmat::batch<double, 1, 1, 1>> r{{{{2}}}, {{{{{1}}}}}};
    std::ostringstream res;
    cxmat::print(res, "attn", r);
    CHECK(
        res.str() ==
        "attn: output (1 x 1):\n[[2.]]\nattn: weights (1 x 1 x 1 (H x 1 x 1)):\nattn: weights[H=0] (1 x 1):\n[[1.]]\n");
  }
}

TEST_CASE("per-head tuples print head by head", "[io][print][hana]") {
  const auto t = boost::hana::make_tuple(matrix<double, 1, 2>{{{0.5, 0.5}}}, matrix<double, 1, 1>{{{1e-9}}});
  std::ostringstream os;
  cxmat::print(os, "head_weights", t);
  CHECK(os.str() ==
        "head_weights (2 heads):\nhead_weights[H=0] (1 x 2):\n[[0.5 0.5]]\nhead_weights[H=1] (1 x 1):\n[[1.e-09]]\n");
  std::ostringstream one;
  cxmat::print(one, "head_weights", t, {.first_head_number = 1});
  CHECK(one.str() ==
        "head_weights (2 heads):\nhead_weights[H=1] (1 x 2):\n[[0.5 0.5]]\nhead_weights[H=2] (1 x 1):\n[[1.e-09]]\n");
}

TEST_CASE("Markdown and LaTeX tables", "[io][table]") {
  const matrix<double, 2, 2> m{{{7, 0.5}, {-1.25, 2}}};
  SECTION("Markdown, with and without labels") {
    std::ostringstream os;
    cxmat::print_markdown(os, m);
    CHECK(os.str() == "|     0 |   1 |\n|------:|----:|\n|     7 | 0.5 |\n| -1.25 |   2 |\n");
    std::ostringstream labelled;
    cxmat::print_markdown(labelled, m, {{}, {"a", "bb"}, {"k_0", "k_1"}});
    CHECK(labelled.str() == "|    |   k_0 | k_1 |\n|:---|------:|----:|\n| a  |     7 | 0.5 |\n| bb | -1.25 |   2 |\n");
    // One row label for two rows: said in a paragraph before the table, the rows numbered.
    std::ostringstream wrong;
    cxmat::print_markdown(wrong, m, {{}, {"a"}, {"k_0", "k_1"}});
    CHECK(wrong.str() ==
          "print_markdown: error: 1 row label for 2 rows; one label per row (or none): the rows are numbered "
          "instead\n\n|   |   k_0 | k_1 |\n|:--|------:|----:|\n| 0 |     7 | 0.5 |\n| 1 | -1.25 |   2 |\n");
  }
  SECTION("LaTeX bmatrix, pmatrix and tabular") {
    std::ostringstream b;
    cxmat::print_latex(b, m);
    CHECK(b.str() == "\\begin{bmatrix}\n  7 & 0.5 \\\\\n  -1.25 & 2\n\\end{bmatrix}\n");
    std::ostringstream p;
    cxmat::print_latex(p, matrix<double, 1, 3>{{{1.5e-14, -infinity, not_a_number}}}, cxmat::latex_style::pmatrix);
    CHECK(p.str() == "\\begin{pmatrix}\n  1.5 \\times 10^{-14} & -\\infty & \\mathrm{nan}\n\\end{pmatrix}\n");
    std::ostringstream t;
    cxmat::print_latex(t, matrix<double, 1, 2>{{{1e300, 2}}}, cxmat::latex_style::tabular, {{}, {"x_0"}, {"a&b", "c"}});
    CHECK(t.str() ==
          "\\begin{tabular}{l|rr}\n   & a\\&b & c \\\\\n  \\hline\n"
          "  x\\_0 & $1 \\times 10^{300}$ & $2 \\times 10^{0}$ \\\\\n\\end{tabular}\n");
    // Three column labels for two columns: a comment before the table, the columns numbered.
    std::ostringstream wrong;
    cxmat::print_latex(wrong, matrix<double, 1, 2>{{{1, 2}}}, cxmat::latex_style::tabular,
                       {{}, {"x"}, {"a", "b", "c"}});
    CHECK(wrong.str() ==
          "% print_latex: error: 3 column labels for 2 columns; one label per column (or none): the columns are "
          "numbered instead\n\\begin{tabular}{l|rr}\n   & 0 & 1 \\\\\n  \\hline\n  x & 1 & 2 \\\\\n\\end{tabular}\n");
  }
}
