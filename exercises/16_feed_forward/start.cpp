// Exercise 16: the feed-forward block.          Check: bash scripts/exercise.sh 16
#include <cxmat/cxmat.hpp>
#include <cxmat/transformer.hpp>

#include "answers.hpp"

// n = 2 tokens, d_model = 2, d_ff = 3.
constexpr cxmat::matrix<double, 2, 2> X{{{1, 2}, {3, -1}}};
// linear1: d_model x d_ff = 2 x 3 (PyTorch's linear1.weight, 3 x 2, already transposed), bias 1 x d_ff.
constexpr cxmat::matrix<double, 2, 3> W1{{{1, 0, -1}, {0, 1, 1}}};
constexpr cxmat::matrix<double, 1, 3> b1{{{0, -1, 0}}};
// PyTorch's linear2.weight, out x in = d_model x d_ff = 2 x 3, and linear2.bias, 1 x d_model.
constexpr cxmat::matrix<double, 2, 3> linear2_weight{{{1, 1, 0}, {0, 1, 2}}};
constexpr cxmat::matrix<double, 1, 2> b2{{{0.5, -1}}};

// TODO: W2 for cxmat::linear is d_in x d_out = d_ff x d_model = 3 x 2.
constexpr auto W2 = linear2_weight;

constexpr auto hidden = cxmat::relu(cxmat::linear(X, W1, b1));  // n x d_ff
constexpr auto out = cxmat::linear(hidden, W2, b2);             // n x d_model

// Worked by hand (the README), to compare with.
constexpr cxmat::matrix<double, 2, 3> hidden_by_hand{{{1, 1, 1}, {3, 0, 0}}};  // relu of {{1, 1, 1}, {3, -2, -4}}
constexpr cxmat::matrix<double, 2, 2> out_by_hand{{{2.5, 2}, {3.5, -1}}};

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(hidden, hidden_by_hand), "hidden = relu(X.W1 + b1): n x d_ff = 2 x 3");
static_assert(answers::close(out, out_by_hand), "out = hidden.W2 + b2: n x d_model = 2 x 2, X's shape again");
static_assert(answers::close(out, cxmat::feed_forward<cxmat::activation::relu>(X, W1, b1, W2, b2)), "cxmat::feed_forward does both steps");
