// Mistake: Token indices stored as doubles.
// Rule: embedding(table, tokens): tokens is a 1 x n row of integer indices.
// Expect: shape_error::embedding_tokens_must_be_integers<double>
// Expect-plain: error: static assertion failed: embedding\(table, tokens\): token indices are integers, not double
#include <cxmat/transformer.hpp>

constexpr cxmat::matrix<double, 3, 2> table{{{1, 0}, {0, 1}, {1, 1}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 1, 2> tokens{{{2, 0}}};
#else
constexpr cxmat::matrix<int, 1, 2> tokens{{{2, 0}}};
#endif
inline constexpr auto E = cxmat::embedding(table, tokens);
