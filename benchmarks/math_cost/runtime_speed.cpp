// Run-time speed of cxmat::exp / cxmat::sqrt against the C library (std::exp, std::sqrt), per
// element over arrays that stay in L1, and for a softmax-like row (x - max, exp, sum).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "cxmat/math.hpp"

namespace {

constexpr std::size_t n = 4096;

template <class T>
std::vector<T> inputs(T lo, T hi) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<T> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

template <class T, class F>
void map_bench(benchmark::State& state, F f, T lo, T hi) {
  const std::vector<T> in = inputs<T>(lo, hi);
  std::vector<T> out(n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) out[i] = f(in[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// softmax numerator and denominator: e_i = exp(x_i - max), sum e_i.
template <class T, class F>
void softmax_bench(benchmark::State& state, F f) {
  const std::vector<T> in = inputs<T>(T{-10}, T{10});
  std::vector<T> out(n);
  for (auto _ : state) {
    T m = in[0];
    for (std::size_t i = 1; i < n; ++i) m = in[i] > m ? in[i] : m;
    T sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = f(in[i] - m);
      sum += out[i];
    }
    benchmark::DoNotOptimize(sum);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

void exp_double_std(benchmark::State& s) {
  map_bench<double>(
      s, [](double x) { return std::exp(x); }, -20, 20);
}
void exp_double_cxmat(benchmark::State& s) {
  map_bench<double>(
      s, [](double x) { return cxmat::exp(x); }, -20, 20);
}
void exp_double_wide_std(benchmark::State& s) {
  map_bench<double>(
      s, [](double x) { return std::exp(x); }, -740, 705);
}
void exp_double_wide_cxmat(benchmark::State& s) {
  map_bench<double>(
      s, [](double x) { return cxmat::exp(x); }, -740, 705);
}
void exp_float_std(benchmark::State& s) {
  map_bench<float>(
      s, [](float x) { return std::exp(x); }, -20, 20);
}
void exp_float_cxmat(benchmark::State& s) {
  map_bench<float>(
      s, [](float x) { return cxmat::exp(x); }, -20, 20);
}
void softmax_double_std(benchmark::State& s) {
  softmax_bench<double>(s, [](double x) { return std::exp(x); });
}
void softmax_double_cxmat(benchmark::State& s) {
  softmax_bench<double>(s, [](double x) { return cxmat::exp(x); });
}
void softmax_float_std(benchmark::State& s) {
  softmax_bench<float>(s, [](float x) { return std::exp(x); });
}
void softmax_float_cxmat(benchmark::State& s) {
  softmax_bench<float>(s, [](float x) { return cxmat::exp(x); });
}
void exp_long_std(benchmark::State& s) {
  map_bench<long double>(
      s, [](long double x) { return std::exp(x); }, -20, 20);
}
void exp_long_cxmat(benchmark::State& s) {
  map_bench<long double>(
      s, [](long double x) { return cxmat::exp(x); }, -20, 20);
}
void sqrt_double_std(benchmark::State& s) {
  map_bench<double>(
      s, [](double x) { return std::sqrt(x); }, 0, 1e6);
}
void sqrt_double_cxmat(benchmark::State& s) {
  map_bench<double>(
      s, [](double x) { return cxmat::sqrt(x); }, 0, 1e6);
}
void sqrt_float_std(benchmark::State& s) {
  map_bench<float>(
      s, [](float x) { return std::sqrt(x); }, 0, 1e6);
}
void sqrt_float_cxmat(benchmark::State& s) {
  map_bench<float>(
      s, [](float x) { return cxmat::sqrt(x); }, 0, 1e6);
}

// log, tanh, erf, sin, cos against glibc, double and float, over ranges a transformer uses
// (activations in [-5, 5], positions' angles up to 1000, log of positive values).
#define CXMAT_SPEED_PAIR(name, T, lo, hi)               \
  void name##_##T##_std(benchmark::State& s) {          \
    map_bench<T>(                                       \
        s, [](T x) { return std::name(x); }, lo, hi);   \
  }                                                     \
  void name##_##T##_cxmat(benchmark::State& s) {        \
    map_bench<T>(                                       \
        s, [](T x) { return cxmat::name(x); }, lo, hi); \
  }                                                     \
  BENCHMARK(name##_##T##_std);                          \
  BENCHMARK(name##_##T##_cxmat);
CXMAT_SPEED_PAIR(log, double, 0.001, 1000)
CXMAT_SPEED_PAIR(tanh, double, -5, 5)
CXMAT_SPEED_PAIR(erf, double, -5, 5)
CXMAT_SPEED_PAIR(sin, double, -1000, 1000)
CXMAT_SPEED_PAIR(cos, double, -1000, 1000)
CXMAT_SPEED_PAIR(log, float, 0.001f, 1000)
CXMAT_SPEED_PAIR(tanh, float, -5, 5)
CXMAT_SPEED_PAIR(erf, float, -5, 5)
CXMAT_SPEED_PAIR(sin, float, -1000, 1000)
CXMAT_SPEED_PAIR(cos, float, -1000, 1000)
#undef CXMAT_SPEED_PAIR

}  // namespace

BENCHMARK(exp_double_std);
BENCHMARK(exp_double_cxmat);
BENCHMARK(exp_double_wide_std);
BENCHMARK(exp_double_wide_cxmat);
BENCHMARK(exp_float_std);
BENCHMARK(exp_float_cxmat);
BENCHMARK(softmax_double_std);
BENCHMARK(softmax_double_cxmat);
BENCHMARK(softmax_float_std);
BENCHMARK(softmax_float_cxmat);
BENCHMARK(exp_long_std);
BENCHMARK(exp_long_cxmat);
BENCHMARK(sqrt_double_std);
BENCHMARK(sqrt_double_cxmat);
BENCHMARK(sqrt_float_std);
BENCHMARK(sqrt_float_cxmat);

BENCHMARK_MAIN();
