// Generated inputs for property tests: reproducible (fixed seeds) uniform values.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <random>

namespace cxmat_test {

/// A matrix of type M with elements uniform in [lo, hi).
template <class M>
M random_matrix(std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> dist(lo, hi);
  M m{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) m(i, j) = static_cast<typename M::value_type>(dist(rng));
  }
  return m;
}

/// A random permutation of 0 .. N-1.
template <std::size_t N>
std::array<std::size_t, N> random_permutation(std::mt19937_64& rng) {
  std::array<std::size_t, N> p{};
  for (std::size_t i = 0; i < N; ++i) p[i] = i;
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

/// Rows of m reordered: row i of the result is row p[i] of m (a run-time permutation).
template <class M, std::size_t N>
M permuted_rows(const M& m, const std::array<std::size_t, N>& p) {
  static_assert(N == M::rows);
  M out{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) out(i, j) = m(p[i], j);
  }
  return out;
}

}  // namespace cxmat_test
