// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Turns a call's attention options into what the kernel takes: the score divisor, one
// score-modification callable, biased projections, and rotated queries and keys.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include <cxmat/attention/detail/constant_checks.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/kernels/attention.hpp>
#include <cxmat/kernels/matmul.hpp>
#include <cxmat/kernels/rotary.hpp>
#include <cxmat/ops/arithmetic.hpp>

namespace cxmat::detail {

// Phase 1: an explicit scale multiplies the raw dot product (the divisor is then 1).
template <class O, class T>
constexpr T scale_score(const O& /*option*/, T s) noexcept {
  return s;
}
template <class U, class T>
constexpr T scale_score(const score_scale<U>& o, T s) noexcept {
  return s * o.factor;
}

// Phase 2: additive score biases.
template <class O, class T>
constexpr T bias_score(const O& /*option*/, std::size_t /*i*/, std::size_t /*j*/, T s) noexcept {
  return s;
}
template <class U, extent BL, extent BS, class T>
constexpr T bias_score(const score_bias<U, BL, BS>& o, std::size_t i, std::size_t j, T s) noexcept {
  return s + o.values.elems[i][j];
}

// Phase 3: masks decide which keys a query may see.
template <class O>
constexpr bool mask_allows(const O& /*option*/, std::size_t /*i*/, std::size_t /*j*/, std::size_t /*l*/,
                           std::size_t /*s*/) noexcept {
  return true;
}
template <extent ML, extent MS>
constexpr bool mask_allows(const attention_mask<ML, MS>& o, std::size_t i, std::size_t j, std::size_t /*l*/,
                           std::size_t /*s*/) noexcept {
  return o.allowed.elems[i][j];
}
template <extent MS>
constexpr bool mask_allows(const key_padding_mask<MS>& o, std::size_t /*i*/, std::size_t j, std::size_t /*l*/,
                           std::size_t /*s*/) noexcept {
  return o.keep.elems[0][j];
}
template <causal_alignment A>
constexpr bool mask_allows(const causal_mask<A>& /*option*/, std::size_t i, std::size_t j, std::size_t l,
                           std::size_t s) noexcept {
  if constexpr (A == causal_alignment::upper_left) {
    return j <= i;
  } else {
    return j + l <= i + s;  // j <= i + (s - l), without going negative when l > s
  }
}

template <class... O>
inline constexpr bool any_mask_v = (false || ... || option_traits<std::remove_cvref_t<O>>::is_mask);

// The divisor of the dot products: √d_k by default, 1 when an explicit scale is given.
template <class T, class... O>
constexpr T score_divisor(std::size_t dk) noexcept {
  if constexpr (scale_count<O...> != 0) {
    return T(1);
  } else {
    return sqrt_of_size<T>(dk);
  }
}

// One callable applying every option to a score, phase by phase (scale, bias, masks) whatever
// order the options were passed in. Masked scores become -inf, which softmax_row gives weight 0
// (and a fully masked row all zeros). No options: the identity.
template <class T, class... O>
constexpr auto make_score_mod(std::size_t query_count, std::size_t key_count, const O&... opts) noexcept {
  if constexpr (sizeof...(O) == 0) {
    return no_score_mod{};
  } else {
    static_assert(!any_mask_v<O...> || std::numeric_limits<T>::has_infinity,
                  "attention masks: the scalar type needs an infinity (masked scores are -inf)");
    if constexpr (any_mask_v<O...>) {
      return [query_count, key_count, &opts...](std::size_t i, std::size_t j, T score) noexcept -> T {
        ((score = scale_score(opts, score)), ...);
        ((score = bias_score(opts, i, j, score)), ...);
        const bool key_visible = (true && ... && mask_allows(opts, i, j, query_count, key_count));
        return key_visible ? score : -std::numeric_limits<T>::infinity();
      };
    } else {
      return [&opts...](std::size_t i, std::size_t j, T score) noexcept -> T {
        ((score = scale_score(opts, score)), ...);
        ((score = bias_score(opts, i, j, score)), ...);
        return score;
      };
    }
  }
}

// Adds a projection bias row to every row of m, when the option is the bias of projection P.
template <projection P, class T, extent R, extent C, class O>
constexpr void add_projection_bias(matrix<T, R, C>& /*m*/, const O& /*option*/) noexcept {}
template <projection P, class T, extent R, extent C, extent W>
constexpr void add_projection_bias(matrix<T, R, C>& m, const projection_bias<P, T, W>& b) noexcept {
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) m.elems[i][j] += b.values.elems[0][j];
  }
}

