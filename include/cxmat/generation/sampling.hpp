// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Choosing the next token from a row of logits: greedy (the first of the largest), or sampling
// with temperature, top-k and top-p from a counter-based generator. The draw for the token at
// position i depends only on the seed and i, never on earlier draws or on where the program runs,
// so a generation gives the same tokens in a constant expression, at run time, in one piece or
// continued across many constant expressions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/kernels/softmax.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat {

/// How to choose each next token. `temperature <= 0` is greedy decoding. Otherwise the logits are
/// divided by the temperature, turned into probabilities (softmax, in double), cut to the `top_k`
/// most probable tokens (ties: the lower id first), then to the smallest leading set of those whose
/// probabilities add up to at least `top_p` of what is left, and one token is drawn from that set
/// in proportion to its probabilities with the draw u_i = splitmix64(seed + i · 0x9E3779B97F4A7C15)
/// / 2^64 for the token at position i. Build one with `sampling(temperature, seed)` and
/// `.with_top_k(k)`, `.with_top_p(p)`; top_k = 0 and top_p outside (0, 1] are refused.
struct sampler {
  double temperature = 0.0;
  std::uint64_t seed = 0;
  std::size_t top_k = std::numeric_limits<std::size_t>::max();  // all tokens
  double top_p = 1.0;

  /// This sampler keeping only the k most probable tokens (k >= 1).
  [[nodiscard]] constexpr sampler with_top_k(std::size_t k) const noexcept {
    sampler s = *this;
    s.top_k = k;
    return s;
  }
  /// This sampler keeping the most probable tokens until their share reaches p (0 < p <= 1).
  [[nodiscard]] constexpr sampler with_top_p(double p) const noexcept {
    sampler s = *this;
    s.top_p = p;
    return s;
  }
  /// Whether the parameters are allowed: top_k >= 1, 0 < top_p <= 1, temperature not NaN.
  [[nodiscard]] constexpr bool valid() const noexcept {
    return top_k >= 1 && top_p > 0.0 && top_p <= 1.0 && temperature == temperature;
  }
};

/// Greedy decoding: the token with the largest logit, the first of equal ones.
inline constexpr sampler greedy{};

/// Sampling at `temperature` (<= 0: greedy) with the generator seeded by `seed`.
constexpr sampler sampling(double temperature, std::uint64_t seed) noexcept { return sampler{temperature, seed}; }

/// The token id a chosen token gets when there is none: the logits held NaN, every logit was -inf,
/// or the sampler's parameters are refused. Generation stops there.
inline constexpr int no_token = -1;

namespace detail {

// Not constexpr, on purpose: a constant expression that reaches one of these stops there, and the
// compiler names the function.
inline void sampler_top_k_must_be_at_least_1_and_top_p_in_0_to_1() noexcept {}
inline void logits_must_not_be_nan_when_choosing_a_token() noexcept {}

/// SplitMix64 (Steele, Lea and Flood 2014) of x: a 64-bit hash whose outputs for consecutive
/// inputs are independent enough for sampling.
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

/// The uniform draw in [0, 1) for the token at `position`: the top 53 bits of the hash, exactly.
constexpr double uniform_draw(std::uint64_t seed, std::uint64_t position) noexcept {
  return static_cast<double>(splitmix64(seed + position * 0x9E3779B97F4A7C15ULL) >> 11U) * 0x1.0p-53;
}

// The first index of the largest entry (+inf counts; -inf everywhere gives no_token).
template <class T>
constexpr int argmax_or_none(const T* row, std::size_t n) noexcept {
  std::size_t best = 0;
  for (std::size_t j = 1; j < n; ++j) best = row[j] > row[best] ? j : best;
  if (row[best] == -std::numeric_limits<T>::infinity()) return no_token;
  return static_cast<int>(best);
}

// Sorts ids[0, n) by descending p, equal p by ascending id (a stable merge sort: its comparisons
// are few for a constant evaluator, n log n).
template <std::size_t V>
constexpr void sort_by_probability(std::size_t (&ids)[V], std::size_t n, const double (&p)[V],
                                   std::size_t (&scratch)[V]) noexcept {
  for (std::size_t width = 1; width < n; width *= 2) {
    for (std::size_t lo = 0; lo < n; lo += 2 * width) {
      const std::size_t mid = lo + width < n ? lo + width : n;
      const std::size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      std::size_t a = lo;
      std::size_t b = mid;
      for (std::size_t o = lo; o < hi; ++o) {
        const bool take_b = b < hi && (a >= mid || p[ids[b]] > p[ids[a]]);
        scratch[o] = take_b ? ids[b++] : ids[a++];
      }
    }
    for (std::size_t o = 0; o < n; ++o) ids[o] = scratch[o];
  }
}

}  // namespace detail

