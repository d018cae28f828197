// Exercise 03, solved: scores / √d_k.
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// The running example (exercise 02): n = 3 tokens, d_model = 4, d_k = 2.
constexpr cxmat::matrix<double, 3, 4> X{{{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}};
constexpr cxmat::matrix<double, 4, 2> Wq{{{0.5, 0}, {0, 0.5}, {0.5, 0}, {0, 0.5}}};
constexpr cxmat::matrix<double, 4, 2> Wk{{{0, 0.5}, {0.5, 0}, {0, 0.5}, {1, 0}}};
constexpr auto Q = X * Wq;  // n x d_k = 3 x 2
constexpr auto K = X * Wk;  // n x d_k = 3 x 2
constexpr auto scores = Q * cxmat::transpose(K);  // n x n

// Divide the scores by the square root of d_k.
constexpr auto scaled = scores / cxmat::sqrt(static_cast<double>(Q.cols));  // d_k = Q.cols = 2

// ---- The checks. Leave them as they are. ----
static_assert(scaled.rows == 3 && scaled.cols == 3, "scaled is n x n, like the scores");
static_assert(answers::close(scaled, answers::ex03::scaled), "scaled = Q.K^T / sqrt(d_k), and d_k is the width of Q and K");
