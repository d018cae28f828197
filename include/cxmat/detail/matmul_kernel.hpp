// The matrix-product kernel behind matmul: plain loops over raw arrays.
#pragma once

#include <cstddef>

namespace cxmat::detail {

// out (R x C) = a (R x K) · b (K x C), out zero on entry. Every element sums over k in increasing
// order. The i-k-j loop order keeps the constant evaluator's step count minimal and lets the
// optimiser vectorise the innermost loop over contiguous rows of b.
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_kernel(const T (&a)[R][K], const T (&b)[K][C], T (&out)[R][C]) noexcept {
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) {
      const T aik = a[i][k];
      for (std::size_t j = 0; j < C; ++j) out[i][j] += aik * b[k][j];
    }
  }
}

}  // namespace cxmat::detail
