// Run-time speed of cxmat's multi-head attention (with W_o) against the same computation written
// with Eigen 3.4 fixed-size matrices, in the same process. Both results are checked against each
// other before timing. Run with run_benchmarks.sh (see docs/performance.md).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <Eigen/Dense>

#include "paired_timing.hpp"

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/arithmetic.hpp>

namespace {

// Uniform values in [-scale, scale), the same stream for cxmat and Eigen.
template <class T>
struct filler {
  std::mt19937_64 rng;
  T scale;
  T operator()() {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    return static_cast<T>(dist(rng)) * scale;
  }
};

// One layer's inputs and weights in cxmat matrices, on the heap (the big ones do not fit a
// benchmark's stack frame many times over).
template <class T, std::size_t N, std::size_t D>
struct cxmat_layer {
  cxmat::matrix<T, N, D> x;
  cxmat::matrix<T, D, D> wq, wk, wv, wo;
  cxmat::matrix<T, N, D> out;
};

// The same layer in Eigen fixed-size matrices plus the intermediates, also on the heap.
// Row-major, like cxmat; run_benchmarks.sh can switch to Eigen's default column-major order.
#if defined(CXMAT_BENCH_EIGEN_COLMAJOR)
inline constexpr int eigen_order = Eigen::ColMajor;
#else
inline constexpr int eigen_order = Eigen::RowMajor;
#endif
template <class T, int Rows, int Cols>
using emat = Eigen::Matrix<T, Rows, Cols, (Cols == 1 ? Eigen::ColMajor : eigen_order)>;

template <class T, int N, int D, int H>
struct eigen_layer {
  static constexpr int dk = D / H;
  emat<T, N, D> x, q, k, v, z, out;
  emat<T, D, D> wq, wk, wv, wo;
  emat<T, N, N> s;

  // softmax(Q_h K_hᵀ / √d_k) V_h for every head, then Z W_o, as an Eigen user would write it.
  // Not inlined (nor is run_cxmat): no compiler may carry work across iterations of the timing
  // loop, and both sides pay the same call.
  [[gnu::noinline]] void run() {
    q.noalias() = x * wq;
    k.noalias() = x * wk;
    v.noalias() = x * wv;
    const T divisor = std::sqrt(static_cast<T>(dk));
    for (int h = 0; h < H; ++h) {
      s.noalias() = q.template middleCols<dk>(h * dk) * k.template middleCols<dk>(h * dk).transpose();
      s /= divisor;
      // Softmax in three statements rather than one expression: each then vectorises, exp
      // included (Eigen's packet exp runs only on a plain array, not through the replicate).
      s.colwise() -= s.rowwise().maxCoeff();
      s = s.array().exp();
      s.array().colwise() /= s.rowwise().sum().array();
      z.template middleCols<dk>(h * dk).noalias() = s * v.template middleCols<dk>(h * dk);
    }
    out.noalias() = z * wo;
  }
};

template <class T, std::size_t N, std::size_t D>
void fill(cxmat_layer<T, N, D>& c, std::uint64_t seed) {
  filler<T> in{std::mt19937_64(seed), T(1)};
  filler<T> w{std::mt19937_64(seed + 1), T(1) / std::sqrt(static_cast<T>(D))};
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < D; ++j) c.x(i, j) = in();
  }
  for (auto* m : {&c.wq, &c.wk, &c.wv, &c.wo}) {
    for (std::size_t i = 0; i < D; ++i) {
      for (std::size_t j = 0; j < D; ++j) (*m)(i, j) = w();
    }
  }
}

template <class T, std::size_t N, std::size_t D, int H>
void copy_to_eigen(const cxmat_layer<T, N, D>& c, eigen_layer<T, int(N), int(D), H>& e) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < D; ++j) e.x(int(i), int(j)) = c.x(i, j);
  }
  const cxmat::matrix<T, D, D>* from[] = {&c.wq, &c.wk, &c.wv, &c.wo};
  emat<T, int(D), int(D)>* to[] = {&e.wq, &e.wk, &e.wv, &e.wo};
  for (int m = 0; m < 4; ++m) {
    for (std::size_t i = 0; i < D; ++i) {
      for (std::size_t j = 0; j < D; ++j) (*to[m])(int(i), int(j)) = (*from[m])(i, j);
    }
  }
}

