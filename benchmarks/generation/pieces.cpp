// The parts of one generation step, each alone in one constant expression, so that run.py can
// bisect what each costs the compiler (GCC operations, Clang steps). CXMAT_BENCH_PIECE picks it:
//   0  nothing but the inputs (the baseline)
//   1  step(model, cache, token): the whole step, all blocks and the logits (no choice)
//   2  model.hidden(cache, token): every block, no final norm or logits
//   3  model.logits_of(x): the final RMSNorm and the tied head (512 x 64)
//   4  one block, blocks[0](x, keys, values, position, angles), the angles made for the step
//   5  the seven products of one block with one row (x·w_q, w_k, w_v, heads·w_o, w_gate, w_up, w_down)
//   6  the rotary angles of a step and the rotation of one block's q (8 heads) and k (4 heads), 10 times
//   7  the cached attention of one block (8 heads over the filled rows)
//   8  choose_token(logits, greedy): the argmax over the vocabulary, 10 times
//   9  a generation value made and its cache zeroed (generation<M, Cap>{}), and one copy of it
// The cache holds CXMAT_BENCH_FILL positions before the step (CXMAT_BENCH_CAP rows in all). Its
// rows are embedding rows, not the keys and values a real prefix leaves: the counts depend on how
// many rows are filled, hardly on their values (run.py compares piece 1 with a link of chain.cpp).
#include <cstddef>

#include "llama_weights.hpp"

#ifndef CXMAT_BENCH_PIECE
#define CXMAT_BENCH_PIECE 1
#endif
#ifndef CXMAT_BENCH_FILL
#define CXMAT_BENCH_FILL 1
#endif
#ifndef CXMAT_BENCH_CAP
#define CXMAT_BENCH_CAP 40
#endif

