// Exercise 08, solved: block form.
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

// One projection per Q, K, V for both heads: d_model x (H·d_k), head h in column block h.
constexpr auto Wq = cxmat::hconcat(W0q, W1q);
constexpr auto Wk = cxmat::hconcat(W0k, W1k);
constexpr auto Wv = cxmat::hconcat(W0v, W1v);
constexpr auto Z = cxmat::multi_head_attention<2>(X, Wq, Wk, Wv);

// ---- The checks. Leave them as they are. ----
static_assert(Wq.rows == 2 && Wq.cols == 4, "Wq is d_model x (H*d_k) = 2 x 4");
static_assert(Z.rows == 2 && Z.cols == 4, "Z is n x (H*d_v) = 2 x 4");
static_assert(answers::close(Z, answers::ex08::Z), "Z is both heads side by side, as in exercise 07");
