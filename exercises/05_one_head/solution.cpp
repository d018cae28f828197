// Exercise 05, solved: Z = weights·V.
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// The running example (exercise 02): n = 3 tokens, d_model = 4, d_k = 2, d_v = 3.
constexpr cxmat::matrix<double, 3, 4> X{{{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}};
constexpr cxmat::matrix<double, 4, 2> Wq{{{0.5, 0}, {0, 0.5}, {0.5, 0}, {0, 0.5}}};
constexpr cxmat::matrix<double, 4, 2> Wk{{{0, 0.5}, {0.5, 0}, {0, 0.5}, {1, 0}}};
constexpr cxmat::matrix<double, 4, 3> Wv{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}};
constexpr auto Q = X * Wq;  // n x d_k = 3 x 2
constexpr auto K = X * Wk;  // n x d_k = 3 x 2
constexpr auto V = X * Wv;  // n x d_v = 3 x 3
constexpr auto weights = cxmat::attention_weights(Q, K);  // softmax(Q·Kᵀ/√d_k), n x n (exercise 04)

// Each output row mixes the values with that row's weights. Z is n x d_v.
constexpr auto Z = weights * V;  // = cxmat::scaled_dot_product_attention(Q, K, V)

// ---- The checks. Leave them as they are. ----
static_assert(Z.rows == 3 && Z.cols == 3, "Z is n x d_v: one output row per token");
static_assert(answers::close(Z, answers::ex05::Z), "Z = weights.V: row i of Z mixes the rows of V with row i of the weights");
