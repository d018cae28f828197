// Exercise 04: softmax along each row.          Check: bash scripts/exercise.sh 4
#include <cstddef>

#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// The running example (exercise 02): n = 3 tokens, d_model = 4, d_k = 2.
constexpr cxmat::matrix<double, 3, 4> X{{{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}};
constexpr cxmat::matrix<double, 4, 2> Wq{{{0.5, 0}, {0, 0.5}, {0.5, 0}, {0, 0.5}}};
constexpr cxmat::matrix<double, 4, 2> Wk{{{0, 0.5}, {0.5, 0}, {0, 0.5}, {1, 0}}};
constexpr auto Q = X * Wq;  // n x d_k = 3 x 2
constexpr auto K = X * Wk;  // n x d_k = 3 x 2
constexpr auto scaled = cxmat::attention_scores(Q, K);  // Q·Kᵀ/√d_k, n x n (exercise 03)

// TODO: the weights of query i are the softmax of row i of the scaled scores.
constexpr auto weights = cxmat::transpose(cxmat::softmax_rows(cxmat::transpose(scaled)));

// ---- The checks. Leave them as they are. ----
constexpr bool rows_sum_to_one(const cxmat::matrix<double, 3, 3>& w) {
  for (std::size_t i = 0; i < 3; ++i) {
    const double sum = w(i, 0) + w(i, 1) + w(i, 2);
    if (sum < 1 - 1e-12 || sum > 1 + 1e-12) return false;
  }
  return true;
}
static_assert(rows_sum_to_one(weights), "each row of the weights sums to 1 (a query's weights are a row)");
static_assert(answers::close(weights, answers::ex04::weights), "weights(i, j) = softmax of row i of scaled, at column j");