namespace {
using model_type = bench::model_type;
using T = float;
constexpr std::size_t fill = CXMAT_BENCH_FILL;
constexpr std::size_t cap = CXMAT_BENCH_CAP;
static_assert(fill < cap);
constexpr auto D = model_type::d_model;
[[maybe_unused]] constexpr auto KV = model_type::kv_width;
using cache_type = model_type::cache_type<cap>;

// Inputs, each its own constant expression: a row of the embedding as x, embedding rows (their
// first kv_width columns) as the cached keys and values.
[[maybe_unused]] constexpr cxmat::matrix<T, 1, D> x = [] {
  cxmat::matrix<T, 1, D> r{};
  for (std::size_t j = 0; j < D.size; ++j) r.elems[0][j] = bench::model.token_embedding.elems[3][j];
  return r;
}();
#if CXMAT_BENCH_PIECE == 1 || CXMAT_BENCH_PIECE == 2 || CXMAT_BENCH_PIECE == 4 || CXMAT_BENCH_PIECE == 7
constexpr cache_type cache = [] {
  cache_type c{};
  for (std::size_t l = 0; l < model_type::layers; ++l) {
    for (std::size_t i = 0; i < fill; ++i) {
      for (std::size_t j = 0; j < KV.size; ++j) {
        c.keys[l].elems[i][j] = bench::model.token_embedding.elems[(7 * i + l) % bench::vocab][j];
        c.values[l].elems[i][j] = bench::model.token_embedding.elems[(7 * i + l + 1) % bench::vocab][D.size - 1 - j];
      }
    }
  }
  c.filled = fill;
  return c;
}();
#endif

constexpr float sum_of(const auto& m) {
  float s = 0.0f;
  for (const auto& row : m.elems) {
    for (float e : row) s += e;
  }
  return s;
}

// Pieces far cheaper than their inputs run `repeat` times in their expression.
[[maybe_unused]] constexpr int repeat = 10;

#if CXMAT_BENCH_PIECE == 0
constexpr float y = x.elems[0][0];
#elif CXMAT_BENCH_PIECE == 1
constexpr float y = [] {
  cache_type c = cache;
  return sum_of(cxmat::step(bench::model, c, 5));
}();
#elif CXMAT_BENCH_PIECE == 2
constexpr float y = [] {
  cache_type c = cache;
  const cxmat::matrix<int, 1, 1> token{{{5}}};
  return sum_of(bench::model.hidden(c, token));
}();
#elif CXMAT_BENCH_PIECE == 3
constexpr float y = sum_of(bench::model.logits_of(x));
#elif CXMAT_BENCH_PIECE == 4
constexpr float y = [] {
  cache_type c = cache;
  using block = model_type::block_type;
  const auto angles = cxmat::detail::make_rotary_angles<T, 1, block::head_width.size / 2>(
      static_cast<long long>(fill), static_cast<T>(bench::model.rope.base));
  return sum_of(
      bench::model.blocks[0].template operator()<model_type::layout>(x, c.keys[0], c.values[0], fill, angles));
}();
#elif CXMAT_BENCH_PIECE == 5
constexpr float y = [] {
  const auto& b = bench::model.blocks[0];
  const auto q = cxmat::matmul(x, b.w_q);
  const auto k = cxmat::matmul(x, b.w_k);
  const auto v = cxmat::matmul(x, b.w_v);
  const auto o = cxmat::matmul(x, b.w_o);
  const auto g = cxmat::matmul(x, b.w_gate);
  const auto u = cxmat::matmul(x, b.w_up);
  const auto d = cxmat::matmul(g, b.w_down);
  return sum_of(q) + sum_of(k) + sum_of(v) + sum_of(o) + sum_of(u) + sum_of(d);
}();
#elif CXMAT_BENCH_PIECE == 6
constexpr float y = [] {
  cxmat::matrix<T, 1, D> q = x;
  cxmat::matrix<T, 1, KV> k{};
  for (std::size_t j = 0; j < KV.size; ++j) k.elems[0][j] = x.elems[0][j];
  using block = model_type::block_type;
  constexpr auto pairs = cxmat::detail::rotary_pairs_of<model_type::layout>;
  for (int r = 0; r < repeat; ++r) {
    const auto angles = cxmat::detail::make_rotary_angles<T, 1, block::head_width.size / 2>(
        static_cast<long long>(fill), static_cast<T>(bench::model.rope.base));
    cxmat::detail::rotate_rows_by<pairs>(q.elems, model_type::heads, angles);
    cxmat::detail::rotate_rows_by<pairs>(k.elems, model_type::kv_heads, angles);
  }
  return q.elems[0][1] + k.elems[0][1];
}();
#elif CXMAT_BENCH_PIECE == 7
constexpr float y = [] {
  cache_type c = cache;
  cxmat::matrix<T, 1, KV> k{};
  for (std::size_t j = 0; j < KV.size; ++j) k.elems[0][j] = x.elems[0][j];
  cxmat::detail::store_rows(c.keys[0], c.values[0], k, k, fill);
  cxmat::matrix<T, 1, D> heads{};
  cxmat::detail::cached_heads<model_type::heads, model_type::kv_heads>(
      x.elems, c.keys[0].elems, c.values[0].elems, heads.elems, fill,
      cxmat::detail::sqrt_of_size<T>(model_type::block_type::head_width.size));
  return sum_of(heads);
}();
#elif CXMAT_BENCH_PIECE == 8
constexpr cxmat::matrix<T, 1, bench::vocab> logits = [] {
  cxmat::matrix<T, 1, bench::vocab> r{};
  for (std::size_t j = 0; j < bench::vocab; ++j) r.elems[0][j] = bench::model.token_embedding.elems[j][0];
  return r;
}();
constexpr float y = [] {
  int sum = 0;
  for (int r = 0; r < repeat; ++r) sum += cxmat::choose_token(logits, cxmat::greedy, 1);
  return static_cast<float>(sum);
}();
#elif CXMAT_BENCH_PIECE == 9
constexpr float y = [] {
  cxmat::generation<model_type, cap> g{};
  g.cache.filled = 1;
  const auto copy = g;
  return static_cast<float>(copy.cache.filled);
}();
#endif
static_assert(y == y, "the piece was evaluated");
}  // namespace
