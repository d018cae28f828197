// Exercise 06, solved: named dimensions.
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// Worksheet 001 (W^K changed so that Q·Kᵀ is not symmetric): everything is 2 x 2, so only names
// tell the dimensions apart.
CXMAT_DIM(n, 2);        // tokens
CXMAT_DIM(d_model, 2);  // numbers per token
CXMAT_DIM(d_k, 2);      // width of queries and keys
CXMAT_DIM(d_v, 2);      // width of values

constexpr cxmat::matrix<double, n, d_model> X{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<double, d_model, d_k> Wq{{{1, 0}, {0, 1}}};
constexpr cxmat::matrix<double, d_model, d_k> Wk{{{0, 1}, {0.5, 0}}};
constexpr cxmat::matrix<double, d_model, d_v> Wv{{{1, 0}, {0, -1}}};
constexpr auto Q = X * Wq;  // n x d_k
constexpr auto K = X * Wk;  // n x d_k
constexpr auto V = X * Wv;  // n x d_v

// One head, softmax(Q·Kᵀ/√d_k)·V, in one call.
constexpr auto Z0 = cxmat::scaled_dot_product_attention(Q, K, V);

// ---- The checks. Leave them as they are. ----
static_assert(cxmat::shape_text(Z0) == "2 x 2 (n x d_v)", "Z0 is n x d_v: one output row per token");
static_assert(answers::close(Z0, answers::ex06::Z0), "Z0 = softmax(Q.K^T / sqrt(d_k)).V");
