// The one attention kernel every public attention function runs: a single head over column
// windows of Q, K and V. Constant evaluation runs plain loops over raw arrays (few evaluator
// steps); at run time float and double go through the blocked products of runtime_gemm.hpp.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/kernels/runtime_gemm.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/math.hpp>
#include <cxmat/kernels/softmax.hpp>

namespace cxmat::detail {

// Leaves scores unchanged: attention with no mask and no bias.
struct no_score_mod {
  template <class T>
  constexpr T operator()(std::size_t /*query*/, std::size_t /*key*/, T score) const noexcept {
    return score;
  }
};

// Writes no weights.
struct discard_weights {
  template <class T>
  constexpr void operator()(std::size_t /*query*/, const T* /*row*/) const noexcept {}
};

// Columns [k_off, k_off + DK) of k, transposed: kt[c][j] = k[j][k_off + c]. A score row is then
// a product with contiguous rows of kt, which the blocked kernel vectorises over keys.
template <std::size_t DK, class T, std::size_t S, std::size_t KW>
inline void transpose_key_window(const T (&k)[S][KW], std::size_t k_off, T (&kt)[DK][S]) noexcept {
  for (std::size_t j = 0; j < S; ++j) {
    for (std::size_t c = 0; c < DK; ++c) kt[c][j] = k[j][k_off + c];
  }
}

// The gemm epilogue that turns dot products into scores: each divided by the divisor (packets
// divide lane by lane, so each score is the same division as on the constant path).
template <class T>
struct divide_by {
  T divisor;
  template <class P>
  P operator()(const P& dots) const noexcept {
    return dots / divisor;
  }
};

// score_mod(i0 + r, j, score) on every score of a block of rows; nothing to do for no_score_mod.
template <class T, std::size_t M, std::size_t S, class ScoreMod>
inline void apply_score_mod(std::size_t i0, T (&w)[M][S], const ScoreMod& score_mod) noexcept {
  if constexpr (!std::is_same_v<ScoreMod, no_score_mod>) {
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t j = 0; j < S; ++j) w[r][j] = score_mod(i0 + r, j, w[r][j]);
    }
  }
}

// attend's run-time form for M query rows from i0: their scores as one blocked product, then
// score_mod, softmax of the M rows, the weights sink row by row, and the outputs as one blocked
// product. Each score and output element is the same sum, in the same order, as in the plain
// loops.
template <std::size_t M, std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink>
inline void attend_rows(std::size_t i0, const T (&q)[L][QW], std::size_t q_off, const T (&kt)[DK][S],
                        const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off,
                        const T& divisor, const ScoreMod& score_mod, const WeightsSink& weights_sink) noexcept {
  T w[M][S];
  gemm<M, S, DK>(q + i0, q_off, kt, 0, w, 0, divide_by<T>{divisor});
  apply_score_mod(i0, w, score_mod);
  softmax_rows_runtime(w, exp_zero_bound<T>());  // softmax_row's rules and bits, M rows at once
  for (std::size_t r = 0; r < M; ++r) weights_sink(i0 + r, static_cast<const T*>(w[r]));
  gemm<M, DV, S>(w, 0, v, v_off, out + i0, out_off);
}

// Stack use beyond the plain loops: d_k·S elements for kt, gemm_rows·S for a block of weights
// (four times that when S is shorter than softmax_short_row_packets packets: the block softmax's
// copy of the weights and its per-entry maxima and cutoffs).
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink>
inline void attend_runtime(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                           const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off,
                           const T& divisor, const ScoreMod& score_mod, const WeightsSink& weights_sink) noexcept {
  T kt[DK][S];
  transpose_key_window(k, k_off, kt);
  constexpr std::size_t full = L - L % gemm_rows;
  for (std::size_t i0 = 0; i0 < full; i0 += gemm_rows) {
    attend_rows<gemm_rows, DK, DV>(i0, q, q_off, kt, v, v_off, out, out_off, divisor, score_mod, weights_sink);
  }
  if constexpr (full < L) {
    attend_rows<L - full, DK, DV>(full, q, q_off, kt, v, v_off, out, out_off, divisor, score_mod, weights_sink);
  }
}

// For each query row i of q (columns [q_off, q_off + DK)):
//   s_j     = score_mod(i, j, (q_i · k_j) / divisor)           over keys j of k (same columns)
//   w       = softmax(s)                                        (detail::softmax_row rules)
//   out_i   = sum_j w_j v_j                                     (columns [v_off, v_off + DV))
// and hands the weight row to `weights_sink(i, w)`. `divisor` is √d_k unless the caller scales
// otherwise; dividing (not multiplying by 1/√d_k) matches the formula as the worksheets write it.
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW,
          std::size_t KW, std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink>
constexpr void attend(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                      const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off,
                      const T& divisor, const ScoreMod& score_mod,
                      const WeightsSink& weights_sink) noexcept {
  if constexpr (has_runtime_kernels<T>) {
    if (!std::is_constant_evaluated()) {
      attend_runtime<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, divisor, score_mod, weights_sink);
      return;
    }
  }
  for (std::size_t i = 0; i < L; ++i) {
    T row[S]{};
    const T* qi = &q[i][q_off];
    for (std::size_t j = 0; j < S; ++j) {
      const T* kj = &k[j][k_off];
      T dot{};
      for (std::size_t c = 0; c < DK; ++c) dot += qi[c] * kj[c];
      row[j] = score_mod(i, j, T(dot / divisor));
    }
    softmax_row(row, fixed_length<S>{});
    weights_sink(i, static_cast<const T*>(row));
    T* oi = &out[i][out_off];
    for (std::size_t c = 0; c < DV; ++c) oi[c] = T{};
    for (std::size_t j = 0; j < S; ++j) {
      const T w = row[j];
      const T* vj = &v[j][v_off];
      for (std::size_t c = 0; c < DV; ++c) oi[c] += w * vj[c];
    }
  }
}

// The scores alone, (q_i · k_j) / divisor, modified, into s (L x S).
template <std::size_t DK, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          class ScoreMod>
constexpr void scores(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                      T (&s)[L][S], const T& divisor, const ScoreMod& score_mod) noexcept {
  if constexpr (has_runtime_kernels<T>) {
    if (!std::is_constant_evaluated()) {
      T kt[DK][S];
      transpose_key_window(k, k_off, kt);
      gemm<L, S, DK>(q, q_off, kt, 0, s, 0, divide_by<T>{divisor});
      apply_score_mod(0, s, score_mod);
      return;
    }
  }
  for (std::size_t i = 0; i < L; ++i) {
    const T* qi = &q[i][q_off];
    for (std::size_t j = 0; j < S; ++j) {
      const T* kj = &k[j][k_off];
      T dot{};
      for (std::size_t c = 0; c < DK; ++c) dot += qi[c] * kj[c];
      s[i][j] = score_mod(i, j, T(dot / divisor));
    }
  }
}

// √n in T, for the default scale of scaled dot-product attention.
template <class T>
constexpr T sqrt_of_size(std::size_t n) noexcept {
  using cxmat::sqrt;
  return sqrt(static_cast<T>(n));
}

}  // namespace cxmat::detail
