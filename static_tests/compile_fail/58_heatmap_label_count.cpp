// Mistake: Three token labels for the four rows of a heatmap (a token left out of the list).
// Rule: print_heatmap / write_svg_heatmap: one label per row (a query) and per column (a key), or none; a list whose length is in its type is checked at compile time.
// Expect: heatmap_row_labels_must_be_one_per_row<3, cxmat::dim<4, n_dim> ?>
// Expect-plain: error: static assertion failed: print_heatmap / write_svg_heatmap: 3 row labels for the weights' rows \(4, n\): give one label per row \(a query.s token\), or none\.
#include <array>
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/heatmap.hpp>

CXMAT_DIM(n, 4);

constexpr auto w = cxmat::softmax_rows(cxmat::matrix<double, n, n>{
    {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}});

inline void show_weights() {
#ifdef CXMAT_COMPILE_FAIL
  const std::array tokens{"The", "cat", "sat"};
#else
  const std::array tokens{"The", "cat", "sat", "down"};
#endif
  const std::array keys{"The", "cat", "sat", "down"};
  cxmat::print_heatmap(std::cout, "w", w, tokens, keys);
}
