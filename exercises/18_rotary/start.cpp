// Exercise 18: rotary positions.          Check: bash scripts/exercise.sh 18
#include <cstddef>

#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// One head: n = 3 positions, d_k = 4 (two pairs of columns).
constexpr cxmat::matrix<double, 3, 4> Q{{{1, 2, 3, 4}, {1, 0, -1, 2}, {0.5, 1, 2, -1}}};
constexpr cxmat::matrix<double, 3, 4> K{{{0, 1, 1, 0}, {2, -1, 0, 1}, {1, 1, -1, 0.5}}};

// The angle of pair i at position p: p * base^(-2i / d_k) with base 10000 and d_k = 4.
constexpr double angle(std::size_t p, std::size_t i) {
  return static_cast<double>(p) * cxmat::exp(-2.0 * static_cast<double>(i) / 4.0 * cxmat::log(10000.0));
}

// GPT-J's layout: pair i is the columns (2i, 2i + 1), neighbours.
constexpr cxmat::matrix<double, 3, 4> rotate_interleaved(const cxmat::matrix<double, 3, 4>& m) {
  cxmat::matrix<double, 3, 4> r{};
  for (std::size_t p = 0; p < 3; ++p) {
    for (std::size_t i = 0; i < 2; ++i) {
      const std::size_t a = 2 * i, b = 2 * i + 1;
      const double c = cxmat::cos(angle(p, i)), s = cxmat::sin(angle(p, i));
      r(p, a) = m(p, a) * c - m(p, b) * s;
      r(p, b) = m(p, b) * c + m(p, a) * s;
    }
  }
  return r;
}

// TODO: the rotate-half layout of cxmat::rotary(): pair i is the columns (i, i + d_k/2).
constexpr cxmat::matrix<double, 3, 4> rotate_half(const cxmat::matrix<double, 3, 4>& m) {
  cxmat::matrix<double, 3, 4> r{};
  for (std::size_t p = 0; p < 3; ++p) {
    for (std::size_t i = 0; i < 2; ++i) {
      const std::size_t a = 2 * i, b = 2 * i + 1;
      const double c = cxmat::cos(angle(p, i)), s = cxmat::sin(angle(p, i));
      r(p, a) = m(p, a) * c - m(p, b) * s;
      r(p, b) = m(p, b) * c + m(p, a) * s;
    }
  }
  return r;
}

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(rotate_interleaved(Q), answers::ex18::Q_interleaved), "interleaved: pairs (0, 1) and (2, 3) (given)");
static_assert(answers::close(cxmat::attention_scores(rotate_interleaved(Q), rotate_interleaved(K)),
                             cxmat::attention_scores(Q, K, cxmat::rotary_interleaved())),
              "rotary_interleaved(): Q and K turned, then Q.K^T / sqrt(d_k) (given)");
static_assert(answers::close(rotate_half(Q), answers::ex18::Q_half), "rotate-half: pair i is the columns (i, i + d_k/2) = (0, 2) and (1, 3)");
static_assert(answers::close(rotate_half(K), answers::ex18::K_half), "rotate-half turns K the same way as Q");
static_assert(answers::close(cxmat::attention_scores(rotate_half(Q), rotate_half(K)), answers::ex18::scores_half),
              "the scores of the turned Q and K: Q.K^T / sqrt(d_k)");
static_assert(answers::close(cxmat::attention_scores(Q, K, cxmat::rotary()), answers::ex18::scores_half),
              "cxmat::rotary() turns Q and K the same way before the scores");
static_assert(!answers::close(rotate_half(Q), rotate_interleaved(Q)), "the two layouts turn different pairs");
