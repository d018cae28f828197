// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The one attention kernel every public attention function runs: a single head over column
// windows of Q, K and V. Constant evaluation runs one fold expression per score and per key's
// share of an output row on local copies of the windows (few evaluator steps, fold.hpp); at run
// time float and double go through the blocked products of runtime_gemm.hpp where the target has
// packets, and every other type and target through loops over the windows where they are
// (loops.hpp), which form the folds' sums in the folds' order. by_evaluation (cxmat/math/fp.hpp)
// chooses.
//
// Masks mean removal: a key whose weight is exactly 0 (masked: score -inf; or more than
// exp_zero_bound below the row's maximum) contributes nothing to the output, whatever its value
// row holds (0 · inf would be NaN), on both paths, and a row with every key masked is exactly 0.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/kernels/fold.hpp>
#include <cxmat/kernels/loops.hpp>
#include <cxmat/kernels/runtime_gemm.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/kernels/softmax.hpp>
#include <cxmat/math.hpp>
#include <cxmat/math/fp.hpp>

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
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink, class AfterValues>
inline void attend_rows(std::size_t i0, const T (&q)[L][QW], std::size_t q_off, const T (&kt)[DK][S],
                        const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off, const T& divisor,
                        const ScoreMod& score_mod, const WeightsSink& weights_sink,
                        const AfterValues& after_values) noexcept {
  T w[M][S];
  gemm<M, S, DK>(q + i0, q_off, kt, 0, w, 0, divide_by<T>{divisor});
  apply_score_mod(i0, w, score_mod);
  softmax_rows_runtime(w, exp_zero_bound<T>());  // softmax_row's rules and bits, M rows at once
  for (std::size_t r = 0; r < M; ++r) weights_sink(i0 + r, static_cast<const T*>(w[r]));
  gemm<M, DV, S>(w, 0, v, v_off, out + i0, out_off);
  after_values(i0, w);
}

// Nothing to add after the weighted sums: every value is finite.
struct values_all_finite {
  template <std::size_t M, class T, std::size_t S>
  void operator()(std::size_t /*i0*/, const T (&/*w*/)[M][S]) const noexcept {}
};

// Whether some entry of row[0, N) is inf or NaN (its exponent bits all ones): packets of bits
// OR-ed together, so the check costs about one instruction per packet.
template <std::size_t N, class T>
[[gnu::always_inline]] inline bool row_nonfinite(const T* row) noexcept {
  using P = softmax_packet<T>;
  using B = typename packet_traits<P>::bits;
  using U = typename packet_traits<B>::element;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  constexpr U exponent = sizeof(T) == 4 ? U(0x7f800000U) : U(0x7ff0000000000000ULL);
  constexpr std::size_t n_full = N - N % lanes;
  const B e = splat<B>(exponent);
  B any = splat<B>(U(0));
  const auto mark = [&e](const B& bits) {
    if constexpr (std::is_arithmetic_v<B>) {
      return (bits & e) == e ? ~U(0) : U(0);
    } else {
      return __builtin_bit_cast(B, (bits & e) == e);
    }
  };
  for (std::size_t c = 0; c < n_full; c += lanes) any |= mark(__builtin_bit_cast(B, load_packet<P>(row + c)));
  if constexpr (n_full < N)
    any |= mark(__builtin_bit_cast(B, load_tail<P>(row + n_full, fixed_length<N % lanes>{}, T(0))));
  return fold_packet(any, [](const auto& lhs, const auto& rhs) { return lhs | rhs; }) != U(0);
}

// Whether every entry of columns [v_off, v_off + DV) of v is finite.
template <std::size_t DV, class T, std::size_t S, std::size_t VW>
inline bool window_finite(const T (&v)[S][VW], std::size_t v_off) noexcept {
  bool nonfinite = false;
  for (std::size_t j = 0; j < S; ++j) nonfinite = nonfinite || row_nonfinite<DV>(&v[j][v_off]);
  return !nonfinite;
}

// Whether row j of the window has an entry that is not finite.
template <std::size_t DV, class T, std::size_t S, std::size_t VW>
inline bool value_row_nonfinite(const T (&v)[S][VW], std::size_t v_off, std::size_t j) noexcept {
  return row_nonfinite<DV>(&v[j][v_off]);
}

