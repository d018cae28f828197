// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Normalisation over each row of width d: layer_norm (nn.LayerNorm) and rms_norm (LLaMA's RMSNorm),
// as functions and as modules holding their weights.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/math.hpp>
#include <cxmat/transformer/rules.hpp>

namespace cxmat {

namespace detail {

template <class T, std::size_t D>
constexpr void layer_norm_row(const T (&x)[D], T (&out)[D], const T (&gamma)[D], const T (&beta)[D],
                              const T& eps) noexcept {
  T sum = T(0);
  for (std::size_t j = 0; j < D; ++j) sum += x[j];
  const T mean = sum / static_cast<T>(D);
  T squares = T(0);
  for (std::size_t j = 0; j < D; ++j) squares += (x[j] - mean) * (x[j] - mean);
  const T rstd = T(1) / sqrt(squares / static_cast<T>(D) + eps);
  for (std::size_t j = 0; j < D; ++j) out[j] = (x[j] - mean) * rstd * gamma[j] + beta[j];
}

template <class T, std::size_t D>
constexpr void rms_norm_row(const T (&x)[D], T (&out)[D], const T (&gamma)[D], const T& eps) noexcept {
  T squares = T(0);
  for (std::size_t j = 0; j < D; ++j) squares += x[j] * x[j];
  const T rstd = T(1) / sqrt(squares / static_cast<T>(D) + eps);
  for (std::size_t j = 0; j < D; ++j) out[j] = gamma[j] * (x[j] * rstd);
}

// The layer norm of each row of x written into out (the caller's matrix: a workspace's), whatever
// it held; out may be x (a row is read for its mean and variance before it is written).
template <class T, std::size_t R, std::size_t C, extent GammaCols, extent Bt>
constexpr void layer_norm_into(T (&out)[R][C], const T (&x)[R][C], const matrix<T, 1, GammaCols>& gamma,
                               const matrix<T, 1, Bt>& beta, const T& eps) noexcept {
  for (std::size_t i = 0; i < R; ++i) layer_norm_row(x[i], out[i], gamma.elems[0], beta.elems[0], eps);
}

template <class T, extent R, extent C, extent GammaCols, extent Bt>
constexpr matrix<T, R, C> layer_norm_of(const matrix<T, R, C>& x, const matrix<T, 1, GammaCols>& gamma,
                                        const matrix<T, 1, Bt>& beta, const T& eps) noexcept {
  matrix<T, R, C> out{};
  layer_norm_into(out.elems, x.elems, gamma, beta, eps);
  return out;
}

template <class T, extent R, extent C, extent GammaCols>
constexpr matrix<T, R, C> rms_norm_of(const matrix<T, R, C>& x, const matrix<T, 1, GammaCols>& gamma,
                                      const T& eps) noexcept {
  matrix<T, R, C> out{};
  for (std::size_t i = 0; i < R.size; ++i) rms_norm_row(x.elems[i], out.elems[i], gamma.elems[0], eps);
  return out;
}

}  // namespace detail

/// Layer normalisation of each row, as nn.LayerNorm(d, eps): y = (x - mean) / √(var + eps)·γ + β
/// with the mean and the biased variance (divided by d) of the row, eps inside the square root.
/// x is n x d, gamma and beta 1 x d; the result is n x d.
template <class T, extent R, extent C, extent GammaCols, extent Bt>
requires rules_hold<rules_of::layer_norm<T, C, GammaCols, Bt>>
constexpr matrix<T, R, C> layer_norm(const matrix<T, R, C>& x, const matrix<T, 1, GammaCols>& gamma,
                                     const matrix<T, 1, Bt>& beta, const std::type_identity_t<T>& eps) noexcept {
  return detail::layer_norm_of(x, gamma, beta, eps);
}
/// Shape error: gamma or beta not 1 x d for x of width d.
template <class T, extent R, extent C, extent GammaCols, extent Bt>
decltype(detail::first_failure<rules_of::layer_norm<T, C, GammaCols, Bt>>::error()) layer_norm(
    const matrix<T, R, C>& x, const matrix<T, 1, GammaCols>& gamma, const matrix<T, 1, Bt>& beta,
    const std::type_identity_t<T>& eps) noexcept;

/// Layer normalisation of every row of every item: B x n x d.
template <class T, extent B, extent R, extent C, extent GammaCols, extent Bt>
requires rules_hold<rules_of::layer_norm<T, C, GammaCols, Bt>>
constexpr batch<T, B, R, C> layer_norm(const batch<T, B, R, C>& x, const matrix<T, 1, GammaCols>& gamma,
                                       const matrix<T, 1, Bt>& beta, const std::type_identity_t<T>& eps) noexcept {
  batch<T, B, R, C> out{};
  for (std::size_t b = 0; b < B.size; ++b) out.items[b] = detail::layer_norm_of(x.items[b], gamma, beta, eps);
  return out;
}
/// Shape error of the batched layer_norm.
template <class T, extent B, extent R, extent C, extent GammaCols, extent Bt>
decltype(detail::first_failure<rules_of::layer_norm<T, C, GammaCols, Bt>>::error()) layer_norm(
    const batch<T, B, R, C>& x, const matrix<T, 1, GammaCols>& gamma, const matrix<T, 1, Bt>& beta,
    const std::type_identity_t<T>& eps) noexcept;

/// RMS normalisation of each row (LLaMA's RMSNorm): y = γ·(x / √(mean(x²) + eps)). x is n x d,
/// gamma 1 x d.
template <class T, extent R, extent C, extent GammaCols>
requires rules_hold<rules_of::rms_norm<T, C, GammaCols>>
constexpr matrix<T, R, C> rms_norm(const matrix<T, R, C>& x, const matrix<T, 1, GammaCols>& gamma,
                                   const std::type_identity_t<T>& eps) noexcept {
  return detail::rms_norm_of(x, gamma, eps);
}
/// Shape error: gamma not 1 x d for x of width d.
template <class T, extent R, extent C, extent GammaCols>
decltype(detail::first_failure<rules_of::rms_norm<T, C, GammaCols>>::error()) rms_norm(
    const matrix<T, R, C>& x, const matrix<T, 1, GammaCols>& gamma, const std::type_identity_t<T>& eps) noexcept;

/// RMS normalisation of every row of every item: B x n x d.
template <class T, extent B, extent R, extent C, extent GammaCols>
requires rules_hold<rules_of::rms_norm<T, C, GammaCols>>
constexpr batch<T, B, R, C> rms_norm(const batch<T, B, R, C>& x, const matrix<T, 1, GammaCols>& gamma,
                                     const std::type_identity_t<T>& eps) noexcept {
  batch<T, B, R, C> out{};
  for (std::size_t b = 0; b < B.size; ++b) out.items[b] = detail::rms_norm_of(x.items[b], gamma, eps);
  return out;
}
/// Shape error of the batched rms_norm.
template <class T, extent B, extent R, extent C, extent GammaCols>
decltype(detail::first_failure<rules_of::rms_norm<T, C, GammaCols>>::error()) rms_norm(
    const batch<T, B, R, C>& x, const matrix<T, 1, GammaCols>& gamma, const std::type_identity_t<T>& eps) noexcept;

/// nn.LayerNorm(D, eps) as a value: `weight` is γ, `bias` is β (PyTorch's state_dict names),
/// `norm(x)` normalises the rows of a matrix or batch of width D.
template <class T, extent D>
struct layer_norm_module {
  matrix<T, 1, D> weight;
  matrix<T, 1, D> bias;
  T eps = T(1e-5);

  template <class X>
  constexpr auto operator()(const X& x) const noexcept -> decltype(layer_norm(x, weight, bias, eps)) {
    return layer_norm(x, weight, bias, eps);
  }
};

namespace detail {
// norm(x) into out (layer_norm_into with the module's weights and eps); out may be x.
template <class T, std::size_t R, std::size_t C, extent D>
constexpr void layer_norm_into(T (&out)[R][C], const T (&x)[R][C], const layer_norm_module<T, D>& norm) noexcept {
  layer_norm_into(out, x, norm.weight, norm.bias, norm.eps);
}
}  // namespace detail

/// RMSNorm (LLaMA) as a value: `weight` is γ, `eps` defaults to 1e-6 as in LLaMA.
template <class T, extent D>
struct rms_norm_module {
  matrix<T, 1, D> weight;
  T eps = T(1e-6);

  template <class X>
  constexpr auto operator()(const X& x) const noexcept -> decltype(rms_norm(x, weight, eps)) {
    return rms_norm(x, weight, eps);
  }
};

}  // namespace cxmat
