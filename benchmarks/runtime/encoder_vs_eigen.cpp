// Run-time speed of cxmat's transformer encoder layer (encoder_layer: nn.TransformerEncoderLayer
// with ReLU, post-norm) against the same layer written with Eigen 3.4 fixed-size matrices, in the
// same process and the same way as attention_vs_eigen.cpp: both results are compared before
// anything is timed, and the paired benchmark times them in alternating bursts. Run with
// run_benchmarks.sh (see docs/performance.md).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Dense>

#include "paired_timing.hpp"

#include <cxmat/core/matrix.hpp>
#include <cxmat/transformer/layers.hpp>

namespace {

template <class T, int Rows, int Cols>
using emat = Eigen::Matrix<T, Rows, Cols, (Cols == 1 ? Eigen::ColMajor : Eigen::RowMajor)>;

// The layer as an Eigen user would write it: noalias() products, bias rows added rowwise, the
// attention of attention_vs_eigen.cpp with the projections' biases, LayerNorm over each row
// (biased variance, eps inside the square root), and the ReLU feed-forward.
template <class T, int N, int D, int H, int F>
struct eigen_encoder {
  static constexpr int dk = D / H;
  emat<T, N, D> x, q, k, v, z, h, y;
  emat<T, N, N> s;
  emat<T, N, F> f;
  emat<T, D, D> wq, wk, wv, wo;
  emat<T, 1, D> bq, bk, bv, bo, b2, g1, be1, g2, be2;
  emat<T, D, F> w1;
  emat<T, 1, F> b1;
  emat<T, F, D> w2;
  T eps = T(1e-5);

  static void layer_norm(emat<T, N, D>& m, const emat<T, 1, D>& gamma, const emat<T, 1, D>& beta, T eps) {
    const Eigen::Matrix<T, N, 1> mean = m.rowwise().mean();
    m.colwise() -= mean;
    const Eigen::Array<T, N, 1> inv = (m.array().square().rowwise().mean() + eps).rsqrt();
    m.array().colwise() *= inv;
    m.array().rowwise() *= gamma.array();
    m.rowwise() += beta;
  }

  [[gnu::noinline]] void run() {
    q.noalias() = x * wq;
    q.rowwise() += bq;
    k.noalias() = x * wk;
    k.rowwise() += bk;
    v.noalias() = x * wv;
    v.rowwise() += bv;
    const T divisor = std::sqrt(static_cast<T>(dk));
    for (int hd = 0; hd < H; ++hd) {
      s.noalias() = q.template middleCols<dk>(hd * dk) * k.template middleCols<dk>(hd * dk).transpose();
      s /= divisor;
      s.colwise() -= s.rowwise().maxCoeff();
      s = s.array().exp();
      s.array().colwise() /= s.rowwise().sum().array();
      z.template middleCols<dk>(hd * dk).noalias() = s * v.template middleCols<dk>(hd * dk);
    }
    h = x;
    h.noalias() += z * wo;
    h.rowwise() += bo;
    layer_norm(h, g1, be1, eps);
    f.noalias() = h * w1;
    f.rowwise() += b1;
    f = f.cwiseMax(T(0));
    y = h;
    y.noalias() += f * w2;
    y.rowwise() += b2;
    layer_norm(y, g2, be2, eps);
  }
};

template <class T, std::size_t N, std::size_t D, std::size_t H, std::size_t F>
struct cxmat_encoder {
  cxmat::encoder_layer<T, D, H, F> layer;
  cxmat::matrix<T, N, D> x, out;
};

// Uniform values in [-scale, scale) + offset, one stream for both sides.
template <class T>
struct filler {
  std::mt19937_64 rng;
  template <class M>
  void operator()(M& m, T scale, T offset = T(0)) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (std::size_t i = 0; i < M::rows; ++i) {
      for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = offset + static_cast<T>(dist(rng)) * scale;
    }
  }
};

template <class T, class M, class E>
void copy(const M& from, E& to) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) to(int(i), int(j)) = from(i, j);
  }
}

template <class T, std::size_t N, std::size_t D, std::size_t H, std::size_t F>
void fill(cxmat_encoder<T, N, D, H, F>& c, eigen_encoder<T, int(N), int(D), int(H), int(F)>& e) {
  filler<T> r{std::mt19937_64(42)};
  const T wd = T(1) / std::sqrt(static_cast<T>(D)), wf = T(1) / std::sqrt(static_cast<T>(F)), b = T(0.1);
  auto& a = c.layer.self_attn;
  r(c.x, T(1));
  r(a.w_q, wd), r(a.w_k, wd), r(a.w_v, wd), r(a.w_o, wd);
  r(a.b_q, b), r(a.b_k, b), r(a.b_v, b), r(a.b_o, b);
  r(c.layer.linear1.weight, wd), r(c.layer.linear1.bias, b);
  r(c.layer.linear2.weight, wf), r(c.layer.linear2.bias, b);
  r(c.layer.norm1.weight, T(0.25), T(1)), r(c.layer.norm1.bias, b);
  r(c.layer.norm2.weight, T(0.25), T(1)), r(c.layer.norm2.bias, b);
  copy<T>(c.x, e.x);
  copy<T>(a.w_q, e.wq), copy<T>(a.w_k, e.wk), copy<T>(a.w_v, e.wv), copy<T>(a.w_o, e.wo);
  copy<T>(a.b_q, e.bq), copy<T>(a.b_k, e.bk), copy<T>(a.b_v, e.bv), copy<T>(a.b_o, e.bo);
  copy<T>(c.layer.linear1.weight, e.w1), copy<T>(c.layer.linear1.bias, e.b1);
  copy<T>(c.layer.linear2.weight, e.w2), copy<T>(c.layer.linear2.bias, e.b2);
  copy<T>(c.layer.norm1.weight, e.g1), copy<T>(c.layer.norm1.bias, e.be1);
  copy<T>(c.layer.norm2.weight, e.g2), copy<T>(c.layer.norm2.bias, e.be2);
  e.eps = c.layer.norm1.eps;
}

