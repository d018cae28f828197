// The one attention kernel every public attention function runs: a single head over column
// windows of Q, K and V, written as plain loops over raw arrays so the constant evaluator takes
// few steps and the optimiser sees contiguous inner loops.
#pragma once

#include <cstddef>

#include <cxmat/math.hpp>
#include <cxmat/softmax.hpp>

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
  for (std::size_t i = 0; i < L; ++i) {
    T row[S]{};
    const T* qi = &q[i][q_off];
    for (std::size_t j = 0; j < S; ++j) {
      const T* kj = &k[j][k_off];
      T dot{};
      for (std::size_t c = 0; c < DK; ++c) dot += qi[c] * kj[c];
      row[j] = score_mod(i, j, T(dot / divisor));
    }
    softmax_row(row, S);
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
