// Hashes of every output bit of the attention paths at n = d = 32 (double): each computed once
// in a constant expression (prefix ct) and once at run time (prefix rt), plus run-time softmax
// rows with special values. A kernel change that must not move results (a cheaper constant
// path, one switch between paths) is checked by running this before and after it on each
// compiler: the printed lines must not change. docs/compile_time.md records the hashes.
#include <cstdint>
#include <cstdio>
#include <limits>

#include <cxmat/attention.hpp>
#include <cxmat/ops.hpp>

#include "inputs.hpp"

namespace cxmat_bench {

// FNV-1a over the bits of every element, in row-major order.
struct fnv1a {
  std::uint64_t h = 0xcbf29ce484222325U;
  constexpr void add(double x) noexcept {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    for (int b = 0; b < 64; b += 8) {
      h ^= (bits >> b) & 0xFFU;
      h *= 0x100000001b3U;
    }
  }
};

template <class M>
constexpr std::uint64_t hash_of(const M& m) noexcept {
  fnv1a f;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) f.add(m.elems[i][j]);
  }
  return f.h;
}

template <class T, cxmat::extent B, cxmat::extent R, cxmat::extent C>
constexpr std::uint64_t hash_of(const cxmat::batch<T, B, R, C>& m) noexcept {
  fnv1a f;
  for (std::size_t b = 0; b < B.size; ++b) {
    for (std::size_t i = 0; i < R.size; ++i) {
      for (std::size_t j = 0; j < C.size; ++j) f.add(m.items[b].elems[i][j]);
    }
  }
  return f.h;
}

// A mask with keys masked in the middle, at the start and alternating, varying by row.
constexpr cxmat::matrix<bool, n, n> holes() noexcept {
  cxmat::matrix<bool, n, n> m{};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) m.elems[i][j] = !((j + i) % 3 == 0 || (j > n / 3 && j < n / 2));
  }
  m.elems[1][0] = true;
  return m;
}

inline constexpr auto Q = random_matrix<n, d>(11, 2.0);
inline constexpr auto K = random_matrix<n, d>(12, 2.0);
inline constexpr auto V = random_matrix<n, d>(13);
inline constexpr auto B = random_matrix<n, n>(14, 3.0);
inline constexpr auto M = holes();
inline constexpr auto Wk2 = random_matrix<d, d / 2>(15);
inline constexpr auto Wv2 = random_matrix<d, d / 2>(16);
inline constexpr auto Xb = cxmat::batch<double, 2, n, d>{{X, Q}};
inline constexpr auto heads_tuple = cxmat::make_heads(
    cxmat::attention_head{random_matrix<d, d / 4>(21), random_matrix<d, d / 4>(22), random_matrix<d, d / 4>(23)},
    cxmat::attention_head{random_matrix<d, d / 2>(24), random_matrix<d, d / 2>(25), random_matrix<d, d / 4>(26)});

// Each case is a function, so the same call is evaluated at compile time and at run time.
constexpr auto layer() { return cxmat::multi_head_attention<heads>(X, Wq, Wk, Wv, Wo); }
constexpr auto product() { return cxmat::matmul(X, Wq); }
constexpr auto softmax() { return cxmat::softmax_rows(B); }
constexpr auto scores() { return cxmat::attention_scores(Q, K); }
constexpr auto weights() { return cxmat::attention_weights(Q, K); }
constexpr auto sdpa() { return cxmat::scaled_dot_product_attention(Q, K, V); }
constexpr auto masked() { return cxmat::scaled_dot_product_attention(Q, K, V, cxmat::mask(M)); }
constexpr auto causal() { return cxmat::scaled_dot_product_attention(Q, K, V, cxmat::causal); }
constexpr auto biased() { return cxmat::scaled_dot_product_attention(Q, K, V, cxmat::bias(B)); }
constexpr auto mha_masked() { return cxmat::multi_head_attention<heads>(X, Wq, Wk, Wv, Wo, cxmat::causal); }
constexpr auto gqa() { return cxmat::grouped_query_attention<4, 2>(Q, X, Wq, Wk2, Wv2, Wo); }
constexpr auto per_head() { return cxmat::multi_head_attention(X, heads_tuple); }
constexpr auto batched() { return cxmat::multi_head_attention<heads>(Xb, Wq, Wk, Wv, Wo); }

#define CXMAT_HASH_CASE(name)                                                                                    \
  {                                                                                                              \
    constexpr std::uint64_t at_compile_time = hash_of(name());                                                   \
    const auto at_run_time = name();                                                                             \
    std::printf("ct %-10s %016llx\nrt %-10s %016llx\n", #name, static_cast<unsigned long long>(at_compile_time), \
                #name, static_cast<unsigned long long>(hash_of(at_run_time)));                                   \
  }

// Rows with NaN, +inf, all -inf, -inf in the middle and an entry below the cutoff: run time only
// (their constant-evaluation results are checked in static_tests).
std::uint64_t special_rows() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  cxmat::matrix<double, 6, 9> m{};
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < 9; ++j) m.elems[i][j] = static_cast<double>(j) * 0.5 - static_cast<double>(i);
  }
  m.elems[0][3] = std::numeric_limits<double>::quiet_NaN();
  m.elems[1][2] = inf;
  m.elems[1][7] = inf;
  for (std::size_t j = 0; j < 9; ++j) m.elems[2][j] = -inf;
  m.elems[3][4] = -inf;
  m.elems[4][0] = -1000.0;
  return hash_of(cxmat::softmax_rows(m));
}

}  // namespace cxmat_bench

int main() {
  using namespace cxmat_bench;
  CXMAT_HASH_CASE(layer)
  CXMAT_HASH_CASE(product)
  CXMAT_HASH_CASE(softmax)
  CXMAT_HASH_CASE(scores)
  CXMAT_HASH_CASE(weights)
  CXMAT_HASH_CASE(sdpa)
  CXMAT_HASH_CASE(masked)
  CXMAT_HASH_CASE(causal)
  CXMAT_HASH_CASE(biased)
  CXMAT_HASH_CASE(mha_masked)
  CXMAT_HASH_CASE(gqa)
  CXMAT_HASH_CASE(per_head)
  CXMAT_HASH_CASE(batched)
  std::printf("rt %-10s %016llx\n", "special", static_cast<unsigned long long>(special_rows()));
  return 0;
}