// X·W, plus the bias of projection P if the options carry one, written into out (the caller's
// matrix: a workspace's), whatever it held: matmul's product (its kernel, from +0). out has x's
// rows and w's columns, whatever their names; it must not be x.
template <projection P, class T, extent RO, extent CO, extent R, extent K1, extent K2, extent C, class... O>
constexpr void project_into(matrix<T, RO, CO>& out, const matrix<T, R, K1>& x, const matrix<T, K2, C>& w,
                            const O&... opts) noexcept {
  check_projection<P>(x.elems, w.elems, opts...);
  matmul_into(out, x, w);
  (add_projection_bias<P>(out, opts), ...);
}

// X·W, plus the bias of projection P if the options carry one.
template <projection P, class T, extent R, extent K1, extent K2, extent C, class... O>
constexpr matrix<T, R, C> project(const matrix<T, R, K1>& x, const matrix<T, K2, C>& w, const O&... opts) noexcept {
  matrix<T, R, C> out;
  project_into<P>(out, x, w, opts...);
  return out;
}

// Rotary position embedding: the position of the first query row is 0, or S - L with
// causal_lower_right (the queries are the last L of the S positions); keys start at 0.
template <class... O>
inline constexpr bool lower_right_v =
    (false || ... || std::is_same_v<std::remove_cvref_t<O>, causal_mask<causal_alignment::lower_right>>);

template <class... O>
constexpr long long first_query_position([[maybe_unused]] std::size_t query_count,
                                         [[maybe_unused]] std::size_t key_count) noexcept {
  if constexpr (lower_right_v<O...>) {
    return static_cast<long long>(key_count) - static_cast<long long>(query_count);
  } else {
    return 0;
  }
}

// In place: the queries q (Heads heads) and the keys k (Heads heads) at their positions, when
// the options hold rotary(); otherwise nothing.
template <std::size_t Heads, class T, extent R, extent C, class... O>
constexpr void rotate_queries(matrix<T, R, C>& q, [[maybe_unused]] std::size_t key_count, const O&... opts) noexcept {
  (apply_rotary<Heads>(q.elems, first_query_position<O...>(R.size, key_count), opts), ...);
}
template <std::size_t Heads, class T, extent R, extent C, class... O>
constexpr void rotate_keys(matrix<T, R, C>& k, const O&... opts) noexcept {
  (apply_rotary<Heads>(k.elems, 0, opts), ...);
}

// The queries and keys the scores see: rotated copies when the options hold rotary(), else q
// and k themselves (no copy).
template <std::size_t Heads, class M, class... O>
constexpr decltype(auto) rotated_queries(const M& q, [[maybe_unused]] std::size_t key_count,
                                         const O&... opts) noexcept {
  if constexpr (rotary_count<O...> == 0) {
    return (q);
  } else {
    M out = q;
    rotate_queries<Heads>(out, key_count, opts...);
    return out;
  }
}
template <std::size_t Heads, class M, class... O>
constexpr decltype(auto) rotated_keys(const M& k, const O&... opts) noexcept {
  if constexpr (rotary_count<O...> == 0) {
    return (k);
  } else {
    M out = k;
    rotate_keys<Heads>(out, opts...);
    return out;
  }
}

}  // namespace cxmat::detail