/// The memory of choosing a token from V logits by sampling: the probabilities, the ids kept and
/// the sort's merge buffer (greedy choice needs none of it). A generation holds one, so that its
/// size is all the memory it needs; whatever it holds between choices does not matter.
template <std::size_t V>
struct sampling_workspace {
  double probabilities[V];
  std::size_t ids[V];
  std::size_t merged[V];
};

/// The next token from a 1 x V row of logits, the token being placed at `position` (which picks
/// the draw). NaN anywhere in the row: no_token (a compile error in a constant expression); every
/// logit -inf: no_token; refused sampler parameters: no_token (a compile error in a constant
/// expression). +inf logits share the probability equally, as softmax_rows defines.
/// With `ws`, the caller's, the choice computes in it instead of on the stack.
template <class T, extent One, extent V>
constexpr int choose_token(const matrix<T, One, V>& logits, const sampler& s, std::size_t position,
                           sampling_workspace<V.size>& ws) noexcept {
  static_assert(One.size == 1, "choose_token(logits, sampler, position): logits is one row (1 x vocab)");
  if (!s.valid()) {
    detail::refuse_in_constant_evaluation<detail::sampler_top_k_must_be_at_least_1_and_top_p_in_0_to_1>();
    return no_token;
  }
  const T* row = logits.elems[0];
  for (std::size_t j = 0; j < V.size; ++j) {
    if (row[j] != row[j]) {
      detail::refuse_in_constant_evaluation<detail::logits_must_not_be_nan_when_choosing_a_token>();
      return no_token;
    }
  }
  if (s.temperature <= 0.0) return detail::argmax_or_none(row, V.size);
  double(&p)[V.size] = ws.probabilities;
  for (std::size_t j = 0; j < V.size; ++j) p[j] = static_cast<double>(row[j]) / s.temperature;
  detail::softmax_row_plain(static_cast<double*>(p), V.size);
  double total = 0.0;
  for (std::size_t j = 0; j < V.size; ++j) total += p[j];
  if (!(total > 0.0)) return no_token;  // every logit -inf
  const double u = detail::uniform_draw(s.seed, position);
  if (s.top_k >= V.size && s.top_p >= 1.0) {  // the whole vocabulary, in id order
    const double r = u * total;
    double cumulative = 0.0;
    for (std::size_t j = 0; j < V.size; ++j) {
      cumulative += p[j];
      if (r < cumulative) return static_cast<int>(j);
    }
    std::size_t last = V.size - 1;
    while (p[last] == 0.0) --last;  // rounding left r at the total: the last possible token
    return static_cast<int>(last);
  }
  std::size_t(&ids)[V.size] = ws.ids;
  std::size_t n = 0;
  for (std::size_t j = 0; j < V.size; ++j) {
    if (p[j] > 0.0) ids[n++] = j;
  }
  detail::sort_by_probability(ids, n, p, ws.merged);
  if (s.top_k < n) n = s.top_k;
  double kept = 0.0;
  for (std::size_t i = 0; i < n; ++i) kept += p[ids[i]];
  if (s.top_p < 1.0) {
    const double target = s.top_p * kept;
    double cumulative = 0.0;
    std::size_t i = 0;
    while (i < n) {
      cumulative += p[ids[i++]];
      if (cumulative >= target) break;
    }
    n = i;
    kept = cumulative;
  }
  const double r = u * kept;
  double cumulative = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    cumulative += p[ids[i]];
    if (r < cumulative) return static_cast<int>(ids[i]);
  }
  return static_cast<int>(ids[n - 1]);
}

template <class T, extent One, extent V>
constexpr int choose_token(const matrix<T, One, V>& logits, const sampler& s, std::size_t position) noexcept {
  sampling_workspace<V.size> ws;
  return choose_token(logits, s, position, ws);
}

}  // namespace cxmat
