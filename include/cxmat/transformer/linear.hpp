// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Linear maps and the feed-forward networks of a transformer layer: linear(x, w, b),
// feed_forward<activation>(x, w1, b1, w2, b2) (d_model -> d_ff -> d_model) and swiglu (LLaMA),
// on matrices and batches, and linear_module, nn.Linear as a value.
#pragma once

#include <cstddef>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/rules.hpp>

namespace cxmat {

namespace detail {

// x·w + b into out: linear's arithmetic.
template <class T, extent R, extent K, extent K2, extent C, extent BC>
constexpr void linear_into(matrix<T, R, C>& out, const matrix<T, R, K>& x, const matrix<T, K2, C>& w,
                           const matrix<T, 1, BC>& b) noexcept {
  matmul_into(out, x, w);
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] += b.elems[0][j];
  }
}

template <class T, extent R, extent K, extent K2, extent C, extent BC>
constexpr matrix<T, R, C> linear_of(const matrix<T, R, K>& x, const matrix<T, K2, C>& w,
                                    const matrix<T, 1, BC>& b) noexcept {
  matrix<T, R, C> out;
  linear_into(out, x, w, b);
  return out;
}

// linear(Act(linear(x, w1, b1)), w2, b2) into out, with the hidden layer in hidden (both the
// caller's: a workspace's), whatever they held. out may be x: x is read by the first product only.
template <activation Act, class T, extent R, extent D, extent D1, extent F, extent FB, extent F2, extent C, extent CB>
constexpr void feed_forward_into(matrix<T, R, C>& out, matrix<T, R, F>& hidden, const matrix<T, R, D>& x,
                                 const matrix<T, D1, F>& w1, const matrix<T, 1, FB>& b1, const matrix<T, F2, C>& w2,
                                 const matrix<T, 1, CB>& b2) noexcept {
  linear_into(hidden, x, w1, b1);
  activate_in_place<Act>(hidden);
  linear_into(out, hidden, w2, b2);
}

template <activation Act, class T, extent R, extent D, extent D1, extent F, extent FB, extent F2, extent C, extent CB>
constexpr matrix<T, R, C> feed_forward_of(const matrix<T, R, D>& x, const matrix<T, D1, F>& w1,
                                          const matrix<T, 1, FB>& b1, const matrix<T, F2, C>& w2,
                                          const matrix<T, 1, CB>& b2) noexcept {
  matrix<T, R, F> hidden;
  matrix<T, R, C> out;
  feed_forward_into<Act>(out, hidden, x, w1, b1, w2, b2);
  return out;
}

// SwiGLU's gate in place: hidden = silu(hidden) ⊙ up (the products x·w_gate and x·w_up made by
// the caller, with float or int8 weights).
template <class T, extent R, extent F, extent FU>
constexpr void swiglu_gate(matrix<T, R, F>& hidden, const matrix<T, R, FU>& up) noexcept {
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < F.size; ++j) hidden.elems[i][j] = silu_of(hidden.elems[i][j]) * up.elems[i][j];
  }
}

template <class T, extent R, extent D, extent DG, extent F, extent DU, extent FU, extent F2, extent C>
constexpr matrix<T, R, C> swiglu_of(const matrix<T, R, D>& x, const matrix<T, DG, F>& w_gate,
                                    const matrix<T, DU, FU>& w_up, const matrix<T, F2, C>& w_down) noexcept {
  matrix<T, R, F> hidden = matmul(x, w_gate);
  swiglu_gate(hidden, matmul(x, w_up));
  return matmul(hidden, w_down);
}

}  // namespace detail

/// x·w + b, as nn.Linear: x is n x d_in, w is d_in x d_out (the transpose of PyTorch's weight),
/// b is 1 x d_out, added to every row. The result is n x d_out.
template <class T, extent R, extent K, extent K2, extent C, extent BC>
requires rules_hold<rules_of::linear<T, K, K2, C, BC>>
constexpr matrix<T, R, C> linear(const matrix<T, R, K>& x, const matrix<T, K2, C>& w,
                                 const matrix<T, 1, BC>& b) noexcept {
  return detail::linear_of(x, w, b);
}
/// Shape error of linear(x, w, b): x's width is not w's rows, or b not 1 x d_out.
template <class T, extent R, extent K, extent K2, extent C, extent BC>
decltype(detail::first_failure<rules_of::linear<T, K, K2, C, BC>>::error()) linear(const matrix<T, R, K>& x,
                                                                                   const matrix<T, K2, C>& w,
                                                                                   const matrix<T, 1, BC>& b) noexcept;

/// linear(x, w, b) of every item: B x n x d_in -> B x n x d_out.
template <class T, extent B, extent R, extent K, extent K2, extent C, extent BC>
requires rules_hold<rules_of::linear<T, K, K2, C, BC>>
constexpr batch<T, B, R, C> linear(const batch<T, B, R, K>& x, const matrix<T, K2, C>& w,
                                   const matrix<T, 1, BC>& b) noexcept {
  batch<T, B, R, C> out{};
  for (std::size_t i = 0; i < B.size; ++i) out.items[i] = detail::linear_of(x.items[i], w, b);
  return out;
}
/// Shape error of the batched linear.
template <class T, extent B, extent R, extent K, extent K2, extent C, extent BC>
decltype(detail::first_failure<rules_of::linear<T, K, K2, C, BC>>::error()) linear(const batch<T, B, R, K>& x,
                                                                                   const matrix<T, K2, C>& w,
                                                                                   const matrix<T, 1, BC>& b) noexcept;

