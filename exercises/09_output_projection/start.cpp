// Exercise 09: the output projection W_o.          Check: bash scripts/exercise.sh 9
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
constexpr auto Wq = cxmat::hconcat(W0q, W1q);  // d_model x (H·d_k), exercise 08
constexpr auto Wk = cxmat::hconcat(W0k, W1k);
constexpr auto Wv = cxmat::hconcat(W0v, W1v);

// W_o as PyTorch stores out_proj.weight: d_out x (H·d_v) = 2 x 4.
constexpr cxmat::matrix<double, 2, 4> Wo_torch{{{1, 0, -1, 0}, {0, 1, 0, -1}}};

// TODO: out = Concat(heads)·W_o, with W_o of shape (H·d_v) x d_out.
constexpr auto out = cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, Wo_torch);

// ---- The checks. Leave them as they are. ----
static_assert(out.rows == 2 && out.cols == 2, "out is n x d_out = 2 x 2");
static_assert(answers::close(out, answers::ex09::out), "out = Concat(Z0, Z1).W_o");
