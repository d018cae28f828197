// The run-time form of softmax_row for float and double: the same rules, each pass (max, exp and
// sum, division) computed on packets of the target's vector width. One row at a time
// (softmax_row_runtime) or a block of rows of compile-time length (softmax_rows_runtime, which
// attention uses); both give a row the same bits.
#pragma once

#include <bit>
#include <cstddef>
#include <limits>

#include <cxmat/detail/runtime_exp.hpp>
#include <cxmat/detail/runtime_simd.hpp>

namespace cxmat::detail {

// Softmax works on packets of the full vector width; entries past the last whole packet (the
// tail) are handled one by one, each in the lane it would have had.
template <class T>
using softmax_packet = packet<T, simd_bytes >= sizeof(T) ? simd_bytes : sizeof(T)>;

// The maximum of row[0, n), ignoring NaN as the constant path's `x > max ? x : max` does.
template <class T>
[[gnu::always_inline]] inline T softmax_max(const T* row, std::size_t n) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  const auto larger = [](const auto& a, const auto& b) { return select_lt(a, b, b, a); };
  const std::size_t n_full = n - n % lanes;
  T max = -std::numeric_limits<T>::infinity();
  if (n_full != 0) {
    P part = splat<P>(max);
    for (std::size_t j = 0; j < n_full; j += lanes) part = larger(part, load_packet<P>(row + j));
    max = fold_packet(part, larger);
  }
  for (std::size_t j = n_full; j < n; ++j) max = larger(max, row[j]);
  return max;
}

// Applies softmax_row's special rules when the maximum is not finite (+inf entries, or every
// entry -inf or NaN) and says whether it did. With a finite maximum a NaN entry needs no test:
// it turns its exponential, hence the sum, hence every weight into NaN, which is the NaN rule.
template <class T>
[[gnu::always_inline]] inline bool softmax_special(T* row, std::size_t n, T max) noexcept {
  using limits = std::numeric_limits<T>;
  constexpr T inf = limits::infinity();
  if (max != inf && max != -inf) return false;
  std::size_t n_nan = 0;
  std::size_t n_pos_inf = 0;
  for (std::size_t j = 0; j < n; ++j) {
    n_nan += (row[j] != row[j]) ? 1U : 0U;
    n_pos_inf += (row[j] == inf) ? 1U : 0U;
  }
  if (n_nan != 0) {
    for (std::size_t j = 0; j < n; ++j) row[j] = limits::quiet_NaN();
  } else if (n_pos_inf != 0) {
    const T share = T(1) / static_cast<T>(n_pos_inf);
    for (std::size_t j = 0; j < n; ++j) row[j] = (row[j] == inf) ? share : T(0);
  } else {
    for (std::size_t j = 0; j < n; ++j) row[j] = T(0);  // every entry -inf: fully masked
  }
  return true;
}

// The weight of an entry x before normalisation: exp(x - max), or exactly 0 when x is under the
// cutoff max + zero_bound. x - max may overflow to -inf there (the constant path never forms
// it); clamping to `lowest` (zero_bound - 2) keeps the exp kernel in its domain either way.
template <class P>
[[gnu::always_inline]] inline P softmax_weight(const P& x, const P& max, const P& cutoff, const P& lowest) noexcept {
  const P d = x - max;
  const P e = exp_nonpositive(select_lt(d, lowest, lowest, d));
  return select_lt(x, cutoff, splat<P>(0), e);
}

// Replaces row[0, n) by its weights before normalisation and returns their sum: entry j goes to
// partial sum j % lanes, and the partial sums are folded in a fixed tree. Appending zeros
// (masked entries) therefore leaves the sum unchanged to the bit, so key padding equals removing
// the padded keys, as on the constant path.
template <class T>
[[gnu::always_inline]] inline T softmax_exp_sum(T* row, std::size_t n, T max, T zero_bound) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  const T cutoff = max + zero_bound;
  const T lowest = zero_bound - T(2);
  const std::size_t n_full = n - n % lanes;
  P part = splat<P>(T(0));
  for (std::size_t j = 0; j < n_full; j += lanes) {
    const P e = softmax_weight(load_packet<P>(row + j), splat<P>(max), splat<P>(cutoff), splat<P>(lowest));
    store_packet(row + j, e);
    part += e;
  }
  if (n_full != n) {
    P tail = splat<P>(T(0));
    for (std::size_t j = n_full; j < n; ++j) {
      const T e = softmax_weight(row[j], max, cutoff, lowest);
      row[j] = e;
      set_lane(tail, j - n_full, e);
    }
    part += tail;
  }
  return fold_packet(part, [](const auto& a, const auto& b) { return a + b; });
}

