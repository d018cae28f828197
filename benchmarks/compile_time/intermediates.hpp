// Inputs for the piece benchmarks (piece_*.cpp), shaped and scaled like the values each kernel
// sees inside the layer of layer.cpp but generated directly, not computed by cxmat: each is far
// cheaper to evaluate than the piece that consumes it, so the smallest limit at which a piece
// TU compiles is the piece's own cost (run.py shows intermediates_only.cpp's beside it).
#pragma once

#include "inputs.hpp"

namespace cxmat_bench {

// Inside the layer, the entries of X·W have variance d/9 (X and W uniform in [-1, 1)), so
// uniform projections in [-a, a) with a² = d/3 match them.
inline constexpr double projection_scale = [] {
  double a = 1.0;  // √(d/3) by Newton's method: cxmat::sqrt is not what is measured here
  for (int i = 0; i < 60; ++i) a = 0.5 * (a + static_cast<double>(d) / 3.0 / a);
  return a;
}();

// Scores inside the layer have standard deviation d/9: uniform in [-a, a) with a = √3·d/9.
inline constexpr double score_scale = 1.7320508075688772 * static_cast<double>(d) / 9.0;

// Projections Q, K, V (n x d each), as X·Wq, X·Wk, X·Wv would be.
inline constexpr auto Q = random_matrix<n, d>(11, projection_scale);
inline constexpr auto K = random_matrix<n, d>(12, projection_scale);
inline constexpr auto V = random_matrix<n, d>(13, projection_scale);

// The scores of all H heads stacked, (H·n) x n: one softmax_rows on it does the layer's
// softmax work.
inline constexpr auto scores = random_matrix<heads * n, n>(14, score_scale);

// Arguments of the layer's H·n·n exp calls, score minus row maximum: for the scores above,
// about uniform in [-2a, 0).
inline constexpr auto exp_args = random_matrix<heads * n, n>(15, score_scale, -score_scale);

}  // namespace cxmat_bench
