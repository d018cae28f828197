// Attention at run time (transposed key window, blocked score and output products, block
// softmax; loops where there are no packets) against a long-double reference and against the
// constant-evaluation path (scores to the bit where nothing is fused, long double attention to
// the bit), and the consistency of its forms: weights handed to a sink equal the weights
// computed on their own, and multi-head attention equals its heads computed one by one, to the
// bit.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/single_head.hpp>
#include <cxmat/core/matrix.hpp>

#include "kernel_support.hpp"
#include "test_support/catch.hpp"

namespace {

using cxmat::matrix;
using kernel_test::at_run_time;
using kernel_test::generated;

template <std::size_t L, std::size_t S, std::size_t DK, std::size_t DV>
struct shape {
  static constexpr std::size_t l = L, s = S, dk = DK, dv = DV;
};

// Exact attention of the given (rounded) inputs in long double, optionally causal (key j <= i).
template <class Q, class K, class V>
std::vector<long double> reference(const Q& q, const K& k, const V& v, bool causal) {
  constexpr std::size_t L = Q::rows, DK = Q::cols, S = K::rows, DV = V::cols;
  std::vector<long double> out(L * DV);
  std::vector<long double> s(S);
  std::vector<long double> w(S);
  for (std::size_t i = 0; i < L; ++i) {
    for (std::size_t j = 0; j < S; ++j) {
      long double dot = 0.0L;
      for (std::size_t c = 0; c < DK; ++c) dot += static_cast<long double>(q(i, c)) * static_cast<long double>(k(j, c));
      s[j] = (causal && j > i) ? -INFINITY : dot / std::sqrt(static_cast<long double>(DK));
    }
    kernel_test::reference_softmax(s.data(), w.data(), S);
    for (std::size_t c = 0; c < DV; ++c) {
      long double acc = 0.0L;
      for (std::size_t j = 0; j < S; ++j) acc += w[j] * static_cast<long double>(v(j, c));
      out[i * DV + c] = acc;
    }
  }
  return out;
}

// The bound on |computed - exact| for an output element (first order, see docs/performance.md):
// a score is off by at most ds = (DK + 2) ε max_ij Σ_c |q_ic k_jc| / √DK, which moves a weight
// by 2 ds of itself; softmax adds (S + 4 + D / 2) ε of each weight, D the spread of the scores;
// the sum over S values adds S ε / 2. Outputs are averages of values, so all of it is relative
// to max |v|. Doubled, for the second-order terms and the ~1-ulp exponential.
template <class Q, class K, class V>
long double bound(const Q& q, const K& k, const V& v) {
  using T = typename Q::value_type;
  constexpr std::size_t L = Q::rows, DK = Q::cols, S = K::rows, DV = V::cols;
  long double qk = 0.0L;
  long double spread = 0.0L;
  for (std::size_t i = 0; i < L; ++i) {
    for (std::size_t j = 0; j < S; ++j) {
      long double a = 0.0L;
      for (std::size_t c = 0; c < DK; ++c)
        a += std::fabs(static_cast<long double>(q(i, c)) * static_cast<long double>(k(j, c)));
      qk = std::fmax(qk, a);
    }
  }
  spread = 2 * qk / std::sqrt(static_cast<long double>(DK));
  long double vmax = 0.0L;
  for (std::size_t j = 0; j < S; ++j) {
    for (std::size_t c = 0; c < DV; ++c) vmax = std::fmax(vmax, std::fabs(static_cast<long double>(v(j, c))));
  }
  const long double ds = static_cast<long double>(DK + 2) * qk / std::sqrt(static_cast<long double>(DK));
  const long double softmax = static_cast<long double>(S + 4) + spread / 2;
  return 2 * kernel_test::eps<T> * vmax * (2 * ds + softmax + static_cast<long double>(S) / 2);
}

template <class T, std::size_t L, std::size_t S, std::size_t DK, std::size_t DV>
void check_against_reference(std::uint64_t seed) {
  const auto q = at_run_time(generated<matrix<T, L, DK>>(seed, 2.0));
  const auto k = at_run_time(generated<matrix<T, S, DK>>(seed + 1, 2.0));
  const auto v = at_run_time(generated<matrix<T, S, DV>>(seed + 2));
  const long double tol = bound(q, k, v);
  for (const bool causal : {false, true}) {
    const auto out = causal ? cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal)
                            : cxmat::scaled_dot_product_attention(q, k, v);
    const auto exact = reference(q, k, v, causal);
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t c = 0; c < DV; ++c) {
        INFO("L " << L << " S " << S << " DK " << DK << " DV " << DV << (causal ? " causal" : "") << " (" << i << ", "
                  << c << "): " << out(i, c) << " vs " << static_cast<double>(exact[i * DV + c]) << ", bound "
                  << static_cast<double>(tol));
        CHECK(std::fabs(static_cast<long double>(out(i, c)) - exact[i * DV + c]) <= tol);
      }
    }
  }
}