/// The position-wise feed-forward network of a transformer layer, d_model -> d_ff -> d_model:
/// linear(act(linear(x, w1, b1)), w2, b2) with act one of activation::relu, gelu, gelu_tanh,
/// silu. x is n x d_model, w1 d_model x d_ff, b1 1 x d_ff, w2 d_ff x d_out, b2 1 x d_out.
template <activation Act, class T, extent R, extent D, extent D1, extent F, extent FB, extent F2, extent C, extent CB>
requires rules_hold<rules_of::feed_forward<T, D, D1, F, FB, F2, C, CB>>
constexpr matrix<T, R, C> feed_forward(const matrix<T, R, D>& x, const matrix<T, D1, F>& w1, const matrix<T, 1, FB>& b1,
                                       const matrix<T, F2, C>& w2, const matrix<T, 1, CB>& b2) noexcept {
  return detail::feed_forward_of<Act>(x, w1, b1, w2, b2);
}
/// Shape error of feed_forward<Act>(x, w1, b1, w2, b2).
template <activation Act, class T, extent R, extent D, extent D1, extent F, extent FB, extent F2, extent C, extent CB>
decltype(detail::first_failure<rules_of::feed_forward<T, D, D1, F, FB, F2, C, CB>>::error()) feed_forward(
    const matrix<T, R, D>& x, const matrix<T, D1, F>& w1, const matrix<T, 1, FB>& b1, const matrix<T, F2, C>& w2,
    const matrix<T, 1, CB>& b2) noexcept;

/// The feed-forward network of every item of a batch.
template <activation Act, class T, extent B, extent R, extent D, extent D1, extent F, extent FB, extent F2, extent C,
          extent CB>
requires rules_hold<rules_of::feed_forward<T, D, D1, F, FB, F2, C, CB>>
constexpr batch<T, B, R, C> feed_forward(const batch<T, B, R, D>& x, const matrix<T, D1, F>& w1,
                                         const matrix<T, 1, FB>& b1, const matrix<T, F2, C>& w2,
                                         const matrix<T, 1, CB>& b2) noexcept {
  batch<T, B, R, C> out{};
  for (std::size_t i = 0; i < B.size; ++i) out.items[i] = detail::feed_forward_of<Act>(x.items[i], w1, b1, w2, b2);
  return out;
}
/// Shape error of the batched feed_forward.
template <activation Act, class T, extent B, extent R, extent D, extent D1, extent F, extent FB, extent F2, extent C,
          extent CB>
decltype(detail::first_failure<rules_of::feed_forward<T, D, D1, F, FB, F2, C, CB>>::error()) feed_forward(
    const batch<T, B, R, D>& x, const matrix<T, D1, F>& w1, const matrix<T, 1, FB>& b1, const matrix<T, F2, C>& w2,
    const matrix<T, 1, CB>& b2) noexcept;

/// SwiGLU feed-forward (LLaMA's MLP, no biases): (silu(x·w_gate) ⊙ (x·w_up))·w_down. x is
/// n x d_model, w_gate and w_up d_model x d_ff, w_down d_ff x d_out; the result is n x d_out.
template <class T, extent R, extent D, extent DG, extent F, extent DU, extent FU, extent F2, extent C>
requires rules_hold<rules_of::swiglu<T, D, DG, F, DU, FU, F2>>
constexpr matrix<T, R, C> swiglu(const matrix<T, R, D>& x, const matrix<T, DG, F>& w_gate,
                                 const matrix<T, DU, FU>& w_up, const matrix<T, F2, C>& w_down) noexcept {
  return detail::swiglu_of(x, w_gate, w_up, w_down);
}
/// Shape error of swiglu(x, w_gate, w_up, w_down).
template <class T, extent R, extent D, extent DG, extent F, extent DU, extent FU, extent F2, extent C>
decltype(detail::first_failure<rules_of::swiglu<T, D, DG, F, DU, FU, F2>>::error()) swiglu(
    const matrix<T, R, D>& x, const matrix<T, DG, F>& w_gate, const matrix<T, DU, FU>& w_up,
    const matrix<T, F2, C>& w_down) noexcept;

/// SwiGLU of every item of a batch: B x n x d_model -> B x n x d_out.
template <class T, extent B, extent R, extent D, extent DG, extent F, extent DU, extent FU, extent F2, extent C>
requires rules_hold<rules_of::swiglu<T, D, DG, F, DU, FU, F2>>
constexpr batch<T, B, R, C> swiglu(const batch<T, B, R, D>& x, const matrix<T, DG, F>& w_gate,
                                   const matrix<T, DU, FU>& w_up, const matrix<T, F2, C>& w_down) noexcept {
  batch<T, B, R, C> out{};
  for (std::size_t i = 0; i < B.size; ++i) out.items[i] = detail::swiglu_of(x.items[i], w_gate, w_up, w_down);
  return out;
}
/// Shape error of the batched swiglu.
template <class T, extent B, extent R, extent D, extent DG, extent F, extent DU, extent FU, extent F2, extent C>
decltype(detail::first_failure<rules_of::swiglu<T, D, DG, F, DU, FU, F2>>::error()) swiglu(
    const batch<T, B, R, D>& x, const matrix<T, DG, F>& w_gate, const matrix<T, DU, FU>& w_up,
    const matrix<T, F2, C>& w_down) noexcept;

/// nn.Linear(In, Out) as a value: `weight` is In x Out (PyTorch's weight transposed), `bias`
/// 1 x Out; `lin(x)` is linear(x, weight, bias) for a matrix or batch.
template <class T, extent In, extent Out>
struct linear_module {
  matrix<T, In, Out> weight;
  matrix<T, 1, Out> bias;

  template <class X>
  constexpr auto operator()(const X& x) const noexcept -> decltype(linear(x, weight, bias)) {
    return linear(x, weight, bias);
  }
};

}  // namespace cxmat
