// The matrix-product kernel behind matmul: one fold expression per output element in constant
// evaluation, a register-blocked vector kernel at run time for float and double
// (runtime_gemm.hpp), chosen by by_evaluation (cxmat/math/fp.hpp).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cxmat/kernels/accumulator.hpp>
#include <cxmat/kernels/fold.hpp>
#include <cxmat/kernels/runtime_gemm.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat::detail {

// The plain form, for constant evaluation and for every type without run-time kernels: b is
// copied transposed into a local array once and row i of a once per row, so each element is one
// dot product (fold.hpp says why), summed in accumulator_t<T> from +0 over k in increasing
// order; for K <= fold_block the fold is written here, without a call.
template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t... Ks>
constexpr void matmul_plain(const T (&a)[R][K], const T (&b)[K][C], accumulator_t<T> (&out)[R][C],
                            std::index_sequence<Ks...>) noexcept {
  using Acc = accumulator_t<T>;
  T bt[C][K]{};
  for (std::size_t j = 0; j < C; ++j) {
    if constexpr (K <= fold_block) {
      ((bt[j][Ks] = b[Ks][j]), ...);
    } else {
      for (std::size_t k = 0; k < K; ++k) bt[j][k] = b[k][j];
    }
  }
  for (std::size_t i = 0; i < R; ++i) {
    T ai[K]{};
    if constexpr (K <= fold_block) {
      ((ai[Ks] = a[i][Ks]), ...);
      if constexpr (std::is_same_v<Acc, T>) {
        for (std::size_t j = 0; j < C; ++j) out[i][j] = (Acc{} + ... + (ai[Ks] * bt[j][Ks]));
      } else {
        for (std::size_t j = 0; j < C; ++j) {
          out[i][j] = (Acc{} + ... + (static_cast<Acc>(ai[Ks]) * static_cast<Acc>(bt[j][Ks])));
        }
      }
    } else {
      copy_window(ai, a[i]);
      for (std::size_t j = 0; j < C; ++j) out[i][j] = dot<Acc>(ai, bt[j]);
    }
  }
}

// out (R x C) = a (R x K) · b (K x C), in accumulator_t<T>. Every element sums over k in
// increasing order from +0 on both paths, so they differ only where the run-time one fuses a
// multiply-add (FMA targets).
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_kernel(const T (&a)[R][K], const T (&b)[K][C], accumulator_t<T> (&out)[R][C]) noexcept {
  by_evaluation<has_runtime_kernels<T>>(
      [&](auto...) {
        if constexpr (has_runtime_kernels<T>) gemm<R, C, K>(a, 0, b, 0, out, 0);  // T is float or double
      },
      [&] { matmul_plain(a, b, out, std::make_index_sequence < K <= fold_block ? K : 0 > {}); });
}

}  // namespace cxmat::detail