template <class T, std::size_t N, std::size_t D, std::size_t H>
[[gnu::noinline]] void run_cxmat(cxmat_layer<T, N, D>& c) {
  c.out = cxmat::multi_head_attention<H>(c.x, c.wq, c.wk, c.wv, c.wo);
}

// Largest |a - b| / max(|b|, 1) over the outputs.
template <class T, std::size_t N, std::size_t D, int H>
double max_difference(const cxmat_layer<T, N, D>& c, const eigen_layer<T, int(N), int(D), H>& e) {
  double worst = 0.0;
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < D; ++j) {
      const double a = static_cast<double>(c.out(i, j));
      const double b = static_cast<double>(e.out(int(i), int(j)));
      worst = std::fmax(worst, std::fabs(a - b) / std::fmax(std::fabs(b), 1.0));
    }
  }
  return worst;
}

template <class T>
constexpr double agreement = sizeof(T) == 4 ? 1e-4 : 1e-12;

template <class T, std::size_t N, std::size_t D, std::size_t H>
void bm_cxmat(benchmark::State& state) {
  auto c = std::make_unique<cxmat_layer<T, N, D>>();
  auto e = std::make_unique<eigen_layer<T, int(N), int(D), int(H)>>();
  fill(*c, 42);
  copy_to_eigen(*c, *e);
  run_cxmat<T, N, D, H>(*c);
  e->run();
  if (max_difference(*c, *e) > agreement<T>) {
    state.SkipWithError("cxmat and Eigen results differ");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.get());
    run_cxmat<T, N, D, H>(*c);
    benchmark::ClobberMemory();
  }
}

template <class T, std::size_t N, std::size_t D, std::size_t H>
void bm_eigen(benchmark::State& state) {
  auto c = std::make_unique<cxmat_layer<T, N, D>>();
  auto e = std::make_unique<eigen_layer<T, int(N), int(D), int(H)>>();
  fill(*c, 42);
  copy_to_eigen(*c, *e);
  for (auto _ : state) {
    benchmark::DoNotOptimize(e.get());
    e->run();
    benchmark::ClobberMemory();
  }
}

// cxmat's time over Eigen's, measured in alternation (paired_timing.hpp), once both agree.
template <class T, std::size_t N, std::size_t D, std::size_t H>
void bm_paired(benchmark::State& state) {
  auto c = std::make_unique<cxmat_layer<T, N, D>>();
  auto e = std::make_unique<eigen_layer<T, int(N), int(D), int(H)>>();
  fill(*c, 42);
  copy_to_eigen(*c, *e);
  run_cxmat<T, N, D, H>(*c);
  e->run();
  if (max_difference(*c, *e) > agreement<T>) {
    state.SkipWithError("cxmat and Eigen results differ");
    return;
  }
  const auto cxmat_call = [&c] {
    benchmark::DoNotOptimize(c.get());
    run_cxmat<T, N, D, H>(*c);
    benchmark::ClobberMemory();
  };
  const auto eigen_call = [&e] {
    benchmark::DoNotOptimize(e.get());
    e->run();
    benchmark::ClobberMemory();
  };
  cxmat_bench::paired_ratio(state, cxmat_call, eigen_call);
}

#define CXMAT_BENCH_SHAPE(T, N, D, H)                                           \
  BENCHMARK(bm_cxmat<T, N, D, H>)->Name("mha/cxmat/" #T "/" #N "x" #D "/H" #H); \
  BENCHMARK(bm_eigen<T, N, D, H>)->Name("mha/eigen/" #T "/" #N "x" #D "/H" #H); \
  BENCHMARK(bm_paired<T, N, D, H>)->Name("mha/paired/" #T "/" #N "x" #D "/H" #H);

CXMAT_BENCH_SHAPE(float, 5, 6, 3)
CXMAT_BENCH_SHAPE(float, 16, 64, 4)
CXMAT_BENCH_SHAPE(double, 5, 6, 3)
CXMAT_BENCH_SHAPE(double, 16, 64, 4)
// The smoke test's build (CXMAT_BENCHMARK_SMOKE) has only the shapes it runs: the large fixed-size
// Eigen products are most of this file's compile time.
#if !defined(CXMAT_BENCHMARK_SMOKE)
CXMAT_BENCH_SHAPE(float, 64, 64, 8)
CXMAT_BENCH_SHAPE(float, 128, 128, 8)
CXMAT_BENCH_SHAPE(double, 64, 64, 8)
CXMAT_BENCH_SHAPE(double, 128, 128, 8)
#endif

}  // namespace
