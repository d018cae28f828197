// Exercise 07: two heads by hand.          Check: bash scripts/exercise.sh 7
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// Worksheet 001 (the W^K changed so that Q·Kᵀ is not symmetric): n = d_model = 2 and two heads
// with d_k = d_v = 2.
constexpr cxmat::matrix<double, 2, 2> X{{{1, 2}, {3, 4}}};
// Head 0.
constexpr cxmat::matrix<double, 2, 2> W0q{{{1, 0}, {0, 1}}};
constexpr cxmat::matrix<double, 2, 2> W0k{{{0, 1}, {0.5, 0}}};
constexpr cxmat::matrix<double, 2, 2> W0v{{{1, 0}, {0, -1}}};
// Head 1.
constexpr cxmat::matrix<double, 2, 2> W1q{{{0, 1}, {1, 0}}};
constexpr cxmat::matrix<double, 2, 2> W1k{{{0.5, 0}, {0, 2}}};
constexpr cxmat::matrix<double, 2, 2> W1v{{{0, 1}, {-1, 0}}};

constexpr auto Z0 = cxmat::self_attention(X, W0q, W0k, W0v);  // head 0, n x d_v
// TODO: head 1, with its own weights.
constexpr auto Z1 = Z0;
// TODO: the heads side by side, n x (2·d_v).
constexpr auto Z = cxmat::vconcat(Z0, Z1);

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(Z0, answers::ex07::Z0), "Z0 is head 0");
static_assert(answers::close(Z1, answers::ex07::Z1), "Z1 is head 1: self_attention with W1q, W1k, W1v");
static_assert(Z.rows == 2 && Z.cols == 4, "Z is n x (2*d_v) = 2 x 4: one row per token, the heads side by side");
static_assert(answers::close(Z, answers::ex07::Z), "Z = Concat(Z0, Z1)");
