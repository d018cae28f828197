// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The run-time form of softmax_row for float and double: the same rules, each pass (max, exp and
// sum, division) computed on packets of the target's vector width. One row at a time
// (softmax_row_runtime) or a block of rows of compile-time length (softmax_rows_runtime, which
// attention uses); both give a row the same bits.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include <cxmat/kernels/runtime_exp.hpp>
#include <cxmat/kernels/runtime_simd.hpp>
#include <cxmat/kernels/softmax_rules.hpp>

namespace cxmat::detail {

// Softmax works on packets of the full vector width; entries past the last whole packet (the
// tail) are handled one by one, each in the lane it would have had.
template <class T>
using softmax_packet = packet<T, simd_bytes >= sizeof(T) ? simd_bytes : sizeof(T)>;

// The maximum of row[0, n), ignoring NaN as the constant path's `x > max ? x : max` does. The
// tail packet is padded with row[0], which changes no maximum.
template <class T, class Len>
[[gnu::always_inline]] inline T softmax_max(const T* row, Len len) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  const auto larger = [](const auto& lhs, const auto& rhs) { return select_lt(lhs, rhs, rhs, lhs); };
  const std::size_t n = len;
  const auto rem = tail_length<lanes>(len);
  const std::size_t n_full = n - rem;
  P part = splat<P>(-std::numeric_limits<T>::infinity());
  for (std::size_t j = 0; j < n_full; j += lanes) part = larger(part, load_packet<P>(row + j));
  if (rem != 0) part = larger(part, load_tail<P>(row + n_full, rem, row[0]));
  return fold_packet(part, larger);
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

// The sum of the entries (weights before normalisation, all >= 0 or NaN) of row[0, n) as both
// row kernels form it: the entries that are not 0 taken in order, the m-th of them into partial
// sum m % lanes, then fold_packet's fixed tree. Zeros (masked keys, and keys too far below the
// maximum) are skipped, not added, so the lanes the other entries land in do not depend on where
// the zeros are: a row with masked keys anywhere has the same sum, to the bit, as the row with
// those keys removed. A row without zeros, or with zeros only at its end (causal masks, key
// padding), needs no compaction: its j-th entry is its j-th non-zero entry or a zero that adds
// nothing, and whole packets are added as they are.
template <class T, class Len>
[[gnu::always_inline]] inline T softmax_sum(const T* row, Len len) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  const auto add = [](const auto& lhs, const auto& rhs) { return lhs + rhs; };
  const auto smaller = [](const auto& lhs, const auto& rhs) { return select_lt(lhs, rhs, lhs, rhs); };
  const std::size_t n = len;
  const auto rem = tail_length<lanes>(len);
  const std::size_t n_full = n - rem;
  P part = splat<P>(T(0));
  P least = splat<P>(T(1));
  for (std::size_t j = 0; j < n_full; j += lanes) {
    const P x = load_packet<P>(row + j);
    part += x;
    least = smaller(x, least);
  }
  if (rem != 0) {
    part += load_tail<P>(row + n_full, rem, T(0));
    least = smaller(load_tail<P>(row + n_full, rem, T(1)), least);
  }
  if (lanes == 1 || fold_packet(least, smaller) != T(0)) return fold_packet(part, add);
  // Zeros only after the last non-zero entry (causal masks, key padding) leave every non-zero
  // entry in its lane: the sum above is already the compacted one.
  std::size_t first_zero = 0;
  while (row[first_zero] != T(0)) ++first_zero;
  std::size_t after = first_zero;
  while (after < n && row[after] == T(0)) ++after;
  if (after == n) return fold_packet(part, add);
  // A zero before a non-zero entry: the sum over the non-zero entries, compacted in order
  // through a packet buffer.
  T buffer[lanes];
  std::size_t m = 0;
  part = splat<P>(T(0));
  for (std::size_t j = 0; j < n; ++j) {
    buffer[m] = row[j];
    m += row[j] != T(0) ? 1U : 0U;
    if (m == lanes) {
      part += load_packet<P>(buffer);
      m = 0;
    }
  }
  for (std::size_t l = m; l < lanes; ++l) buffer[l] = T(0);
  return fold_packet(part + load_packet<P>(buffer), add);
}

// Replaces row[0, n) by its weights before normalisation and returns their sum (softmax_sum,
// the one place a row's sum is formed, so the row and block kernels agree to the bit). The tail
// packet's padding lanes are never stored.
template <class T, class Len>
[[gnu::always_inline]] inline T softmax_exp_sum(T* row, Len len, T max, T zero_bound) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  const P max_p = splat<P>(max);
  const P cutoff = splat<P>(max + zero_bound);
  const P lowest = splat<P>(zero_bound - T(2));
  const std::size_t n = len;
  const auto rem = tail_length<lanes>(len);
  const std::size_t n_full = n - rem;
  for (std::size_t j = 0; j < n_full; j += lanes) {
    store_packet(row + j, softmax_weight(load_packet<P>(row + j), max_p, cutoff, lowest));
  }
  if (rem != 0) {
    store_tail(row + n_full, rem, softmax_weight(load_tail<P>(row + n_full, rem, max), max_p, cutoff, lowest));
  }
  return softmax_sum(row, len);
}

