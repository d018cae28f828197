// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Element-wise activations of a transformer's feed-forward network, on a matrix or a batch:
// relu, gelu (exact, with erf, PyTorch's default), gelu_tanh (PyTorch's approximate="tanh"),
// silu (swish) and sigmoid. Computed with cxmat's constexpr math (no libm), so the same bits at
// compile time and at run time.
#pragma once

#include <cstddef>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/math.hpp>
#include <cxmat/transformer/rules.hpp>

namespace cxmat {

/// The activation of a feed-forward network (PyTorch's `activation=` of the transformer layers,
/// and the two forms of F.gelu).
enum class activation { relu, gelu, gelu_tanh, silu };

namespace detail {

// max(x, 0); NaN stays NaN (as torch.relu), -0 stays -0.
template <class T>
constexpr T relu_of(const T& x) noexcept {
  return x < T(0) ? T(0) : x;
}

// 1 / (1 + e^-x): 0 for large negative x (e^-x overflows to +inf), 1 for large positive x.
template <class T>
constexpr T sigmoid_of(const T& x) noexcept {
  return T(1) / (T(1) + exp(-x));
}

// x·sigmoid(x), written x / (1 + e^-x) as torch's silu kernel.
template <class T>
constexpr T silu_of(const T& x) noexcept {
  return x / (T(1) + exp(-x));
}

// 0.5·x·(1 + tanh(u)) with u = √(2/π)·(x + 0.044715·x³), written x / (1 + e^(-2u)) (the same
// function: 1 + tanh(u) = 2 / (1 + e^(-2u))), which needs only exp and has no cancellation for
// negative x, where 1 + tanh(u) loses digits.
template <class T>
constexpr T gelu_tanh_of(const T& x) noexcept {
  constexpr T sqrt_2_over_pi = T(0.79788456080286535587989211986876373L);
  const T u = sqrt_2_over_pi * (x + T(0.044715) * x * x * x);
  return x / (T(1) + exp(T(-2) * u));
}

// 0.5·x·(1 + erf(x / √2)), as torch's exact gelu (the same expression).
template <class T>
constexpr T gelu_of(const T& x) noexcept {
  constexpr T one_over_sqrt2 = T(0.70710678118654752440084436210484904L);
  return x * T(0.5) * (T(1) + erf(x * one_over_sqrt2));
}

template <class T, extent R, extent C, class F>
constexpr matrix<T, R, C> map_elements(const matrix<T, R, C>& m, const F& f) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) {
    for (std::size_t j = 0; j < C.size; ++j) out.elems[i][j] = f(m.elems[i][j]);
  }
  return out;
}

template <class T, extent B, extent R, extent C, class F>
constexpr batch<T, B, R, C> map_elements(const batch<T, B, R, C>& x, const F& f) noexcept {
  batch<T, B, R, C> out{};
  for (std::size_t b = 0; b < B.size; ++b) out.items[b] = map_elements(x.items[b], f);
  return out;
}

struct relu_fn {
  template <class T>
  constexpr T operator()(const T& x) const noexcept {
    return relu_of(x);
  }
};
struct sigmoid_fn {
  template <class T>
  constexpr T operator()(const T& x) const noexcept {
    return sigmoid_of(x);
  }
};
struct silu_fn {
  template <class T>
  constexpr T operator()(const T& x) const noexcept {
    return silu_of(x);
  }
};
struct gelu_fn {
  template <class T>
  constexpr T operator()(const T& x) const noexcept {
    return gelu_of(x);
  }
};
struct gelu_tanh_fn {
  template <class T>
  constexpr T operator()(const T& x) const noexcept {
    return gelu_tanh_of(x);
  }
};

template <class M>
inline constexpr bool matrix_or_batch_v = is_matrix_v<std::remove_cvref_t<M>> || is_batch_v<std::remove_cvref_t<M>>;

}  // namespace detail