// The keys whose value rows hold inf or NaN, taken out of the blocked weighted sum (their rows
// are zeros in the copy it reads) and added afterwards, each only where its weight is not 0: a
// masked key then contributes nothing, exactly as if it were absent, and an attended one makes
// its output inf or NaN as the formula says. Their terms come after the finite keys' terms,
// which can change the last bits of that row's finite columns; all other rows are unaffected.
template <std::size_t DV, class T, std::size_t S, std::size_t VW, std::size_t L, std::size_t OW>
struct add_nonfinite_values {
  const T (&v)[S][VW];
  std::size_t v_off;
  T (&out)[L][OW];
  std::size_t out_off;
  const bool (&nonfinite)[S];

  template <std::size_t M>
  void operator()(std::size_t i0, const T (&w)[M][S]) const noexcept {
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t j = 0; j < S; ++j) {
        if (!nonfinite[j] || w[r][j] == T(0)) continue;
        for (std::size_t c = 0; c < DV; ++c) {
          out[i0 + r][out_off + c] = multiply_add(w[r][j], v[j][v_off + c], out[i0 + r][out_off + c]);
        }
      }
    }
  }
};

// attend's run-time form over rows of M = gemm_rows queries (AfterValues: see attend_rows).
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink, class AfterValues>
inline void attend_blocks(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                          const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off,
                          const T& divisor, const ScoreMod& score_mod, const WeightsSink& weights_sink,
                          const AfterValues& after_values) noexcept {
  T kt[DK][S];
  transpose_key_window(k, k_off, kt);
  constexpr std::size_t full = L - L % gemm_rows;
  for (std::size_t i0 = 0; i0 < full; i0 += gemm_rows) {
    attend_rows<gemm_rows, DK, DV>(i0, q, q_off, kt, v, v_off, out, out_off, divisor, score_mod, weights_sink,
                                   after_values);
  }
  if constexpr (full < L) {
    attend_rows<L - full, DK, DV>(full, q, q_off, kt, v, v_off, out, out_off, divisor, score_mod, weights_sink,
                                  after_values);
  }
}

// attend_runtime when some value is inf or NaN (rare, hence out of line: its copy of the value
// window costs stack only here). See add_nonfinite_values.
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink>
[[gnu::noinline]] void attend_runtime_nonfinite(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW],
                                                std::size_t k_off, const T (&v)[S][VW], std::size_t v_off,
                                                T (&out)[L][OW], std::size_t out_off, const T& divisor,
                                                const ScoreMod& score_mod, const WeightsSink& weights_sink) noexcept {
  T finite_v[S][DV];
  bool nonfinite[S];
  for (std::size_t j = 0; j < S; ++j) {
    nonfinite[j] = value_row_nonfinite<DV>(v, v_off, j);
    for (std::size_t c = 0; c < DV; ++c) finite_v[j][c] = nonfinite[j] ? T(0) : v[j][v_off + c];
  }
  attend_blocks<DK, DV>(q, q_off, k, k_off, finite_v, 0, out, out_off, divisor, score_mod, weights_sink,
                        add_nonfinite_values<DV, T, S, VW, L, OW>{v, v_off, out, out_off, nonfinite});
}

// Stack use beyond the plain form: d_k·S elements for kt, gemm_rows·S for a block of weights
// (four times that when S is shorter than softmax_short_row_packets packets: the block softmax's
// copy of the weights and its per-entry maxima and cutoffs). A key of weight 0 adds w · v = ±0
// to sums that start at +0 and so are never -0: nothing changes, as if the key were absent, as
// long as its values are finite; values that are not go to attend_runtime_nonfinite.
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink>
inline void attend_runtime(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                           const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off,
                           const T& divisor, const ScoreMod& score_mod, const WeightsSink& weights_sink) noexcept {
  if (window_finite<DV>(v, v_off)) {
    attend_blocks<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, divisor, score_mod, weights_sink,
                          values_all_finite{});
  } else {
    attend_runtime_nonfinite<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, divisor, score_mod, weights_sink);
  }
}

// A score: score_mod(i, j, dot / divisor), without a call when there is nothing to modify.
template <class T, class ScoreMod>
constexpr T modified_score(const ScoreMod& score_mod, std::size_t i, std::size_t j, T scaled) noexcept {
  if constexpr (std::is_same_v<ScoreMod, no_score_mod>) {
    return scaled;
  } else {
    return score_mod(i, j, scaled);
  }
}