// row[0, n) divided by sum (divided, as on the constant path, not multiplied by 1 / sum).
template <class T, class Len>
[[gnu::always_inline]] inline void softmax_divide(T* row, Len len, T sum) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  const std::size_t n = len;
  const auto rem = tail_length<lanes>(len);
  const std::size_t n_full = n - rem;
  for (std::size_t j = 0; j < n_full; j += lanes) store_packet(row + j, load_packet<P>(row + j) / sum);
  if (rem != 0) store_tail(row + n_full, rem, load_tail<P>(row + n_full, rem, T(1)) / sum);
}

// softmax_row's rules (softmax_rules.hpp, the same functions as the plain form) on row[0, n). `zero_bound` is
// exp_zero_bound<T>(): entries more than that far below the maximum get weight exactly 0.
//
// Differs from the constant-evaluation path only in rounding: exp_nonpositive instead of
// cxmat::exp (both within 1 ulp) and the order of the sum (above). Each weight stays within
// (n + 4) ulp of the other path's weight, or the smallest normal's ulp for weights below it
// (runtime_tests/kernels checks this).
template <class T, class Len>
inline void softmax_row_runtime(T* row, Len len, T zero_bound) noexcept {
  const T max = softmax_max(row, len);
  // A NaN or zero sum, from either branch, is softmax_sum_special's. [[likely]] keeps the rare
  // branch from costing the kernels it is inlined into registers (GCC 12, x86: up to 2 % more
  // instructions in causal attention without it).
  T sum;
  if (softmax_finite_max(max)) [[likely]] {
    sum = softmax_exp_sum(row, len, max, zero_bound);
  } else {
    sum = softmax_special_weights(row, len);
  }
  if (softmax_sum_special(row, len, sum)) return;
  softmax_divide(row, len, sum);
}

// Rows shorter than this many packets are done a block of rows at a time (softmax_block_runtime):
// one row's exponentials are then too few to keep the processor busy while each waits for its
// row's maximum and its sum waits for them, so the block's exponentials run as one stream of
// independent packets instead.
inline constexpr std::size_t softmax_short_row_packets = 4;
inline constexpr std::size_t softmax_block_rows = 8;

// softmax_row_runtime on M rows of length S starting at w, with the same bits, in phases over
// the whole block: the maxima, every exponential over the block seen as one array of M * S
// entries (rows are contiguous) in whole packets and one padded tail packet, then each row's sum
// (softmax_sum, as the row kernel forms it) and division.
template <std::size_t M, std::size_t S, class T>
inline void softmax_block_runtime(T (*w)[S], T zero_bound) noexcept {
  using P = softmax_packet<T>;
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  constexpr std::size_t n = M * S;
  constexpr std::size_t padded = (n + lanes - 1) / lanes * lanes;
  constexpr std::size_t n_full = n - n % lanes;
  constexpr fixed_length<n % lanes> rem{};
  T* const flat = &w[0][0];
  // Each entry's row maximum and cutoff; the padding lanes compute a weight that is never stored.
  T max[padded];
  T cutoff[padded];
  for (std::size_t r = 0; r < M; ++r) {
    const T m = softmax_max(w[r], fixed_length<S>{});
    if (!softmax_finite_max(m)) {
      for (std::size_t i = 0; i < M; ++i) softmax_row_runtime(w[i], fixed_length<S>{}, zero_bound);  // rare
      return;
    }
    const T c = m + zero_bound;
    for (std::size_t j = 0; j < S; ++j) {
      max[r * S + j] = m;
      cutoff[r * S + j] = c;
    }
  }
  for (std::size_t i = n; i < padded; ++i) max[i] = cutoff[i] = T(0);
  const P lowest = splat<P>(zero_bound - T(2));
  for (std::size_t i = 0; i < n_full; i += lanes) {
    store_packet(flat + i,
                 softmax_weight(load_packet<P>(flat + i), load_packet<P>(max + i), load_packet<P>(cutoff + i), lowest));
  }
  if constexpr (rem != 0) {
    store_tail(flat + n_full, rem,
               softmax_weight(load_tail<P>(flat + n_full, rem, T(0)), load_packet<P>(max + n_full),
                              load_packet<P>(cutoff + n_full), lowest));
  }
  for (std::size_t r = 0; r < M; ++r) {
    const T sum = softmax_sum(w[r], fixed_length<S>{});
    if (!softmax_sum_special(w[r], S, sum)) softmax_divide(w[r], fixed_length<S>{}, sum);
  }
}

// softmax_row_runtime on each of the M rows of w, with the same bits: long rows one by one,
// short rows (fewer than softmax_short_row_packets packets) in blocks of softmax_block_rows.
// Without vector packets (one lane) rows go one by one: blocks would only cost stack.
template <std::size_t M, std::size_t S, class T>
inline void softmax_rows_runtime(T (&w)[M][S], T zero_bound) noexcept {
  constexpr std::size_t lanes = packet_traits<softmax_packet<T>>::lanes;
  if constexpr (lanes == 1 || S >= softmax_short_row_packets * lanes) {
    for (std::size_t r = 0; r < M; ++r) softmax_row_runtime(w[r], fixed_length<S>{}, zero_bound);
  } else {
    constexpr std::size_t full = M - M % softmax_block_rows;
    for (std::size_t r = 0; r < full; r += softmax_block_rows) {
      softmax_block_runtime<softmax_block_rows>(w + r, zero_bound);
    }
    if constexpr (full < M) softmax_block_runtime<M - full>(w + full, zero_bound);
  }
}

}  // namespace cxmat::detail
