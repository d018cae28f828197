// Exercise 14, solved: worksheet 000.
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// "Thinking Machine": n = 2 tokens of d_model = 4 numbers (the worksheet's X / 10, and the first row
// of each W^K reversed, so that the softmax does not saturate and Q·Kᵀ is not symmetric).
constexpr cxmat::matrix<double, 2, 4> X{{{0.1, 0.2, 0.3, 0.4}, {0.5, 0.6, 0.7, 0.8}}};
// Head 0: d_model x d_k = 4 x 3.
constexpr cxmat::matrix<double, 4, 3> W0q{{{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}, {0.7, 0.8, 0.9}, {1.0, 1.1, 1.2}}};
constexpr cxmat::matrix<double, 4, 3> W0k{{{0.1, 0.2, 0.3}, {0.6, 0.5, 0.4}, {0.9, 0.8, 0.7}, {1.2, 1.1, 1.0}}};
constexpr cxmat::matrix<double, 4, 3> W0v{{{0.7, 0.8, 0.9}, {0.4, 0.5, 0.6}, {0.1, 0.2, 0.3}, {1.3, 1.4, 1.5}}};
// Head 1.
constexpr cxmat::matrix<double, 4, 3> W1q{{{0.2, 0.3, 0.4}, {0.5, 0.6, 0.7}, {0.8, 0.9, 1.0}, {1.1, 1.2, 1.3}}};
constexpr cxmat::matrix<double, 4, 3> W1k{{{0.2, 0.3, 0.4}, {0.7, 0.6, 0.5}, {1.0, 0.9, 0.8}, {1.3, 1.2, 1.1}}};
constexpr cxmat::matrix<double, 4, 3> W1v{{{0.9, 1.0, 1.1}, {0.6, 0.7, 0.8}, {0.3, 0.4, 0.5}, {1.4, 1.5, 1.6}}};
// W_o: (H·d_v) x d_model = 6 x 4.
constexpr cxmat::matrix<double, 6, 4> Wo{{{0.1, 0.2, 0.3, 0.4},
                                          {0.5, 0.6, 0.7, 0.8},
                                          {0.9, 1.0, 1.1, 1.2},
                                          {1.3, 1.4, 1.5, 1.6},
                                          {1.7, 1.8, 1.9, 2.0},
                                          {2.1, 2.2, 2.3, 2.4}}};

// (a) The queries, keys and values of each head, n x d_k = 2 x 3.
constexpr auto Q0 = X * W0q, K0 = X * W0k, V0 = X * W0v;
constexpr auto Q1 = X * W1q, K1 = X * W1k, V1 = X * W1v;
// (b) Each head's output, n x d_v = 2 x 3.
constexpr auto Z0 = cxmat::scaled_dot_product_attention(Q0, K0, V0);
constexpr auto Z1 = cxmat::scaled_dot_product_attention(Q1, K1, V1);
// (c) The heads side by side, n x (H·d_v) = 2 x 6.
constexpr auto Z = cxmat::hconcat(Z0, Z1);
// (d) The output projection, n x d_model = 2 x 4.
constexpr auto out = Z * Wo;

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(Q0, answers::ex14::Q0), "(a) Q0 = X.W0q");
static_assert(answers::close(K0, answers::ex14::K0), "(a) K0 = X.W0k");
static_assert(answers::close(V0, answers::ex14::V0), "(a) V0 = X.W0v");
static_assert(answers::close(Q1, answers::ex14::Q1), "(a) Q1 = X.W1q");
static_assert(answers::close(K1, answers::ex14::K1), "(a) K1 = X.W1k");
static_assert(answers::close(V1, answers::ex14::V1), "(a) V1 = X.W1v");
static_assert(answers::close(Z0, answers::ex14::Z0), "(b) Z0 = softmax(Q0.K0^T / sqrt(3)).V0");
static_assert(answers::close(Z1, answers::ex14::Z1), "(b) Z1 = softmax(Q1.K1^T / sqrt(3)).V1");
static_assert(answers::close(Z, answers::ex14::Z), "(c) Z = Concat(Z0, Z1), 2 x 6");
static_assert(answers::close(out, answers::ex14::out), "(d) out = Z.W_o, 2 x 4");

// ---- Beyond the exercise. ----
// The whole layer in one call, block form (exercises 08-09).
static_assert(answers::close(cxmat::multi_head_attention<2>(X, cxmat::hconcat(W0q, W1q), cxmat::hconcat(W0k, W1k),
                                                            cxmat::hconcat(W0v, W1v), Wo),
                             answers::ex14::out),
              "multi_head_attention<2> is the same layer");
