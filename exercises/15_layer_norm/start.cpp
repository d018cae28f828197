// Exercise 15: layer norm by hand.          Check: bash scripts/exercise.sh 15
#include <cstddef>

#include <cxmat/cxmat.hpp>
#include <cxmat/transformer.hpp>

#include "answers.hpp"

// n = 2 tokens of d_model = 4 numbers; norm_gamma and norm_beta are nn.LayerNorm(4)'s weight and bias
// (gamma and beta; not named gamma, a function of the C library that <cmath> may declare).
constexpr cxmat::matrix<double, 2, 4> X{{{1, 3, 5, 7}, {2, 2, 2, 2}}};
constexpr cxmat::matrix<double, 1, 4> norm_gamma{{{1, 1, 2, 0.5}}};
constexpr cxmat::matrix<double, 1, 4> norm_beta{{{0, 0.5, 0, -1}}};
constexpr double eps = 1e-5;
constexpr double d = 4;  // the width of a row

constexpr double row_mean(const cxmat::matrix<double, 2, 4>& x, std::size_t i) {
  double sum = 0;
  for (std::size_t j = 0; j < 4; ++j) sum += x(i, j);
  return sum / d;
}

// TODO (a): the variance nn.LayerNorm uses.
constexpr double row_variance(const cxmat::matrix<double, 2, 4>& x, std::size_t i) {
  const double mean = row_mean(x, i);
  double squares = 0;
  for (std::size_t j = 0; j < 4; ++j) squares += (x(i, j) - mean) * (x(i, j) - mean);
  return squares / (d - 1);
}

// TODO (b): y_j = (x_j - mean) / sqrt(var + eps) * gamma_j + beta_j, row by row (cxmat::sqrt).
constexpr cxmat::matrix<double, 2, 4> layer_norm_by_hand(const cxmat::matrix<double, 2, 4>& x) {
  cxmat::matrix<double, 2, 4> y{};
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 4; ++j) y(i, j) = x(i, j);
  }
  return y;
}

constexpr auto Y = layer_norm_by_hand(X);

// ---- The checks. Leave them as they are. ----
static_assert(row_mean(X, 0) == 4 && row_mean(X, 1) == 2, "the mean of a row: its sum / d");
static_assert(row_variance(X, 0) == 5, "nn.LayerNorm's variance is the biased one: the squares' sum / d = 20 / 4 = 5, not / (d - 1)");
static_assert(row_variance(X, 1) == 0, "a constant row has variance 0");
static_assert(Y(1, 0) == norm_beta(0, 0) && Y(1, 1) == norm_beta(0, 1) && Y(1, 3) == norm_beta(0, 3), "a constant row becomes beta");
static_assert(answers::close(Y, answers::ex15::Y), "y = (x - mean) / sqrt(var + eps) * gamma + beta, with eps inside the square root");
static_assert(answers::close(Y, cxmat::layer_norm(X, norm_gamma, norm_beta, eps)), "cxmat::layer_norm(X, norm_gamma, norm_beta, eps) computes the same");
