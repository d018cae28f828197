// What the hot spots of a generation step would cost the compiler written another way: each
// CXMAT_BENCH_ALT is one constant expression, bisected by run.py like pieces.cpp. With
// CXMAT_BENCH_CHECK every alternative is checked by static_assert to give the library's bits (the
// build compiles it so; run.py bisects without, as the check evaluates both forms in one
// expression).
//   0  the inputs alone (the baseline)
//   1  detail::logits_of(x, head) as it is: a scalar loop over V x D
//   2  the same logits, one fold per token over the head's row, read in place (no copy, no call)
//   3  the seven products of one block with one row, as matmul does them (b copied transposed)
//   4  the same products as sums of b's rows scaled by a's entries (no transposed copy)
//   5  the rotary rotation of one block's q and k as it is, 10 times
//   6  the same rotation from cos and sin computed once per position, 10 times
#include <cstddef>
#include <utility>

#include "llama_weights.hpp"

#ifndef CXMAT_BENCH_ALT
#define CXMAT_BENCH_ALT 1
#endif

namespace {
using model_type = bench::model_type;
using T = float;
constexpr auto D = model_type::d_model;
[[maybe_unused]] constexpr auto KV = model_type::kv_width;
constexpr std::size_t V = bench::vocab;
[[maybe_unused]] constexpr long long position = 7;

[[maybe_unused]] constexpr cxmat::matrix<T, 1, D> x = [] {
  cxmat::matrix<T, 1, D> r{};
  for (std::size_t j = 0; j < D.size; ++j) r.elems[0][j] = bench::model.token_embedding.elems[3][j];
  return r;
}();

// Logits: out[v] = sum_k x[k] · head[v][k], k increasing from +0 (detail::logits_of's order).
template <std::size_t... Ks>
constexpr cxmat::matrix<T, 1, V> logits_fold(const cxmat::matrix<T, 1, D>& a, const cxmat::matrix<T, V, D>& head,
                                             std::index_sequence<Ks...>) {
  cxmat::matrix<T, 1, V> out{};
  T xi[D.size]{};
  ((xi[Ks] = a.elems[0][Ks]), ...);
  for (std::size_t v = 0; v < V; ++v) out.elems[0][v] = (T{} + ... + (xi[Ks] * head.elems[v][Ks]));
  return out;
}

// One row times b (K x C): out[j] = sum_k a[k] · b[k][j], k increasing from +0 (matmul's order),
// as a sum of b's rows: one comma fold over the columns per k, b read in place.
template <std::size_t K, std::size_t C, std::size_t... Cs>
constexpr void row_times(const T (&a)[K], const T (&b)[K][C], T (&out)[C], std::index_sequence<Cs...>) {
  T o[C]{};
  for (std::size_t k = 0; k < K; ++k) {
    const T ak = a[k];
    ((o[Cs] = o[Cs] + ak * b[k][Cs]), ...);
  }
  ((out[Cs] = o[Cs]), ...);
}
template <class M>
constexpr auto row_product(const auto& a, const M& b) {
  cxmat::matrix<T, 1, M::col_extent> out{};
  row_times(a.elems[0], b.elems, out.elems[0], std::make_index_sequence<M::cols>{});
  return out;
}

template <class A, class B>
constexpr bool same_bits(const A& a, const B& b) {
  for (std::size_t i = 0; i < A::rows; ++i) {
    for (std::size_t j = 0; j < A::cols; ++j) {
      if (!(a.elems[i][j] == b.elems[i][j])) return false;
    }
  }
  return true;
}

constexpr float sum_of(const auto& m) {
  float s = 0.0f;
  for (const auto& row : m.elems) {
    for (float e : row) s += e;
  }
  return s;
}

#if CXMAT_BENCH_ALT == 0
constexpr float y = x.elems[0][0];
#elif CXMAT_BENCH_ALT == 1
constexpr auto logits = cxmat::detail::logits_of(x, bench::model.output);
constexpr float y = sum_of(logits);
#elif CXMAT_BENCH_ALT == 2
constexpr auto logits = logits_fold(x, bench::model.output, std::make_index_sequence<D.size>{});
constexpr float y = sum_of(logits);
#ifdef CXMAT_BENCH_CHECK
static_assert(same_bits(logits, cxmat::detail::logits_of(x, bench::model.output)));
#endif
#elif CXMAT_BENCH_ALT == 3 || CXMAT_BENCH_ALT == 4
template <class B>
constexpr auto product(const auto& a, const B& b) {
#if CXMAT_BENCH_ALT == 3
  return cxmat::matmul(a, b);
#else
  return row_product(a, b);
#endif
}
constexpr float y = [] {
  const auto& b = bench::model.blocks[0];
  const auto g = product(x, b.w_gate);
  return sum_of(product(x, b.w_q)) + sum_of(product(x, b.w_k)) + sum_of(product(x, b.w_v)) + sum_of(product(x, b.w_o)) +
         sum_of(g) + sum_of(product(x, b.w_up)) + sum_of(product(g, b.w_down));
}();
#if CXMAT_BENCH_ALT == 4 && defined(CXMAT_BENCH_CHECK)
static_assert(same_bits(row_product(x, bench::model.blocks[0].w_gate),
                        cxmat::matmul(x, bench::model.blocks[0].w_gate)));
static_assert(same_bits(row_product(row_product(x, bench::model.blocks[0].w_gate), bench::model.blocks[0].w_down),
                        cxmat::matmul(cxmat::matmul(x, bench::model.blocks[0].w_gate), bench::model.blocks[0].w_down)));
#endif
#elif CXMAT_BENCH_ALT == 5 || CXMAT_BENCH_ALT == 6
constexpr std::size_t half = model_type::block_type::head_width.size / 2;
struct angles {
  T c[half];
  T s[half];
};
// cos and sin of the position's angles, as rotate_rows computes them.
[[maybe_unused]] constexpr angles angles_at(long long p) {
  angles a{};
  const T log_base = cxmat::log(T(10000.0));
  for (std::size_t i = 0; i < half; ++i) {
    const T angle = static_cast<T>(p) * cxmat::detail::inverse_frequency<T>(i, 2 * half, log_base);
    a.c[i] = cxmat::cos(angle);
    a.s[i] = cxmat::sin(angle);
  }
  return a;
}
// rotate_rows' interleaved rotation with given cos and sin.
template <std::size_t C>
constexpr void rotate(T (&m)[1][C], std::size_t heads, const angles& a) {
  const std::size_t dk = C / heads;
  for (std::size_t i = 0; i < half; ++i) {
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t p = h * dk + 2 * i;
      const T u = m[0][p];
      const T w = m[0][p + 1];
      m[0][p] = u * a.c[i] - w * a.s[i];
      m[0][p + 1] = w * a.c[i] + u * a.s[i];
    }
  }
}
constexpr auto rotated = [] {
  cxmat::matrix<T, 1, D> q = x;
  cxmat::matrix<T, 1, KV> k{};
  for (std::size_t j = 0; j < KV.size; ++j) k.elems[0][j] = x.elems[0][j];
#if CXMAT_BENCH_ALT == 6
  const angles a = angles_at(position);  // once per step, shared by every block
#endif
  for (int r = 0; r < 10; ++r) {
#if CXMAT_BENCH_ALT == 5
    cxmat::detail::apply_rotary<model_type::heads>(q.elems, position, bench::model.rope);
    cxmat::detail::apply_rotary<model_type::kv_heads>(k.elems, position, bench::model.rope);
#else
    rotate(q.elems, model_type::heads, a);
    rotate(k.elems, model_type::kv_heads, a);
#endif
  }
  return q;
}();
constexpr float y = rotated.elems[0][1];
#if CXMAT_BENCH_ALT == 6 && defined(CXMAT_BENCH_CHECK)
static_assert([] {
  cxmat::matrix<T, 1, D> q = x;
  cxmat::matrix<T, 1, D> r = x;
  cxmat::detail::apply_rotary<model_type::heads>(q.elems, position, bench::model.rope);
  rotate(r.elems, model_type::heads, angles_at(position));
  return same_bits(q, r);
}());
#endif
#endif
static_assert(y == y, "the alternative was evaluated");
}  // namespace
