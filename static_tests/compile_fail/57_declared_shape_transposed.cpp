// Mistake: A product stored in a variable declared with the wrong shape (X·W0q is n x d_k = 2 x 2, declared d_k x n).
// Rule: a matrix converts only to its own type: declare results with auto and check the shape (shape_text), or state the shape the product has.
// Expect: conversion from .matrix<\[\.\.\.\], ?.*\{2\}, ?.*\{2\}>. to .*matrix<\[\.\.\.\], ?.*\{2\}, ?.*\{2\}>
// Expect-plain: error: no viable conversion from 'matrix<\[\.\.\.\], extent<n_dim>\{2\}, extent<d_k_dim>\{2\}>' to 'const matrix<\[\.\.\.\], extent<d_k_dim>\{2\}, extent<n_dim>\{2\}>'
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 3);
CXMAT_DIM(d_k, 2);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 0, 1}, {0, 1, 0}}};
constexpr cxmat::matrix<double, d_model, d_k> W0q{{{1, 0}, {0, 1}, {1, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, d_k, n> Q0 = X * W0q;
#else
constexpr auto Q0 = X * W0q;
static_assert(cxmat::shape_text(Q0) == "2 x 2 (n x d_k)");
#endif
