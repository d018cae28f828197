// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The run-time matrix-product kernel for float and double: register-blocked on packets of the
// target's vector width (runtime_simd.hpp). Every sum still runs over k in increasing order from
// zero, one multiply-add per term, so an element's value does not depend on the shape or the
// blocking around it — only on whether the multiply-add is fused (multiply_add fuses where the
// target has FMA; constant evaluation never fuses).
#pragma once

#include <cstddef>

#include <cxmat/kernels/runtime_simd.hpp>

namespace cxmat::detail {

// Micro-kernel size: gemm_rows x gemm_packets accumulator packets, plus gemm_packets packets of
// b and one broadcast, fit the register file (32 vector registers with AVX-512, 16 otherwise).
inline constexpr std::size_t gemm_rows = simd_bytes >= 64 ? 8 : 6;
inline constexpr std::size_t gemm_packets = 2;

// Whether a column panel of b (K rows of `Panel` elements) is first copied to contiguous rows.
// In place, the panel's rows lie LDB elements apart; with LDB * sizeof(T) a multiple of a few
// hundred bytes its K cache lines fall into a few sets of the L1 cache and evict each other, so
// every row block reloads them from L2. Worth it when at least four row blocks reuse the copy;
// the copy is at most 16 KB of stack.
template <std::size_t M, std::size_t K, std::size_t Panel, std::size_t LDB, class T>
inline constexpr bool gemm_packs_b = M >= 4 * gemm_rows&& LDB > Panel&& K* Panel * sizeof(T) <= 16384;

// Stores a sum as it is.
struct gemm_identity {
  template <class P>
  constexpr P operator()(const P& sum) const noexcept {
    return sum;
  }
};

// c[i][c_col + j] = epilogue(sum_k a[i][a_col + k] * b[k][b_col + j]) for i < MR, j < NV packets
// of P, of which the last has only Valid lanes inside the window (Valid < lanes: the window's
// last columns, moved by partial loads and stores; the other lanes compute zeros that are never
// stored). The epilogue (an elementwise operation, e.g. the division of attention scores) runs
// on the sums while they are still in registers.
template <std::size_t MR, std::size_t NV, class P, std::size_t K, std::size_t Valid, class T, std::size_t LDA,
          std::size_t LDB, std::size_t LDC, class Epilogue>
[[gnu::always_inline]] inline void gemm_block(const T (*a)[LDA], std::size_t a_col, const T (*b)[LDB],
                                              std::size_t b_col, T (*c)[LDC], std::size_t c_col,
                                              const Epilogue& epilogue) noexcept {
  constexpr std::size_t lanes = sizeof(P) / sizeof(T);
  constexpr bool partial = Valid < lanes;
  P acc[MR][NV]{};
  // Row r of the a window at a0 + r * LDA: one base register and constant offsets (GCC kept a
  // pointer per row and, short of registers, reloaded them from the stack on every k).
  const T* const a0 = &a[0][a_col];
  for (std::size_t k = 0; k < K; ++k) {
    P bk[NV];
    for (std::size_t v = 0; v < NV; ++v) {
      const T* from = &b[k][b_col + v * lanes];
      bk[v] = (partial && v == NV - 1) ? load_tail<P>(from, fixed_length<Valid>{}, T(0)) : load_packet<P>(from);
    }
    for (std::size_t r = 0; r < MR; ++r) {
      const T ark = a0[r * LDA + k];
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] = multiply_add(ark, bk[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < MR; ++r) {
    for (std::size_t v = 0; v < NV; ++v) {
      T* to = &c[r][c_col + v * lanes];
      if (partial && v == NV - 1) {
        store_tail(to, fixed_length<Valid>{}, epilogue(acc[r][v]));
      } else {
        store_packet(to, epilogue(acc[r][v]));
      }
    }
  }
}

// One column panel of NV packets of P (the last with Valid lanes), all M rows: blocks of
// gemm_rows rows, then the rest.
template <std::size_t M, std::size_t NV, class P, std::size_t K, std::size_t Valid, class T, std::size_t LDA,
          std::size_t LDB, std::size_t LDC, class Epilogue>
inline void gemm_panel(const T (*a)[LDA], std::size_t a_col, const T (*b)[LDB], std::size_t b_col, T (*c)[LDC],
                       std::size_t c_col, const Epilogue& epilogue) noexcept {
  constexpr std::size_t full = M - M % gemm_rows;
  for (std::size_t i = 0; i < full; i += gemm_rows) {
    gemm_block<gemm_rows, NV, P, K, Valid>(a + i, a_col, b, b_col, c + i, c_col, epilogue);
  }
  if constexpr (full < M) {
    gemm_block<M - full, NV, P, K, Valid>(a + full, a_col, b, b_col, c + full, c_col, epilogue);
  }
}

// Columns [0, N) of the window: panels of gemm_packets packets of Bytes, then one narrower
// panel. Fewer columns than a packet remain: if they fit half a packet (and that is at least 16
// bytes) they go to half-width packets, otherwise into one packet of this width with only their
// lanes stored (6 float columns: one 8-lane multiply-add per term rather than 4 + 2 lanes).
template <std::size_t M, std::size_t N, std::size_t K, std::size_t Bytes, class T, std::size_t LDA, std::size_t LDB,
          std::size_t LDC, class Epilogue>
inline void gemm_columns(const T (*a)[LDA], std::size_t a_col, const T (*b)[LDB], std::size_t b_col, T (*c)[LDC],
                         std::size_t c_col, const Epilogue& epilogue) noexcept {
  using P = packet<T, Bytes>;
  constexpr std::size_t lanes = Bytes / sizeof(T);
  constexpr std::size_t panel = gemm_packets * lanes;
  constexpr std::size_t full = N - N % panel;
  for (std::size_t j = 0; j < full; j += panel) {
    if constexpr (gemm_packs_b<M, K, panel, LDB, T>) {
      T packed[K][panel];
      for (std::size_t k = 0; k < K; ++k) {
        for (std::size_t col = 0; col < panel; ++col) packed[k][col] = b[k][b_col + j + col];
      }
      gemm_panel<M, gemm_packets, P, K, lanes>(a, a_col, packed, 0, c, c_col + j, epilogue);
    } else {
      gemm_panel<M, gemm_packets, P, K, lanes>(a, a_col, b, b_col + j, c, c_col + j, epilogue);
    }
  }
  constexpr std::size_t packed = full + (N - full) / lanes * lanes;
  if constexpr (full < packed) {
    gemm_panel<M, (packed - full) / lanes, P, K, lanes>(a, a_col, b, b_col + full, c, c_col + full, epilogue);
  }
  if constexpr (packed < N) {
    constexpr std::size_t rest = N - packed;
    if constexpr (Bytes / 2 >= 16 && rest * sizeof(T) <= Bytes / 2) {
      gemm_columns<M, rest, K, Bytes / 2>(a, a_col, b, b_col + packed, c, c_col + packed, epilogue);
    } else {
      gemm_panel<M, 1, P, K, rest>(a, a_col, b, b_col + packed, c, c_col + packed, epilogue);
    }
  }
}

// c (M x N window at column c_col) = epilogue(a (M x K window at a_col) · b (K x N window at
// b_col)), overwriting c. Windows of row-major arrays: row i of a is a[i], and so on.
template <std::size_t M, std::size_t N, std::size_t K, class T, std::size_t LDA, std::size_t LDB, std::size_t LDC,
          class Epilogue = gemm_identity>
inline void gemm(const T (*a)[LDA], std::size_t a_col, const T (*b)[LDB], std::size_t b_col, T (*c)[LDC],
                 std::size_t c_col, const Epilogue& epilogue = {}) noexcept {
  gemm_columns<M, N, K, simd_bytes>(a, a_col, b, b_col, c, c_col, epilogue);
}

}  // namespace cxmat::detail
