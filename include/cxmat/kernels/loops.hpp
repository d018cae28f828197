// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The run-time form of the plain kernels (products and attention) for the types without blocked
// kernels (has_runtime_products, not has_runtime_kernels<T>; runtime_simd.hpp): loops that
// compute the sums of fold.hpp. The folds suit a constant evaluator, but outside constant
// evaluation the compiler unrolls every one of them, one instruction sequence per term, and they
// read local copies of their operands; on a target without vector registers (Cortex-M) that is
// code and stack for nothing. These loops read their operands where they are and add the same
// terms in the same order, from Acc{} (+0) with the index increasing, so their results are the
// bits of constant evaluation wherever the target has no FMA. Each term is added by
// multiply_add_scalar (the one fusion policy, cxmat/math/fp.hpp): on a Cortex-M4F both GCC and
// Clang fuse it, where otherwise GCC fused it by its default contraction and Clang did not.
#pragma once

#include <cstddef>

#include <cxmat/math/fp.hpp>

namespace cxmat::detail {

// x[0] · y[0] + x[1] · y[1] + ... + x[n - 1] · y[n - 1], added left to right from T{}: fold.hpp's
// dot product, for attention's scores.
template <class T>
inline T dot_loop(const T* x, const T* y, std::size_t n) noexcept {
  T acc{};
  for (std::size_t k = 0; k < n; ++k) acc = multiply_add_scalar(x[k], y[k], acc);
  return acc;
}

// acc[acc_off + c] = acc[acc_off + c] + w · y[y_off + c] for c < N, in Acc: fold.hpp's
// scaled_add. Called for the terms of a weighted sum of rows in increasing order on a row that
// starts at Acc{}, it gives each element the terms of fold.hpp's dot product in its order. A row
// of a matrix product (Σ_k a_ik · b_k, narrow integers multiplied in their accumulator_t) and a
// row of attention's output (Σ_j w_ij · v_j) are both this loop. Always inlined: as a call, once
// per row and term, it cost the Cortex-M4 self-attention layer 16 bytes more code and 13 % more
// instructions (GCC 12, -Os). Rows come as arrays and offsets rather than pointers, from which
// GCC 12 made the matrix product's loop 16 bytes longer.
template <std::size_t N, class Acc, std::size_t AW, class T, std::size_t YW>
[[gnu::always_inline]] inline void scaled_add_loop(Acc (&acc)[AW], std::size_t acc_off, T w, const T (&y)[YW],
                                                   std::size_t y_off) noexcept {
  for (std::size_t c = 0; c < N; ++c) {
    acc[acc_off + c] = multiply_add_scalar(static_cast<Acc>(w), static_cast<Acc>(y[y_off + c]), acc[acc_off + c]);
  }
}

}  // namespace cxmat::detail