// The plain form of attend (constant evaluation, and run time with CXMAT_RUNTIME_KERNELS=0). The
// head's key and value windows are copied once into local arrays, each query row's window once
// per row; every score is then one fold expression and so is each key's share of the output row
// (fold.hpp says why), with no call for the common widths (d_k, d_v <= fold_block). The output
// row is summed in a local array from +0, over keys in increasing order, skipping keys of
// weight 0.
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink, std::size_t... Cs, std::size_t... Vs>
constexpr void attend_plain(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                            const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off,
                            const T& divisor, const ScoreMod& score_mod, const WeightsSink& weights_sink,
                            std::index_sequence<Cs...>, std::index_sequence<Vs...>) noexcept {
  constexpr bool folded = DK <= fold_block && DV <= fold_block;
  T kw[S][DK]{};
  T vw[S][DV]{};
  for (std::size_t j = 0; j < S; ++j) {
    if constexpr (folded) {
      ((kw[j][Cs] = k[j][k_off + Cs]), ...), ((vw[j][Vs] = v[j][v_off + Vs]), ...);
    } else {
      copy_window(kw[j], &k[j][k_off]), copy_window(vw[j], &v[j][v_off]);
    }
  }
  for (std::size_t i = 0; i < L; ++i) {
    T qi[DK]{};
    T row[S]{};
    T oi[DV]{};
    if constexpr (folded) {
      ((qi[Cs] = q[i][q_off + Cs]), ...);
      for (std::size_t j = 0; j < S; ++j)
        row[j] = modified_score(score_mod, i, j, T((T{} + ... + (qi[Cs] * kw[j][Cs])) / divisor));
    } else {
      copy_window(qi, &q[i][q_off]);
      for (std::size_t j = 0; j < S; ++j) row[j] = modified_score(score_mod, i, j, T(dot<T>(qi, kw[j]) / divisor));
    }
    softmax_row(row, fixed_length<S>{});
    weights_sink(i, static_cast<const T*>(row));
    if constexpr (folded) {
      for (std::size_t j = 0; j < S; ++j) row[j] != T(0) ? (((oi[Vs] = oi[Vs] + row[j] * vw[j][Vs]), ...), 0) : 0;
      ((out[i][out_off + Vs] = oi[Vs]), ...);
    } else {
      for (std::size_t j = 0; j < S; ++j) row[j] != T(0) ? (scaled_add(oi, row[j], vw[j]), 0) : 0;
      copy_window_to(&out[i][out_off], oi);
    }
  }
}

// Row i of the scores at run time where there are no blocked kernels (has_runtime_products,
// not has_runtime_kernels<T>): row[j] = score_mod(i, j, (q_i · k_j) / divisor), each dot product
// attend_plain's, read from the windows of q and k where they are.
template <std::size_t DK, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW, class ScoreMod>
inline void score_row_loops(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                            std::size_t i, T* row, const T& divisor, const ScoreMod& score_mod) noexcept {
  for (std::size_t j = 0; j < S; ++j)
    row[j] = modified_score(score_mod, i, j, T(dot_loop(&q[i][q_off], &k[j][k_off], DK) / divisor));
}

// attend_plain at run time where there are no blocked kernels (has_runtime_products, not
// has_runtime_kernels<T>): the same scores, softmax_row and weighted sums, reading the windows
// of q, k and v where they are. As in attend_plain, each output row is summed in a local row
// from +0 over keys in increasing order, skipping keys of weight 0 (masks mean removal), then
// copied out. Of attend_plain's stack (its copies of the key and value windows and of a query
// row), only the rows of weights and of output remain.
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink>
inline void attend_loops(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                         const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off, const T& divisor,
                         const ScoreMod& score_mod, const WeightsSink& weights_sink) noexcept {
  for (std::size_t i = 0; i < L; ++i) {
    T row[S];  // every entry written by score_row_loops
    score_row_loops<DK>(q, q_off, k, k_off, i, row, divisor, score_mod);
    softmax_row(row, fixed_length<S>{});
    weights_sink(i, static_cast<const T*>(row));
    T oi[DV]{};
    for (std::size_t j = 0; j < S; ++j) {
      if (row[j] != T(0)) scaled_add_loop<DV>(oi, 0, row[j], v[j], v_off);
    }
    for (std::size_t c = 0; c < DV; ++c) out[i][out_off + c] = oi[c];
  }
}