// row[0, n) divided by sum (divided, as on the constant path, not multiplied by 1 / sum).
template <class T>
[[gnu::always_inline]] inline void softmax_divide(T* row, std::size_t n, T sum) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  const std::size_t n_full = n - n % lanes;
  for (std::size_t j = 0; j < n_full; j += lanes) store_packet(row + j, load_packet<P>(row + j) / sum);
  for (std::size_t j = n_full; j < n; ++j) row[j] = row[j] / sum;
}

// part[l] += part[l + W] for l < W, then the same for W / 2, ..., 1: fold_packet's tree on an
// array of 2W scalars (a template argument per level, so each level is a fixed-length loop).
template <std::size_t W, class T>
[[gnu::always_inline]] inline void fold_halves(T* part) noexcept {
  if constexpr (W != 0) {
    for (std::size_t l = 0; l < W; ++l) part[l] = part[l] + part[l + W];
    fold_halves<W / 2>(part);
  }
}

// softmax_row's rules (see softmax.hpp) on row[0, n). `zero_bound` is exp_zero_bound<T>():
// entries more than that far below the maximum get weight exactly 0.
//
// Differs from the constant-evaluation path only in rounding: exp_nonpositive instead of
// cxmat::exp (both within 1 ulp) and the order of the sum (above). Each weight stays within
// (n + 4) ulp of the other path's weight, or the smallest normal's ulp for weights below it
// (runtime_tests/kernels checks this).
template <class T>
inline void softmax_row_runtime(T* row, std::size_t n, T zero_bound) noexcept {
  const T max = softmax_max(row, n);
  if (softmax_special(row, n, max)) return;
  softmax_divide(row, n, softmax_exp_sum(row, n, max, zero_bound));
}

// softmax_row_runtime on each of the M rows of w, with the same bits. Rows shorter than a packet
// have their exponentials and divisions computed over the whole block at once, in whole packets,
// so that a few keys per row still fill vector registers; longer rows go row by row.
template <std::size_t M, std::size_t S, class T>
inline void softmax_rows_runtime(T (&w)[M][S], T zero_bound) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  if constexpr (S >= lanes) {
    for (std::size_t r = 0; r < M; ++r) softmax_row_runtime(w[r], S, zero_bound);
  } else {
    // The block as one array of M * S entries, padded to whole packets, and beside it each
    // entry's row max and cutoff; padding lanes compute a weight that is thrown away.
    constexpr std::size_t n = M * S;
    constexpr std::size_t padded = (n + lanes - 1) / lanes * lanes;
    T x[padded];
    T max[padded];
    T cutoff[padded];
    for (std::size_t r = 0; r < M; ++r) {
      const T m = softmax_max(w[r], S);
      if (m == std::numeric_limits<T>::infinity() || m == -std::numeric_limits<T>::infinity()) {
        for (std::size_t i = 0; i < M; ++i) softmax_row_runtime(w[i], S, zero_bound);  // rare
        return;
      }
      for (std::size_t j = 0; j < S; ++j) {
        x[r * S + j] = w[r][j];
        max[r * S + j] = m;
        cutoff[r * S + j] = m + zero_bound;
      }
    }
    for (std::size_t i = n; i < padded; ++i) x[i] = max[i] = cutoff[i] = T(0);
    const P lowest = splat<P>(zero_bound - T(2));
    for (std::size_t i = 0; i < padded; i += lanes) {
      store_packet(x + i, softmax_weight(load_packet<P>(x + i), load_packet<P>(max + i), load_packet<P>(cutoff + i),
                                         lowest));
    }
    // Each row's sum as softmax_exp_sum forms it (its entries in lanes 0 .. S-1 of a packet of
    // zeros, folded pairwise), in scalars: the folds above bit_ceil(S) lanes only add zeros.
    T* const sum = max;
    for (std::size_t r = 0; r < M; ++r) {
      constexpr std::size_t width = std::bit_ceil(S);
      T part[width];
      for (std::size_t j = 0; j < width; ++j) part[j] = j < S ? x[r * S + j] : T(0);
      fold_halves<width / 2>(part);
      for (std::size_t j = 0; j < S; ++j) sum[r * S + j] = part[0];
    }
    for (std::size_t i = n; i < padded; ++i) sum[i] = T(1);
    for (std::size_t i = 0; i < padded; i += lanes) {
      store_packet(x + i, load_packet<P>(x + i) / load_packet<P>(sum + i));
    }
    for (std::size_t r = 0; r < M; ++r) {
      for (std::size_t j = 0; j < S; ++j) w[r][j] = x[r * S + j];
    }
  }
}

}  // namespace cxmat::detail
