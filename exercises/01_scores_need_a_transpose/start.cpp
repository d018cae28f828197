// Exercise 01: make Q·Kᵀ compile.          Check: bash scripts/exercise.sh 1
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// Three tokens (n = 3), each with a query and a key of width d_k = 2.
constexpr cxmat::matrix<double, 3, 2> Q{{{1, 0}, {0, 2}, {1, 1}}};
constexpr cxmat::matrix<double, 3, 2> K{{{0, 1}, {3, 0}, {1.5, 1}}};

// TODO: compare every query with every key: scores = Q·Kᵀ, an n x n matrix.
constexpr auto scores = cxmat::matmul(Q, K);

// ---- The checks. Leave them as they are. ----
static_assert(scores.rows == 3 && scores.cols == 3, "scores is n x n: one row per query, one column per key");
// By hand: scores(i, j) = (row i of Q) · (row j of K), e.g. scores(0, 1) = 1*3 + 0*0 = 3.
static_assert(answers::close(scores, cxmat::matrix<double, 3, 3>{{{0, 3, 1.5}, {2, 0, 2}, {1, 3, 2.5}}}),
              "scores(i, j) must be (row i of Q) . (row j of K)");