template <class T, std::size_t L, std::size_t S, std::size_t DK, std::size_t DV>
constexpr matrix<T, L, DV> attention_at_compile_time(std::uint64_t seed, bool causal) {
  const auto q = generated<matrix<T, L, DK>>(seed, 2.0);
  const auto k = generated<matrix<T, S, DK>>(seed + 1, 2.0);
  const auto v = generated<matrix<T, S, DV>>(seed + 2);
  return causal ? cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal)
                : cxmat::scaled_dot_product_attention(q, k, v);
}

template <class T, std::size_t L, std::size_t S, std::size_t DK, std::size_t DV, std::uint64_t Seed>
void check_paths_agree() {
  constexpr auto plain = attention_at_compile_time<T, L, S, DK, DV>(Seed, false);
  constexpr auto causal = attention_at_compile_time<T, L, S, DK, DV>(Seed, true);
  const auto q = at_run_time(generated<matrix<T, L, DK>>(Seed, 2.0));
  const auto k = at_run_time(generated<matrix<T, S, DK>>(Seed + 1, 2.0));
  const auto v = at_run_time(generated<matrix<T, S, DV>>(Seed + 2));
  // Both paths are within bound() of the exact value.
  const long double tol = 2 * bound(q, k, v);
  const auto rt_plain = cxmat::scaled_dot_product_attention(q, k, v);
  const auto rt_causal = cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal);
  for (std::size_t i = 0; i < L; ++i) {
    for (std::size_t c = 0; c < DV; ++c) {
      INFO("L " << L << " S " << S << " DK " << DK << " DV " << DV << " (" << i << ", " << c << ")");
      CHECK(std::fabs(static_cast<long double>(rt_plain(i, c)) - static_cast<long double>(plain(i, c))) <= tol);
      CHECK(std::fabs(static_cast<long double>(rt_causal(i, c)) - static_cast<long double>(causal(i, c))) <= tol);
    }
  }
  // The first query under a causal mask sees one key: its output is that key's value, exactly.
  for (std::size_t c = 0; c < DV; ++c) CHECK(rt_causal(0, c) == v(0, c));
}

// Scores at run time against the constant evaluator's: every form sums q_i · k_j over the
// columns in increasing order from +0 and divides by the same divisor (the blocked product on
// packets, the loops without them), so they agree to the bit where nothing is fused.
template <class T, std::size_t L, std::size_t S, std::size_t DK, std::uint64_t Seed>
void check_scores_agree() {
  constexpr auto at_compile_time = cxmat::attention_scores(generated<matrix<T, L, DK>>(Seed, 2.0),
                                                           generated<matrix<T, S, DK>>(Seed + 1, 2.0), cxmat::causal);
  const auto q = at_run_time(generated<matrix<T, L, DK>>(Seed, 2.0));
  const auto k = at_run_time(generated<matrix<T, S, DK>>(Seed + 1, 2.0));
  const auto at_run_time = cxmat::attention_scores(q, k, cxmat::causal);
  INFO("L " << L << " S " << S << " DK " << DK);
  if constexpr (!kernel_test::may_fuse) {
    CHECK(at_run_time == at_compile_time);
  } else {
    // Fused multiply-adds round once where the constant path rounds twice: each path is within
    // (DK + 1) ε Σ_c |q_ic k_jc| / √DK of the exact score. Masked scores are -inf on both.
    bool close = true;
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < S; ++j) {
        long double magnitude = 0.0L;
        for (std::size_t c = 0; c < DK; ++c)
          magnitude += std::fabs(static_cast<long double>(q(i, c)) * static_cast<long double>(k(j, c)));
        const long double bound = 2 * static_cast<long double>(DK + 1) * kernel_test::eps<T> * magnitude /
                                  std::sqrt(static_cast<long double>(DK));
        const long double rt = at_run_time(i, j);
        const long double ct = at_compile_time(i, j);
        close = close && (j > i ? rt == ct : std::fabs(rt - ct) <= bound);
      }
    }
    CHECK(close);
  }
}

