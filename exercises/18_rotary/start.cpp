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
      const double theta = angle(p, i);
      const double c = cxmat::cos(theta), s = cxmat::sin(theta);
      const double x = m(p, a), y = m(p, b);
      r(p, a) = x * c - y * s;
      r(p, b) = y * c + x * s;
    }
  }
  return r;
}

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(rotate_interleaved(Q), answers::ex18::Q_interleaved), "interleaved: pairs (0, 1) and (2, 3) (given)");
static_assert(answers::close(cxmat::attention_scores(rotate_interleaved(Q), rotate_interleaved(K)),
                             cxmat::attention_scores(Q, K, cxmat::rotary_interleaved())),
              "rotary_interleaved(): Q and K turned, then Q.K^T / sqrt(d_k) (given)");
// Which columns turn together, whatever the angles: position 1 holding a 1 in column 0 only.
constexpr cxmat::matrix<double, 3, 4> E0{{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}}};
static_assert(rotate_half(E0)(1, 1) == 0 && rotate_half(E0)(1, 3) == 0, "rotate-half: pair i is the columns (i, i + d_k/2) = (0, 2) and (1, 3)");
static_assert(rotate_half(Q)(0, 0) == Q(0, 0) && rotate_half(Q)(0, 1) == Q(0, 1) && rotate_half(Q)(0, 2) == Q(0, 2) && rotate_half(Q)(0, 3) == Q(0, 3),
              "rotate-half: position 0 is not turned (the angle is p times the frequency, positions from 0)");
static_assert(rotate_half(E0)(1, 2) > 0, "rotate-half: the turn takes column i towards column i + d_k/2 (y' = y cos + x sin)");
static_assert(answers::close(rotate_half(Q), answers::ex18::Q_half), "rotate-half: the pairs turn by angle(p, i), the angles of rotate_interleaved");
static_assert(answers::close(rotate_half(K), answers::ex18::K_half), "rotate-half turns K the same way as Q");
static_assert(answers::close(cxmat::attention_scores(rotate_half(Q), rotate_half(K)), answers::ex18::scores_half),
              "the scores of the turned Q and K: Q.K^T / sqrt(d_k)");
static_assert(answers::close(cxmat::attention_scores(Q, K, cxmat::rotary()), answers::ex18::scores_half),
              "cxmat::rotary() turns Q and K the same way before the scores");
static_assert(!answers::close(rotate_half(Q), rotate_interleaved(Q)), "the two layouts turn different pairs");
