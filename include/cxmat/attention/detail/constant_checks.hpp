// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The compile-time contract for non-finite and overflowing values (docs/numerics.md): a constant
// expression of attention whose inputs are not finite, or whose products could leave the range
// of T, stops with an error that names the input or the product, on every compiler alike.
// Without these checks GCC and Clang disagree (GCC rejects any overflow to inf and accepts NaN,
// Clang accepts inf and rejects NaN) and both report it deep inside a kernel.
//
// The product bound is conservative: X·W is accepted when k·max|x|·max|w| (plus the bias) fits
// in T, so each partial sum fits too, whatever the order of summation. At run time nothing here
// runs: IEEE arithmetic propagates (see docs/numerics.md).
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

#include <cxmat/attention/options.hpp>
#include <cxmat/kernels/fold.hpp>
#include <cxmat/math/fp.hpp>

namespace cxmat {

/// The inputs and products of an attention call, as compile-time errors name them.
namespace input {
template <projection P>
struct projection_input;  // X (X_q for the query projection, X_kv for keys and values)
template <projection P>
struct projection_weights;  // W_q, W_k, W_v or W_o
template <projection P>
struct projection_bias_row;  // query_bias, key_bias, value_bias or output_bias
struct queries;
struct keys;
struct values;
struct score_bias;  // bias(b): finite or -inf (a float mask); never NaN or +inf
struct scale;
template <projection P>
struct projection_product;  // X·W (+ bias)
struct scores;              // Q·Kᵀ scaled (+ bias)
}  // namespace input

namespace detail {

// Not constexpr, on purpose: a constant expression that reaches one of these stops, and the
// compiler names the function (the rule) and its template argument (the input). They do nothing
// at run time and are only reached in constant evaluation.
template <class Input>
inline void input_must_be_finite_in_a_constant_expression() noexcept {}
template <class Product>
inline void product_could_overflow_in_a_constant_expression() noexcept {}

template <class T>
inline constexpr bool checks_values_v = std::numeric_limits<T>::is_iec559;

// Entries [Off, Off + sizeof...(Is)) of row: whether none is NaN, with lo and hi lowered and
// raised to the entries' extremes (-inf left out of lo where AllowMinusInf). Three expressions,
// not a statement per entry, and few nodes per entry: a constant evaluator charges by the
// statement (Clang) or by the node (GCC), so these checks stay a small share of the computation
// they guard. Comparisons only: no arithmetic that could make a NaN.
template <bool AllowMinusInf, std::size_t Off, class T, std::size_t... Is>
constexpr bool range_terms([[maybe_unused]] const T* row, [[maybe_unused]] T& lo, [[maybe_unused]] T& hi,
                           std::index_sequence<Is...> /*terms*/) noexcept {
  [[maybe_unused]] constexpr T inf = std::numeric_limits<T>::infinity();
  ((hi = row[Off + Is] > hi ? row[Off + Is] : hi), ...);
  if constexpr (AllowMinusInf) {
    ((lo = row[Off + Is] < lo && row[Off + Is] != -inf ? row[Off + Is] : lo), ...);
  } else {
    ((lo = row[Off + Is] < lo ? row[Off + Is] : lo), ...);
  }
  return (true && ... && (row[Off + Is] == row[Off + Is]));
}

// Whether the C entries of row are finite (-inf allowed where AllowMinusInf), with max_abs raised
// to the largest magnitude among the finite ones. Blocks of at most fold_block terms.
template <bool AllowMinusInf, std::size_t C, class T>
constexpr bool finite_row(const T* row, T& max_abs) noexcept {
  constexpr T inf = std::numeric_limits<T>::infinity();
  constexpr std::size_t full = C / fold_block;
  bool no_nan = true;
  T lo = T(0);
  T hi = T(0);
  for (std::size_t b = 0; b < full; ++b) {
    no_nan =
        range_terms<AllowMinusInf, 0>(row + b * fold_block, lo, hi, std::make_index_sequence<fold_block>{}) && no_nan;
  }
  no_nan =
      range_terms<AllowMinusInf, full * fold_block>(row, lo, hi, std::make_index_sequence<C % fold_block>{}) && no_nan;
  if (!no_nan || hi == inf || lo == -inf) return false;
  max_abs = hi > max_abs ? hi : max_abs;
  max_abs = -lo > max_abs ? -lo : max_abs;
  return true;
}

// Whether every entry of m is finite (-inf allowed where AllowMinusInf), and the largest
// magnitude among the finite ones.
template <bool AllowMinusInf = false, class T, std::size_t R, std::size_t C>
constexpr bool all_finite(const T (&m)[R][C], T& max_abs) noexcept {
  bool ok = true;
  max_abs = T(0);
  for (std::size_t i = 0; i < R; ++i) ok = finite_row<AllowMinusInf, C>(m[i], max_abs) && ok;
  return ok;
}

// A bound of k·a·b, computed without overflowing; false when it exceeds T's largest value.
template <class T>
constexpr bool bounded_product(T a, T b, std::size_t k, T& bound) noexcept {
  constexpr T big = std::numeric_limits<T>::max();
  bound = T(0);
  if (a == T(0) || b == T(0) || k == 0) return true;
  const T tk = static_cast<T>(k);
  if (b > big / tk) return false;
  const T bk = b * tk;
  if (bk > T(1) && a > big / bk) return false;
  bound = a * bk;
  return true;
}

template <class T>
constexpr bool bounded_sum(T a, T b) noexcept {
  return b <= std::numeric_limits<T>::max() - a;
}

template <projection P, class T, class O>
constexpr bool projection_bias_finite(const O& /*option*/, T& /*max_abs*/) noexcept {
  return true;
}
template <projection P, class T, extent W>
constexpr bool projection_bias_finite(const projection_bias<P, T, W>& b, T& max_abs) noexcept {
  T m{};
  const bool ok = all_finite(b.values.elems, m);
  max_abs = m > max_abs ? m : max_abs;
  return ok;
}

/// Projection P of x (R x K) by w (K x C) plus its bias, in constant evaluation: finite inputs
/// whose product stays in range.
template <projection P, class T, std::size_t R, std::size_t K, std::size_t C, class... O>
constexpr void check_projection(const T (&x)[R][K], const T (&w)[K][C], const O&... opts) noexcept {
  if constexpr (checks_values_v<T>) {
    if (!in_constant_evaluation()) return;
    T mx{}, mw{}, mb{}, bound{};
    if (!all_finite(x, mx)) input_must_be_finite_in_a_constant_expression<input::projection_input<P>>();
    if (!all_finite(w, mw)) input_must_be_finite_in_a_constant_expression<input::projection_weights<P>>();
    if (!(true && ... && projection_bias_finite<P>(opts, mb))) {
      input_must_be_finite_in_a_constant_expression<input::projection_bias_row<P>>();
    }
    if (!bounded_product(mx, mw, K, bound) || !bounded_sum(bound, mb)) {
      product_could_overflow_in_a_constant_expression<input::projection_product<P>>();
    }
  }
}

template <class T, class O>
constexpr bool score_option_finite(const O& /*option*/, T& /*bias_max*/, T& /*scale*/) noexcept {
  return true;
}
template <class T, extent L, extent S>
constexpr bool score_option_finite(const score_bias<T, L, S>& b, T& bias_max, T& /*scale*/) noexcept {
  if (!all_finite<true>(b.values.elems, bias_max)) input_must_be_finite_in_a_constant_expression<input::score_bias>();
  return true;
}
template <class T>
constexpr bool score_option_finite(const score_scale<T>& s, T& /*bias_max*/, T& scale) noexcept {
  constexpr T inf = std::numeric_limits<T>::infinity();
  if (!(s.factor == s.factor) || s.factor == inf || s.factor == -inf) {
    input_must_be_finite_in_a_constant_expression<input::scale>();
  }
  scale = s.factor < T(0) ? -s.factor : s.factor;
  return true;
}

/// The scores of q (L x QW) against k (S x KW) over d_k columns, divided by `divisor`, with the
/// call's options, in constant evaluation: finite inputs and scores in range.
template <class T, std::size_t L, std::size_t QW, std::size_t S, std::size_t KW, class... O>
constexpr void check_scores(const T (&q)[L][QW], const T (&k)[S][KW], std::size_t dk, T divisor,
                            const O&... opts) noexcept {
  if constexpr (checks_values_v<T>) {
    if (!in_constant_evaluation()) return;
    T mq{}, mk{}, bias_max{}, dot{}, scaled{};
    T scale = T(1);
    if (!all_finite(q, mq)) input_must_be_finite_in_a_constant_expression<input::queries>();
    if (!all_finite(k, mk)) input_must_be_finite_in_a_constant_expression<input::keys>();
    (score_option_finite(opts, bias_max, scale), ...);
    if (!bounded_product(mq, mk, dk, dot) || !bounded_product(dot / divisor, scale, 1, scaled) ||
        !bounded_sum(scaled, bias_max)) {
      product_could_overflow_in_a_constant_expression<input::scores>();
    }
  }
}

/// Whether some query sees key j once the call's options are applied (a score of -inf is a
/// masked one): a masked key's value contributes nothing, whatever it holds.
template <class T, class ScoreMod>
struct key_visibility {
  const ScoreMod& score_mod;
  std::size_t queries;
  constexpr bool operator()(std::size_t j) const noexcept {
    for (std::size_t i = 0; i < queries; ++i) {
      if (score_mod(i, j, T(0)) != -std::numeric_limits<T>::infinity()) return true;
    }
    return false;
  }
};

/// The values, in constant evaluation: finite in every row some query sees (the weighted mean
/// of finite values is finite; a row no query sees is skipped, as masks mean removal).
template <class T, std::size_t S, std::size_t VW, class KeyVisible>
constexpr void check_values(const T (&v)[S][VW], const KeyVisible& visible) noexcept {
  if constexpr (checks_values_v<T>) {
    if (!in_constant_evaluation()) return;
    T max_abs{};
    for (std::size_t j = 0; j < S; ++j) {
      if (visible(j) && !finite_row<false, VW>(v[j], max_abs)) {
        input_must_be_finite_in_a_constant_expression<input::values>();
      }
    }
  }
}

}  // namespace detail
}  // namespace cxmat
