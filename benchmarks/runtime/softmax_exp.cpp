// Throughput of softmax_rows (run-time kernel) against the textbook loop over std::exp, and of
// cxmat::exp against std::exp (both called on every element of an array) and softmax's own exp
// kernel.
#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include <cxmat/core/matrix.hpp>
#include <cxmat/kernels/runtime_exp.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/kernels/runtime_softmax.hpp>
#include <cxmat/math.hpp>
#include <cxmat/ops/softmax.hpp>

namespace {

// Scores of the size attention produces, uniform in [-8, 8).
template <class M>
std::unique_ptr<M> random_scores(std::uint64_t seed) {
  auto m = std::make_unique<M>();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-8.0, 8.0);
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) (*m)(i, j) = static_cast<typename M::value_type>(dist(rng));
  }
  return m;
}

// The loop everyone writes: max, exp(x - max) with std::exp, sum, divide. Both sides are called
// through a non-inlined function, so that no compiler can carry work from one iteration of the
// timing loop to the next (Clang 19 did, for this loop at 5 x 5).
template <class M>
[[gnu::noinline]] void softmax_with_std_exp(const M& in, M& out) {
  using T = typename M::value_type;
  constexpr std::size_t N = M::cols;
  for (std::size_t i = 0; i < N; ++i) {
    T max = in(i, 0);
    for (std::size_t j = 1; j < N; ++j) max = in(i, j) > max ? in(i, j) : max;
    T sum = T(0);
    for (std::size_t j = 0; j < N; ++j) sum += (out(i, j) = std::exp(in(i, j) - max));
    for (std::size_t j = 0; j < N; ++j) out(i, j) /= sum;
  }
}

template <class M>
[[gnu::noinline]] void softmax_with_cxmat(const M& in, M& out) {
  out = cxmat::softmax_rows(in);
}

template <class T, std::size_t N>
void bm_softmax_cxmat(benchmark::State& state) {
  using M = cxmat::matrix<T, N, N>;
  const auto in = random_scores<M>(N);
  auto out = std::make_unique<M>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.get());
    softmax_with_cxmat(*in, *out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(N * N));
}

template <class T, std::size_t N>
void bm_softmax_std(benchmark::State& state) {
  using M = cxmat::matrix<T, N, N>;
  const auto in = random_scores<M>(N);
  auto out = std::make_unique<M>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(in.get());
    softmax_with_std_exp(*in, *out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(N * N));
}

// Arguments of exp in softmax's range, x - max in [-16, 0], and over a wide range.
template <class T>
std::vector<T> exp_arguments(double lo, double hi) {
  std::vector<T> x(4096);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (T& v : x) v = static_cast<T>(dist(rng));
  return x;
}

template <class T, class F>
void exp_loop(benchmark::State& state, F f, double lo, double hi) {
  const std::vector<T> x = exp_arguments<T>(lo, hi);
  std::vector<T> y(x.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = f(x[i]);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(x.size()));
}

template <class T>
void bm_exp_cxmat(benchmark::State& state) {
  exp_loop<T>(
      state, [](T v) { return cxmat::exp(v); }, static_cast<double>(state.range(0)),
      static_cast<double>(state.range(1)));
}
template <class T>
void bm_exp_std(benchmark::State& state) {
  exp_loop<T>(
      state, [](T v) { return std::exp(v); }, static_cast<double>(state.range(0)), static_cast<double>(state.range(1)));
}

// Softmax's own kernel (detail/runtime_exp.hpp; arguments <= 0 only), a packet at a time.
template <class T>
void bm_exp_kernel(benchmark::State& state) {
  using P = cxmat::detail::softmax_packet<T>;
  constexpr std::size_t lanes = cxmat::detail::packet_traits<P>::lanes;
  const std::vector<T> x = exp_arguments<T>(static_cast<double>(state.range(0)), static_cast<double>(state.range(1)));
  std::vector<T> y(x.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.data());
    for (std::size_t i = 0; i < x.size(); i += lanes) {
      cxmat::detail::store_packet(y.data() + i,
                                  cxmat::detail::exp_nonpositive(cxmat::detail::load_packet<P>(x.data() + i)));
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(x.size()));
}

#define CXMAT_BENCH_SOFTMAX(T, N)                                                  \
  BENCHMARK(bm_softmax_cxmat<T, N>)->Name("softmax_rows/cxmat/" #T "/" #N "x" #N); \
  BENCHMARK(bm_softmax_std<T, N>)->Name("softmax_rows/std_exp_loop/" #T "/" #N "x" #N);

CXMAT_BENCH_SOFTMAX(float, 5)
CXMAT_BENCH_SOFTMAX(float, 16)
CXMAT_BENCH_SOFTMAX(double, 5)
CXMAT_BENCH_SOFTMAX(double, 16)
#if !defined(CXMAT_BENCHMARK_SMOKE)  // the smoke test's build: the sizes it runs
CXMAT_BENCH_SOFTMAX(float, 64)
CXMAT_BENCH_SOFTMAX(float, 128)
CXMAT_BENCH_SOFTMAX(double, 64)
CXMAT_BENCH_SOFTMAX(double, 128)
#endif

BENCHMARK(bm_exp_cxmat<float>)->Name("exp/cxmat/float")->Args({-16, 0})->Args({-80, 80});
BENCHMARK(bm_exp_std<float>)->Name("exp/std/float")->Args({-16, 0})->Args({-80, 80});
BENCHMARK(bm_exp_cxmat<double>)->Name("exp/cxmat/double")->Args({-16, 0})->Args({-700, 700});
BENCHMARK(bm_exp_std<double>)->Name("exp/std/double")->Args({-16, 0})->Args({-700, 700});
BENCHMARK(bm_exp_kernel<float>)->Name("exp/softmax_kernel/float")->Args({-16, 0});
BENCHMARK(bm_exp_kernel<double>)->Name("exp/softmax_kernel/double")->Args({-16, 0});

}  // namespace
