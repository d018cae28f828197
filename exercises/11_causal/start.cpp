// Exercise 11: causal attention.          Check: bash scripts/exercise.sh 11
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

// TODO: token i may attend to tokens 0..i (true = may attend).
constexpr cxmat::matrix<bool, 3, 3> allowed{{{false, true, true}, {false, false, true}, {false, false, false}}};

constexpr auto weights = cxmat::attention_weights(Q, K, cxmat::mask(allowed));
constexpr auto Z = cxmat::scaled_dot_product_attention(Q, K, V, cxmat::mask(allowed));

// ---- The checks. Leave them as they are. ----
static_assert(weights(0, 0) == 1 && weights(0, 1) == 0 && weights(0, 2) == 0,
              "token 0 sees only itself: row 0 of the weights is (1, 0, 0)");
static_assert(weights(1, 2) == 0, "token 1 does not see token 2");
static_assert(answers::close(weights, answers::ex11::weights), "causal weights");
static_assert(answers::close(Z, answers::ex11::Z), "causal Z = weights.V");
