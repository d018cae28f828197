// Mistake: Logits of width-4 states against an embedding table of width d_model = 2.
// Rule: logits(x, table) = x·tableᵀ: x is n x d_model, the table vocab x d_model.
// Expect: shape_error::logits_x_cols_must_equal_table_cols<cxmat::dim<4, cxmat::anonymous> ?, cxmat::dim<2, d_model_dim> ?>
// Expect-plain: error: static assertion failed: logits\(x, table\) = x.tableᵀ: x's columns \(4\) must equal the table's columns \(2, d_model\)
#include <cxmat/transformer.hpp>

CXMAT_DIM(vocab, 3);
CXMAT_DIM(d_model, 2);

constexpr cxmat::matrix<double, vocab, d_model> table{{{1, 0}, {0, 1}, {1, 1}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 1, 4> X{{{1, 2, 3, 4}}};
#else
constexpr cxmat::matrix<double, 1, d_model> X{{{1, 2}}};
#endif
inline constexpr auto logits = cxmat::logits(X, table);
