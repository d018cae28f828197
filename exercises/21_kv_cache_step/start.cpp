// Exercise 21: one step with a cache of keys and values.          Check: bash scripts/exercise.sh 21
#include <cstddef>

#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// One head of width d = 4: 3 prompt tokens (rows 0..2) and the new token (row 3).
constexpr cxmat::matrix<double, 4, 4> X{{{0.6, 0.7, 0.9, 0.6}, {-0.4, 0.1, 0.4, -0.9}, {-0.8, 0.4, -0.3, -0.8}, {0, -0.8, 0.3, -0.8}}};
constexpr cxmat::matrix<double, 4, 4> Wq{{{1, 0.6, -0.6, -0.7}, {0.4, -0.5, 0.7, 0.5}, {0.6, -0.2, 0.6, 0.8}, {0.7, -0.4, -0.6, -0.8}}};
constexpr cxmat::matrix<double, 4, 4> Wk{{{-0.6, 0.2, -0.4, 0}, {0.8, 0.2, -0.1, -0.8}, {0.3, -0.1, -0.7, 0.2}, {0.2, 0.9, -1, -0.7}}};
constexpr cxmat::matrix<double, 4, 4> Wv{{{-0.3, -0.7, -0.8, -0.8}, {0.1, 0, -0.8, -0.6}, {-0.6, 0, 0, 0.4}, {0.4, 0.8, -0.2, -0.7}}};
using row = cxmat::matrix<double, 1, 4>;

// Given: a row turned by rotary at position p as cxmat::rotary() turns row p (exercise 18's
// rotate-half: pair i is the columns (i, i + 2), turned by p · 10000^(-2i/4)).
constexpr row rotate_at(const row& r, std::size_t p) {
  row out{};
  for (std::size_t i = 0; i < 2; ++i) {
    const double theta = static_cast<double>(p) * cxmat::exp(-2.0 * static_cast<double>(i) / 4.0 * cxmat::log(10000.0));
    const double c = cxmat::cos(theta), s = cxmat::sin(theta);
    out(0, i) = r(0, i) * c - r(0, i + 2) * s;
    out(0, i + 2) = r(0, i + 2) * c + r(0, i) * s;
  }
  return out;
}

// Given: the cache of one layer, room for 8 positions; rows 0..filled-1 hold positions 0..filled-1.
struct cache {
  cxmat::matrix<double, 8, 4> keys{};
  cxmat::matrix<double, 8, 4> values{};
  std::size_t filled = 0;
};

// Given: softmax(q·Kᵀ/√d)·V over the first `count` rows of the cache.
constexpr row attend(const row& q, const cache& c, std::size_t count) {
  double w[8]{};
  double largest = -1e300, total = 0;
  for (std::size_t j = 0; j < count; ++j) {
    for (std::size_t i = 0; i < 4; ++i) w[j] += q(0, i) * c.keys(j, i) / 2.0;
    largest = w[j] > largest ? w[j] : largest;
  }
  for (std::size_t j = 0; j < count; ++j) total += (w[j] = cxmat::exp(w[j] - largest));
  row out{};
  for (std::size_t j = 0; j < count; ++j) {
    for (std::size_t i = 0; i < 4; ++i) out(0, i) += w[j] / total * c.values(j, i);
  }
  return out;
}

// TODO: one token x through the head: its key and value go into the cache at its position, and
// its query attends to every cached position up to its own. This step puts every token at
// position 0, so each token sees only itself.
constexpr row step(cache& c, const row& x) {
  const std::size_t position = 0;
  const row q = rotate_at(x * Wq, position);
  const row k = rotate_at(x * Wk, position);
  const row v = x * Wv;
  for (std::size_t i = 0; i < 4; ++i) {
    c.keys(position, i) = k(0, i);
    c.values(position, i) = v(0, i);
  }
  c.filled = position + 1;
  return attend(q, c, c.filled);
}

// The prompt, one step per token, then the new token.
struct result {
  row out;
  cache c;
};
constexpr result cached = [] {
  cache c{};
  step(c, cxmat::select_rows<0>(X));
  step(c, cxmat::select_rows<1>(X));
  step(c, cxmat::select_rows<2>(X));
  const row out = step(c, cxmat::select_rows<3>(X));
  return result{out, c};
}();

// ---- The checks. Leave them as they are. ----
static_assert(cached.c.filled == 4, "the cache holds 4 positions after the 3 prompt tokens and the new one");
static_assert(answers::close(cxmat::select_rows<0, 1, 2, 3>(cached.c.keys), answers::ex21::keys),
              "the cache's row p holds token p's key, turned by rotary at position p");
static_assert(answers::close(cxmat::select_rows<0, 1, 2, 3>(cached.c.values), answers::ex21::values),
              "the cache's row p holds token p's value, not turned");
static_assert(answers::close(cached.out, answers::ex21::last_row), "the step's output: its query, turned at its position, over positions 0..3");
static_assert(answers::close(cached.out, cxmat::select_rows<3>(cxmat::scaled_dot_product_attention(X * Wq, X * Wk, X * Wv, cxmat::causal, cxmat::rotary()))),
              "the step equals the last row of the whole causal pass");
