// Inputs for the compile-time benchmarks: deterministic pseudo-random matrices made by a
// constexpr generator, so that no large literal files are needed. Sizes come from macros so one
// source serves every size: CXMAT_BENCH_N (n = d_model, default 32) and CXMAT_BENCH_HEADS (H,
// default 4).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/core/matrix.hpp>

#ifndef CXMAT_BENCH_N
#define CXMAT_BENCH_N 32
#endif
#ifndef CXMAT_BENCH_HEADS
#define CXMAT_BENCH_HEADS 4
#endif

namespace cxmat_bench {

inline constexpr std::size_t n = CXMAT_BENCH_N;
inline constexpr std::size_t d = CXMAT_BENCH_N;
inline constexpr std::size_t heads = CXMAT_BENCH_HEADS;
static_assert(d % heads == 0, "CXMAT_BENCH_HEADS must divide CXMAT_BENCH_N");

/// A Rows x Cols matrix of values uniform in [offset - scale, offset + scale), from a 64-bit LCG
/// (Knuth's MMIX constants) seeded with `seed`. One statement per element, so that generating
/// an input costs far fewer evaluation steps than any kernel that consumes it. With the default
/// scale, attention scores inside the layer have a standard deviation of about d/9 (3.6 at
/// d = 32): softmax weights are neither uniform nor one-hot, and exp is called for almost every
/// entry.
template <std::size_t Rows, std::size_t Cols>
constexpr cxmat::matrix<double, Rows, Cols> random_matrix(std::uint64_t seed, double scale = 1.0,
                                                          double offset = 0.0) noexcept {
  cxmat::matrix<double, Rows, Cols> m{};
  std::uint64_t s = seed;
  for (std::size_t i = 0; i < Rows; ++i) {
    for (std::size_t j = 0; j < Cols; ++j) {
      m.elems[i][j] =
          offset +
          scale * (static_cast<double>((s = s * 6364136223846793005U + 1442695040888963407U) >> 11) * 0x1p-52 - 1.0);
    }
  }
  return m;
}

// One multi-head layer's inputs: X is n x d, the projections d x d (H heads of d/H columns).
inline constexpr auto X = random_matrix<n, d>(1);
inline constexpr auto Wq = random_matrix<d, d>(2);
inline constexpr auto Wk = random_matrix<d, d>(3);
inline constexpr auto Wv = random_matrix<d, d>(4);
inline constexpr auto Wo = random_matrix<d, d>(5);

/// Every element finite and at least one nonzero: a use of a result that no compiler can
/// answer without the result. One statement per element (the sum of magnitudes is NaN or
/// infinite if any element is), so checking costs less than computing.
template <class M>
constexpr bool finite_and_nonzero(const M& m) noexcept {
  double total = 0.0;
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) total += m.elems[i][j] < 0.0 ? -m.elems[i][j] : m.elems[i][j];
  }
  return total > 0.0 && total < 1e300;
}

}  // namespace cxmat_bench
