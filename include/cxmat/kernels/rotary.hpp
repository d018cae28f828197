// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Position angles and the rotary rotation over raw arrays: the frequencies of sinusoidal
// positions (Vaswani et al.) and of rotary position embedding (RoPE, Su et al.), and the rotation
// of each head's pairs of columns by the angle of its row's position. One code path for constant
// evaluation and run time: a loop of a few multiplications per pair, and one sin and one cos per
// row and frequency (shared by every head).
#pragma once

#include <cstddef>

#include <cxmat/math.hpp>

namespace cxmat::detail {

/// The inverse frequency of pair i of a width-d embedding: base^(-2i/d) = e^(-(2i/d)·ln base),
/// computed in T from T's exp and log. Position p has angle p · inverse_frequency(i).
template <class T>
constexpr T inverse_frequency(std::size_t i, std::size_t d, T log_base) noexcept {
  return cxmat::exp(-(static_cast<T>(2 * i) / static_cast<T>(d)) * log_base);
}

/// Which columns form a rotary pair in a head of width d_k: columns (i, i + d_k/2), the
/// rotate-half layout of GPT-NeoX and of LLaMA in Hugging Face; or columns (2i, 2i + 1), the
/// interleaved layout of GPT-J and RoFormer. Pair i turns by its angle with frequency i.
enum class rotary_pairs { rotate_half, interleaved };

/// The angles of rotary position embedding for R consecutive positions from first_position, for
/// a rotated width of 2 · Half columns: cos and sin of θ(r, i) = (first_position + r) ·
/// base^(-2i/(2 · Half)), i < Half. Computed once per position, they serve every head of the
/// queries and of the keys, and every layer of a model.
template <class T, std::size_t R, std::size_t Half>
struct rotary_angles {
  T cos[R][Half];
  T sin[R][Half];
};

/// The angles for rows first_position .. first_position + R - 1 and pairs i < Half of a rotated
/// width 2 · Half: one exp per frequency, one sin and one cos per row and frequency.
template <class T, std::size_t R, std::size_t Half>
constexpr rotary_angles<T, R, Half> make_rotary_angles(long long first_position, T base) noexcept {
  rotary_angles<T, R, Half> out{};
  const T log_base = cxmat::log(base);
  for (std::size_t i = 0; i < Half; ++i) {
    const T frequency = inverse_frequency<T>(i, 2 * Half, log_base);
    for (std::size_t r = 0; r < R; ++r) {
      const T angle = static_cast<T>(first_position + static_cast<long long>(r)) * frequency;
      out.cos[r][i] = cxmat::cos(angle);
      out.sin[r][i] = cxmat::sin(angle);
    }
  }
  return out;
}

/// Rotates, in every row r of m (R x C, made of `heads` heads of width d_k = C / heads), the
/// first 2 · Half columns of each head pair by pair by the angles of row r:
/// (x, y) -> (x cos θ - y sin θ, y cos θ + x sin θ). The other columns stay.
template <rotary_pairs Pairs, class T, std::size_t R, std::size_t C, std::size_t Half>
constexpr void rotate_rows_by(T (&m)[R][C], std::size_t heads, const rotary_angles<T, R, Half>& angles) noexcept {
  const std::size_t dk = C / heads;
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t i = 0; i < Half; ++i) {
      const T c = angles.cos[r][i];
      const T s = angles.sin[r][i];
      for (std::size_t h = 0; h < heads; ++h) {
        const std::size_t a = h * dk + (Pairs == rotary_pairs::rotate_half ? i : 2 * i);
        const std::size_t b = Pairs == rotary_pairs::rotate_half ? a + Half : a + 1;
        const T x = m[r][a];
        const T y = m[r][b];
        m[r][a] = x * c - y * s;
        m[r][b] = y * c + x * s;
      }
    }
  }
}

/// Rotates, in every row r of m (R x C, made of `heads` heads of width d_k = C / heads), the
/// first `Rotated` columns of each head (an even number, at most d_k), pair by pair, by the angle
/// θ = (first_position + r) · base^(-2i/Rotated): (x, y) -> (x cos θ - y sin θ, y cos θ + x sin θ).
/// The other columns stay. first_position may be negative.
template <rotary_pairs Pairs, std::size_t Rotated, class T, std::size_t R, std::size_t C>
constexpr void rotate_rows(T (&m)[R][C], std::size_t heads, long long first_position, T base) noexcept {
  rotate_rows_by<Pairs>(m, heads, make_rotary_angles<T, R, Rotated / 2>(first_position, base));
}

/// Sinusoidal positions (Vaswani et al., section 3.5) of positions first_position, ... in the R
/// rows of out (R x D): out[p][2i] = sin(p · base^(-2i/D)), out[p][2i+1] = cos(p · base^(-2i/D)).
/// An odd D ends with a sine column.
template <class T, std::size_t R, std::size_t D>
constexpr void sinusoidal_rows(T (&out)[R][D], long long first_position, T base) noexcept {
  const T log_base = cxmat::log(base);
  for (std::size_t i = 0; 2 * i < D; ++i) {
    const T frequency = inverse_frequency<T>(i, D, log_base);
    for (std::size_t r = 0; r < R; ++r) {
      const T angle = static_cast<T>(first_position + static_cast<long long>(r)) * frequency;
      out[r][2 * i] = cxmat::sin(angle);
      if (2 * i + 1 < D) out[r][2 * i + 1] = cxmat::cos(angle);
    }
  }
}

}  // namespace cxmat::detail