// For each query row i of q (columns [q_off, q_off + DK)):
//   s_j     = score_mod(i, j, (q_i · k_j) / divisor)           over keys j of k (same columns)
//   w       = softmax(s)                                        (detail::softmax_row rules)
//   out_i   = sum_j w_j v_j  over keys with w_j != 0            (columns [v_off, v_off + DV))
// and hands the weight row to `weights_sink(i, w)`. `divisor` is √d_k unless the caller scales
// otherwise; dividing (not multiplying by 1/√d_k) matches the formula as the worksheets write it.
template <std::size_t DK, std::size_t DV, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW,
          std::size_t VW, std::size_t OW, class ScoreMod, class WeightsSink>
constexpr void attend(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                      const T (&v)[S][VW], std::size_t v_off, T (&out)[L][OW], std::size_t out_off, const T& divisor,
                      const ScoreMod& score_mod, const WeightsSink& weights_sink) noexcept {
  by_evaluation<has_runtime_products>(
      [&](auto...) {
        if constexpr (has_runtime_kernels<T>) {
          attend_runtime<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, divisor, score_mod, weights_sink);
        } else {
          attend_loops<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, divisor, score_mod, weights_sink);
        }
      },
      [&] {
        attend_plain<DK, DV>(q, q_off, k, k_off, v, v_off, out, out_off, divisor, score_mod, weights_sink,
                             std::make_index_sequence < DK <= fold_block ? DK : 0 > {},
                             std::make_index_sequence < DV <= fold_block ? DV : 0 > {});
      });
}

// The plain form of scores: attend_plain's scores (constant evaluation, and run time with
// CXMAT_RUNTIME_KERNELS=0).
template <std::size_t DK, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW, class ScoreMod,
          std::size_t... Cs>
constexpr void scores_plain(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off,
                            T (&s)[L][S], const T& divisor, const ScoreMod& score_mod,
                            std::index_sequence<Cs...>) noexcept {
  constexpr bool folded = DK <= fold_block;
  T kw[S][DK]{};
  for (std::size_t j = 0; j < S; ++j) {
    if constexpr (folded) {
      ((kw[j][Cs] = k[j][k_off + Cs]), ...);
    } else {
      copy_window(kw[j], &k[j][k_off]);
    }
  }
  for (std::size_t i = 0; i < L; ++i) {
    T qi[DK]{};
    if constexpr (folded) {
      ((qi[Cs] = q[i][q_off + Cs]), ...);
      for (std::size_t j = 0; j < S; ++j)
        s[i][j] = modified_score(score_mod, i, j, T((T{} + ... + (qi[Cs] * kw[j][Cs])) / divisor));
    } else {
      copy_window(qi, &q[i][q_off]);
      for (std::size_t j = 0; j < S; ++j) s[i][j] = modified_score(score_mod, i, j, T(dot<T>(qi, kw[j]) / divisor));
    }
  }
}

// The scores alone, (q_i · k_j) / divisor, modified, into s (L x S).
template <std::size_t DK, class T, std::size_t L, std::size_t S, std::size_t QW, std::size_t KW, class ScoreMod>
constexpr void scores(const T (&q)[L][QW], std::size_t q_off, const T (&k)[S][KW], std::size_t k_off, T (&s)[L][S],
                      const T& divisor, const ScoreMod& score_mod) noexcept {
  by_evaluation<has_runtime_products>(
      [&](auto...) {
        if constexpr (has_runtime_kernels<T>) {
          T kt[DK][S];
          transpose_key_window(k, k_off, kt);
          gemm<L, S, DK>(q, q_off, kt, 0, s, 0, divide_by<T>{divisor});
          apply_score_mod(0, s, score_mod);
        } else {
          for (std::size_t i = 0; i < L; ++i) score_row_loops<DK>(q, q_off, k, k_off, i, s[i], divisor, score_mod);
        }
      },
      [&] {
        scores_plain<DK>(q, q_off, k, k_off, s, divisor, score_mod,
                         std::make_index_sequence < DK <= fold_block ? DK : 0 > {});
      });
}

// √n in T, for the default scale of scaled dot-product attention.
template <class T>
constexpr T sqrt_of_size(std::size_t n) noexcept {
  using cxmat::sqrt;
  return sqrt(static_cast<T>(n));
}

}  // namespace cxmat::detail
