// Exercise 02, solved: queries, keys and values.
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// n = 3 tokens of d_model = 4 numbers, one token per row.
constexpr cxmat::matrix<double, 3, 4> X{{{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}};
// d_model x d_k: queries and keys of width d_k = 2.
constexpr cxmat::matrix<double, 4, 2> Wq{{{0.5, 0}, {0, 0.5}, {0.5, 0}, {0, 0.5}}};
constexpr cxmat::matrix<double, 4, 2> Wk{{{0, 0.5}, {0.5, 0}, {0, 0.5}, {1, 0}}};
// d_model x d_v: values of width d_v = 3.
constexpr cxmat::matrix<double, 4, 3> Wv{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}};

// Q = X·Wq and K = X·Wk are n x d_k; V = X·Wv is n x d_v.
constexpr auto Q = X * Wq;
constexpr auto K = X * Wk;
constexpr auto V = X * Wv;

// ---- The checks. Leave them as they are. ----
static_assert(Q.rows == 3 && Q.cols == 2, "Q is n x d_k = 3 x 2: one query per token");
static_assert(K.rows == 3 && K.cols == 2, "K is n x d_k = 3 x 2: one key per token");
static_assert(V.rows == 3 && V.cols == 3, "V is n x d_v = 3 x 3: one value per token");
// By hand: row i of Q = (row i of X)·Wq, e.g. row 0 = 1*(0.5, 0) + 1*(0.5, 0) = (1, 0).
static_assert(answers::close(Q, cxmat::matrix<double, 3, 2>{{{1, 0}, {0, 2}, {1, 1}}}), "Q = X.Wq");
static_assert(answers::close(K, cxmat::matrix<double, 3, 2>{{{0, 1}, {3, 0}, {1.5, 1}}}), "K = X.Wk");
static_assert(answers::close(V, cxmat::matrix<double, 3, 3>{{{1, 0, 1}, {2, 4, 2}, {2, 2, 2}}}), "V = X.Wv");
