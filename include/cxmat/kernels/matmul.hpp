// The matrix-product kernel behind matmul: plain loops in constant evaluation, a register-blocked
// vector kernel at run time for float and double (detail/runtime_gemm.hpp).
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/kernels/runtime_gemm.hpp>
#include <cxmat/kernels/runtime_simd.hpp>

namespace cxmat::detail {

// out (R x C) = a (R x K) · b (K x C), out zero on entry. Every element sums over k in
// increasing order, on both paths, so they differ only where the run-time one fuses a
// multiply-add (FMA targets). The i-k-j loop order keeps the constant evaluator's step count
// minimal; at run time it is also what other types (and targets without vector extensions) run.
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_kernel(const T (&a)[R][K], const T (&b)[K][C], T (&out)[R][C]) noexcept {
  if constexpr (has_runtime_kernels<T>) {
    if (!std::is_constant_evaluated()) {
      gemm<R, C, K>(a, 0, b, 0, out, 0);
      return;
    }
  }
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) {
      const T aik = a[i][k];
      for (std::size_t j = 0; j < C; ++j) out[i][j] += aik * b[k][j];
    }
  }
}

}  // namespace cxmat::detail
