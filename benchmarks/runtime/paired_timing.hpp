// cxmat's time over Eigen's, measured in alternation: the one timing method of the run-time
// benchmarks that compare a cxmat layer with the same layer written with Eigen.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include <benchmark/benchmark.h>

namespace cxmat_bench {

// Seconds taken by `calls` calls of f, after one untimed call (which brings f's data back into
// cache after the other side has run).
template <class F>
double burst_seconds(int calls, F&& f) {
  f();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 != 0 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Each iteration of `state` is one sample: a burst of cxmat calls and a burst of Eigen calls
// back to back (in alternating order), so that both see the same machine. On a shared virtual
// machine the speed drifts by 10-20 % over seconds, which separately measured medians cannot tell
// from a real difference; the median of the samples' ratios can. Bursts are about 20 µs of work:
// long enough for the clock, short enough to sample often. Counters: the median ratio, and the
// medians of each side's time per call.
template <class CxmatCall, class EigenCall>
void paired_ratio(benchmark::State& state, const CxmatCall& cxmat_call, const EigenCall& eigen_call) {
  const double one_call = std::max(burst_seconds(8, eigen_call) / 8, 1e-9);
  const int calls = std::max(1, static_cast<int>(20e-6 / one_call));
  std::vector<double> ratio, cxmat_ns, eigen_ns;
  bool cxmat_first = true;
  for (auto _ : state) {
    double tc = 0.0;
    double te = 0.0;
    if (cxmat_first) {
      tc = burst_seconds(calls, cxmat_call);
      te = burst_seconds(calls, eigen_call);
    } else {
      te = burst_seconds(calls, eigen_call);
      tc = burst_seconds(calls, cxmat_call);
    }
    cxmat_first = !cxmat_first;
    ratio.push_back(tc / te);
    cxmat_ns.push_back(tc * 1e9 / calls);
    eigen_ns.push_back(te * 1e9 / calls);
  }
  state.counters["ratio"] = median(ratio);
  state.counters["cxmat_ns"] = median(cxmat_ns);
  state.counters["eigen_ns"] = median(eigen_ns);
  state.counters["samples"] = static_cast<double>(ratio.size());
}

}  // namespace cxmat_bench
