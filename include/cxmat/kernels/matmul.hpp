// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The matrix-product kernel behind matmul, in three forms chosen by by_evaluation
// (cxmat/math/fp.hpp): one fold expression per output element in constant evaluation; at run
// time a register-blocked vector kernel for float and double where the target has packets
// (runtime_gemm.hpp), and loops for every other type and target (loops.hpp), which add the
// fold's terms in the fold's order.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cxmat/kernels/accumulator.hpp>
#include <cxmat/kernels/fold.hpp>
#include <cxmat/kernels/loops.hpp>
#include <cxmat/kernels/runtime_gemm.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat::detail {

// The plain form, for constant evaluation (and at run time with CXMAT_RUNTIME_KERNELS=0): b is
// copied transposed into a local array once and row i of a once per row, so each element is one
// dot product (fold.hpp says why), summed in accumulator_t<T> from +0 over k in increasing
// order; for K <= fold_block the fold is written here, without a call.
template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t... Ks>
constexpr void matmul_plain(const T (&a)[R][K], const T (&b)[K][C], accumulator_t<T> (&out)[R][C],
                            std::index_sequence<Ks...>) noexcept {
  using Acc = accumulator_t<T>;
  if constexpr (R == 1 && std::is_same_v<Acc, T>) {
    // One row (a generation step's x·W): each term k added to every output at once (scaled_add,
    // one fold per row of b) in the same order as the dot products below, without their copy
    // of b transposed, which costs the constant evaluator as much as the product itself.
    Acc o[C]{};
    for (std::size_t k = 0; k < K; ++k) scaled_add(o, a[0][k], b[k]);
    copy_window_to(out[0], o);
  } else {
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
}

// The plain form at run time where there are no blocked kernels (has_runtime_products, not
// has_runtime_kernels<T>): row i of out is the sum of the rows b_k scaled by a_ik, added into
// out for k increasing, so each element gets matmul_plain's terms in matmul_plain's order; a and
// b are read where they are (no transposed copy of b on the stack). out must be zero on entry
// (matmul_kernel zeroes it).
template <class T, std::size_t R, std::size_t K, std::size_t C>
inline void matmul_loops(const T (&a)[R][K], const T (&b)[K][C], accumulator_t<T> (&out)[R][C]) noexcept {
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t k = 0; k < K; ++k) scaled_add_loop<C>(out[i], 0, a[i][k], b[k], 0);
  }
}

// out (R x C) = a (R x K) · b (K x C), in accumulator_t<T>, whatever out held: the run-time
// forms add into it, so they zero it first; the constant-evaluation form writes each element once
// (no zeroing: operations the constant evaluator would count). Every element sums over k in
// increasing order from +0 in every form, so they differ only where a run-time one fuses a
// multiply-add (FMA targets).
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_kernel(const T (&a)[R][K], const T (&b)[K][C], accumulator_t<T> (&out)[R][C]) noexcept {
  by_evaluation<has_runtime_products>(
      [&](auto...) {
        for (auto& out_row : out) {
          for (auto& out_element : out_row) out_element = accumulator_t<T>{};
        }
        if constexpr (has_runtime_kernels<T>) {
          gemm<R, C, K>(a, 0, b, 0, out, 0);  // T is float or double
        } else {
          matmul_loops(a, b, out);
        }
      },
      [&] { matmul_plain(a, b, out, std::make_index_sequence < K <= fold_block ? K : 0 > {}); });
}

}  // namespace cxmat::detail