// Attention in long double: at run time the products take the loops (long double has no blocked
// kernels) and softmax its plain form, the code constant evaluation runs, so the results are the
// compile-time bits, masked keys included.
template <std::size_t L, std::size_t S, std::size_t DK, std::size_t DV, std::uint64_t Seed>
void check_long_double_paths_agree() {
  using T = long double;
  constexpr auto plain = attention_at_compile_time<T, L, S, DK, DV>(Seed, false);
  constexpr auto causal = attention_at_compile_time<T, L, S, DK, DV>(Seed, true);
  const auto q = at_run_time(generated<matrix<T, L, DK>>(Seed, 2.0));
  const auto k = at_run_time(generated<matrix<T, S, DK>>(Seed + 1, 2.0));
  const auto v = at_run_time(generated<matrix<T, S, DV>>(Seed + 2));
  INFO("L " << L << " S " << S << " DK " << DK << " DV " << DV);
  CHECK(cxmat::scaled_dot_product_attention(q, k, v) == plain);
  CHECK(cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal) == causal);
}

// Column block h of width W of m.
template <std::size_t W, class M>
matrix<typename M::value_type, M::rows, W> block(const M& m, std::size_t h) {
  matrix<typename M::value_type, M::rows, W> out{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < W; ++j) out(i, j) = m(i, h * W + j);
  }
  return out;
}

template <class T, std::size_t N, std::size_t D, std::size_t H>
void check_forms_agree(std::uint64_t seed) {
  const auto x = at_run_time(generated<matrix<T, N, D>>(seed));
  const auto wq = at_run_time(generated<matrix<T, D, D>>(seed + 1));
  const auto wk = at_run_time(generated<matrix<T, D, D>>(seed + 2));
  const auto wv = at_run_time(generated<matrix<T, D, D>>(seed + 3));
  const auto both = cxmat::multi_head_attention_with_weights<H>(x, wq, wk, wv);
  INFO("N " << N << " D " << D << " H " << H);
  // Weights handed to the sink by the block softmax = weights computed row by row.
  CHECK(both.weights == cxmat::multi_head_attention_weights<H>(x, wq, wk));
  // The block form = each head on its own column blocks, side by side.
  const auto q = cxmat::matmul(x, wq);
  const auto k = cxmat::matmul(x, wk);
  const auto v = cxmat::matmul(x, wv);
  constexpr std::size_t dk = D / H;
  for (std::size_t h = 0; h < H; ++h) {
    const auto head = cxmat::scaled_dot_product_attention(block<dk>(q, h), block<dk>(k, h), block<dk>(v, h));
    CHECK(head == block<dk>(both.output, h));
    CHECK(cxmat::attention_weights(block<dk>(q, h), block<dk>(k, h)) == both.weights[h]);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("run-time attention is within the error bound of the exact result", "[kernels][attention]",
                   (shape<1, 1, 1, 1>), (shape<5, 5, 2, 2>), (shape<3, 7, 4, 3>), (shape<9, 17, 8, 8>),
                   (shape<8, 8, 16, 16>), (shape<13, 33, 5, 7>), (shape<17, 64, 16, 16>), (shape<33, 40, 8, 12>),
                   (shape<64, 64, 8, 8>), (shape<20, 129, 64, 32>)) {
  using S = TestType;
  const std::uint64_t seed = 7 * S::l + 11 * S::s + 13 * S::dk + S::dv;
  SECTION("float") { check_against_reference<float, S::l, S::s, S::dk, S::dv>(seed); }
  SECTION("double") { check_against_reference<double, S::l, S::s, S::dk, S::dv>(seed); }
}

TEST_CASE("run-time and compile-time attention agree within the error bound", "[kernels][attention]") {
  check_paths_agree<float, 5, 5, 2, 2, 1>();
  check_paths_agree<float, 9, 17, 8, 8, 2>();
  check_paths_agree<float, 12, 20, 16, 4, 3>();
  check_paths_agree<double, 5, 5, 2, 2, 4>();
  check_paths_agree<double, 11, 9, 3, 5, 5>();
  check_paths_agree<double, 10, 18, 16, 16, 6>();
}

TEST_CASE("run-time and compile-time scores agree (bit for bit where nothing is fused)", "[kernels][attention]") {
  check_scores_agree<float, 5, 6, 3, 31>();
  check_scores_agree<float, 9, 17, 16, 32>();
  check_scores_agree<double, 7, 7, 8, 33>();
  check_scores_agree<double, 4, 13, 5, 34>();
}

TEST_CASE("long double attention at run time gives the compile-time bits", "[kernels][attention]") {
  check_long_double_paths_agree<5, 6, 3, 4, 41>();
  check_long_double_paths_agree<8, 8, 8, 8, 42>();
}

TEST_CASE("attention's forms agree to the bit at run time", "[kernels][attention]") {
  check_forms_agree<float, 5, 6, 3>(1);
  check_forms_agree<float, 17, 32, 4>(2);
  check_forms_agree<float, 40, 24, 2>(3);
  check_forms_agree<double, 5, 6, 3>(4);
  check_forms_agree<double, 9, 16, 2>(5);
  check_forms_agree<double, 33, 24, 3>(6);
}