/// A matrix or a batch (what the element-wise activations and the norms take).
template <class M>
concept MatrixOrBatch = detail::matrix_or_batch_v<M>;

/// max(x, 0) of every element (NaN stays NaN). Same shape.
template <MatrixOrBatch M>
requires rules_hold<rules_of::activation<detail::element_of<M>>>
constexpr M relu(const M& m) noexcept { return detail::map_elements(m, detail::relu_fn{}); }
/// Element-type error: relu of an integer or bool matrix.
template <MatrixOrBatch M>
decltype(detail::first_failure<rules_of::activation<detail::element_of<M>>>::error()) relu(const M& m) noexcept;

/// 1 / (1 + e^-x) of every element. Same shape.
template <MatrixOrBatch M>
requires rules_hold<rules_of::activation<detail::element_of<M>>>
constexpr M sigmoid(const M& m) noexcept { return detail::map_elements(m, detail::sigmoid_fn{}); }
/// Element-type error: sigmoid of an integer or bool matrix.
template <MatrixOrBatch M>
decltype(detail::first_failure<rules_of::activation<detail::element_of<M>>>::error()) sigmoid(const M& m) noexcept;

/// SiLU (swish) x·sigmoid(x) of every element, as F.silu. Same shape.
template <MatrixOrBatch M>
requires rules_hold<rules_of::activation<detail::element_of<M>>>
constexpr M silu(const M& m) noexcept { return detail::map_elements(m, detail::silu_fn{}); }
/// Element-type error: silu of an integer or bool matrix.
template <MatrixOrBatch M>
decltype(detail::first_failure<rules_of::activation<detail::element_of<M>>>::error()) silu(const M& m) noexcept;

/// GELU, exact: 0.5·x·(1 + erf(x / √2)), as F.gelu(x) (PyTorch's default, and the activation
/// "gelu" of its transformer layers). Same shape.
template <MatrixOrBatch M>
requires rules_hold<rules_of::activation<detail::element_of<M>>>
constexpr M gelu(const M& m) noexcept { return detail::map_elements(m, detail::gelu_fn{}); }
/// Element-type error: gelu of an integer or bool matrix.
template <MatrixOrBatch M>
decltype(detail::first_failure<rules_of::activation<detail::element_of<M>>>::error()) gelu(const M& m) noexcept;

/// GELU in its tanh form, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), as
/// F.gelu(x, approximate="tanh"), computed as x / (1 + e^(-2u)) (equal, without cancellation).
template <MatrixOrBatch M>
requires rules_hold<rules_of::activation<detail::element_of<M>>>
constexpr M gelu_tanh(const M& m) noexcept { return detail::map_elements(m, detail::gelu_tanh_fn{}); }
/// Element-type error: gelu_tanh of an integer or bool matrix.
template <MatrixOrBatch M>
decltype(detail::first_failure<rules_of::activation<detail::element_of<M>>>::error()) gelu_tanh(const M& m) noexcept;

namespace detail {
// The element function of activation Act (the feed-forward network's choice).
template <activation Act>
constexpr auto activation_fn() noexcept {
  if constexpr (Act == activation::relu) {
    return relu_fn{};
  } else if constexpr (Act == activation::silu) {
    return silu_fn{};
  } else if constexpr (Act == activation::gelu_tanh) {
    return gelu_tanh_fn{};
  } else {
    return gelu_fn{};
  }
}

// The activation Act of every element.
template <activation Act, class M>
constexpr M activate(const M& m) noexcept {
  return map_elements(m, activation_fn<Act>());
}

// The activation Act of every element of m, in place (m is the caller's: a workspace's).
template <activation Act, class T, extent R, extent C>
constexpr void activate_in_place(matrix<T, R, C>& m) noexcept {
  constexpr auto f = activation_fn<Act>();
  for (auto& m_row : m.elems) {
    for (auto& m_element : m_row) m_element = f(m_element);
  }
}
}  // namespace detail

}  // namespace cxmat