template <class T, std::size_t N, std::size_t D, std::size_t H, std::size_t F>
[[gnu::noinline]] void run_cxmat(cxmat_encoder<T, N, D, H, F>& c) {
  c.out = c.layer(c.x);
}

// Largest |a - b| / max(|b|, 1) over the outputs (LayerNorm's outputs are of order 1).
template <class C, class E>
double max_difference(const C& c, const E& e) {
  double worst = 0.0;
  for (std::size_t i = 0; i < decltype(c.out)::rows; ++i) {
    for (std::size_t j = 0; j < decltype(c.out)::cols; ++j) {
      const double a = static_cast<double>(c.out(i, j));
      const double b = static_cast<double>(e.y(int(i), int(j)));
      worst = std::fmax(worst, std::fabs(a - b) / std::fmax(std::fabs(b), 1.0));
    }
  }
  return worst;
}

template <class T>
constexpr double agreement = sizeof(T) == 4 ? 1e-4 : 1e-12;

template <class T, std::size_t N, std::size_t D, std::size_t H, std::size_t F>
struct pair_of {
  std::unique_ptr<cxmat_encoder<T, N, D, H, F>> c = std::make_unique<cxmat_encoder<T, N, D, H, F>>();
  std::unique_ptr<eigen_encoder<T, int(N), int(D), int(H), int(F)>> e =
      std::make_unique<eigen_encoder<T, int(N), int(D), int(H), int(F)>>();
  pair_of() { fill(*c, *e); }
  bool agree() {
    run_cxmat(*c);
    e->run();
    return max_difference(*c, *e) <= agreement<T>;
  }
};

template <class T, std::size_t N, std::size_t D, std::size_t H, std::size_t F>
void bm_cxmat(benchmark::State& state) {
  pair_of<T, N, D, H, F> p;
  if (!p.agree()) {
    state.SkipWithError("cxmat and Eigen results differ");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.c.get());
    run_cxmat(*p.c);
    benchmark::ClobberMemory();
  }
}

template <class T, std::size_t N, std::size_t D, std::size_t H, std::size_t F>
void bm_eigen(benchmark::State& state) {
  pair_of<T, N, D, H, F> p;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.e.get());
    p.e->run();
    benchmark::ClobberMemory();
  }
}

// cxmat's time over Eigen's in alternating bursts, as attention_vs_eigen.cpp's bm_paired.
template <class T, std::size_t N, std::size_t D, std::size_t H, std::size_t F>
void bm_paired(benchmark::State& state) {
  pair_of<T, N, D, H, F> p;
  if (!p.agree()) {
    state.SkipWithError("cxmat and Eigen results differ");
    return;
  }
  auto* c = p.c.get();
  auto* e = p.e.get();
  const auto cxmat_call = [c] {
    benchmark::DoNotOptimize(c);
    run_cxmat(*c);
    benchmark::ClobberMemory();
  };
  const auto eigen_call = [e] {
    benchmark::DoNotOptimize(e);
    e->run();
    benchmark::ClobberMemory();
  };
  cxmat_bench::paired_ratio(state, cxmat_call, eigen_call);
}

#define CXMAT_BENCH_ENCODER(T, N, D, H, F)                                                     \
  BENCHMARK(bm_cxmat<T, N, D, H, F>)->Name("encoder/cxmat/" #T "/" #N "x" #D "/H" #H "/F" #F); \
  BENCHMARK(bm_eigen<T, N, D, H, F>)->Name("encoder/eigen/" #T "/" #N "x" #D "/H" #H "/F" #F); \
  BENCHMARK(bm_paired<T, N, D, H, F>)->Name("encoder/paired/" #T "/" #N "x" #D "/H" #H "/F" #F);

// The embedded example's size (n = 8, d_model = 16, H = 2, d_ff = 32) and a larger one.
CXMAT_BENCH_ENCODER(float, 8, 16, 2, 32)
#if !defined(CXMAT_BENCHMARK_SMOKE)
CXMAT_BENCH_ENCODER(double, 8, 16, 2, 32)
CXMAT_BENCH_ENCODER(float, 16, 64, 4, 256)
CXMAT_BENCH_ENCODER(double, 16, 64, 4, 256)
#endif

}  // namespace
