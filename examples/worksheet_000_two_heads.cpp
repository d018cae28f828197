// Worksheet 000 / 002: "Thinking Machine" through two attention heads and W_o, step by step.
// Every matrix printed here was computed by the compiler (constexpr); the program prints them.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>

namespace {

using cxmat::matrix;

constexpr matrix<double, 2, 4> X{{{1, 2, 3, 4}, {5, 6, 7, 8}}};
constexpr matrix<double, 4, 3> W0q{{{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}, {0.7, 0.8, 0.9}, {1.0, 1.1, 1.2}}};
constexpr matrix<double, 4, 3> W0k{{{0.3, 0.2, 0.1}, {0.6, 0.5, 0.4}, {0.9, 0.8, 0.7}, {1.2, 1.1, 1.0}}};
constexpr matrix<double, 4, 3> W0v{{{0.7, 0.8, 0.9}, {0.4, 0.5, 0.6}, {0.1, 0.2, 0.3}, {1.3, 1.4, 1.5}}};
constexpr matrix<double, 4, 3> W1q{{{0.2, 0.3, 0.4}, {0.5, 0.6, 0.7}, {0.8, 0.9, 1.0}, {1.1, 1.2, 1.3}}};
constexpr matrix<double, 4, 3> W1k{{{0.4, 0.3, 0.2}, {0.7, 0.6, 0.5}, {1.0, 0.9, 0.8}, {1.3, 1.2, 1.1}}};
constexpr matrix<double, 4, 3> W1v{{{0.9, 1.0, 1.1}, {0.6, 0.7, 0.8}, {0.3, 0.4, 0.5}, {1.4, 1.5, 1.6}}};
constexpr matrix<double, 6, 4> Wo{{{0.1, 0.2, 0.3, 0.4},
                                   {0.5, 0.6, 0.7, 0.8},
                                   {0.9, 1.0, 1.1, 1.2},
                                   {1.3, 1.4, 1.5, 1.6},
                                   {1.7, 1.8, 1.9, 2.0},
                                   {2.1, 2.2, 2.3, 2.4}}};

// (a) projections
constexpr auto Q0 = X * W0q, K0 = X * W0k, V0 = X * W0v;
constexpr auto Q1 = X * W1q, K1 = X * W1k, V1 = X * W1v;
// (b) scores, weights and Z per head
constexpr auto S0 = cxmat::attention_scores(Q0, K0), S1 = cxmat::attention_scores(Q1, K1);
constexpr auto A0 = cxmat::attention_weights(Q0, K0), A1 = cxmat::attention_weights(Q1, K1);
constexpr auto Z0 = cxmat::scaled_dot_product_attention(Q0, K0, V0);
constexpr auto Z1 = cxmat::scaled_dot_product_attention(Q1, K1, V1);
// (c) concatenation and (d) output projection
constexpr auto Z = cxmat::hconcat(Z0, Z1);
constexpr auto out = Z * Wo;

}  // namespace

int main() {
  std::cout << "Part (a)\n";
  cxmat::print(std::cout, "Head 1 - Q_1", Q0);
  cxmat::print(std::cout, "Head 1 - K_1", K0);
  cxmat::print(std::cout, "Head 1 - V_1", V0);
  cxmat::print(std::cout, "Head 2 - Q_2", Q1);
  cxmat::print(std::cout, "Head 2 - K_2", K1);
  cxmat::print(std::cout, "Head 2 - V_2", V1);
  std::cout << "\nPart (b)\n";
  cxmat::print(std::cout, "Head 1 - Attention Scores", S0, {8, false});
  cxmat::print(std::cout, "Head 2 - Attention Scores", S1, {8, false});
  cxmat::print(std::cout, "Head 1 - Softmax Attention Weights", A0, {3, false});
  cxmat::print(std::cout, "Head 2 - Softmax Attention Weights", A1, {3, false});
  cxmat::print(std::cout, "Head 1 - Weighted Sum (Z_1)", Z0);
  cxmat::print(std::cout, "Head 2 - Weighted Sum (Z_2)", Z1);
  std::cout << "\nPart (c)\n";
  cxmat::print(std::cout, "Multi-Headed Attention Output (Z)", Z);
  std::cout << "\nPart (d)\n";
  cxmat::print(std::cout, "Result after multiplication with W_0", out, {2, false});
}
