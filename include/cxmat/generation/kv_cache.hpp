// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The cache of keys and values of a decoder-only model: per layer, the keys and values of every
// position seen so far, with its capacity (the longest sequence it can hold) in its type.
#pragma once

#include <cstddef>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>

namespace cxmat {

/// The keys and values of `Layers` layers for up to `Capacity` positions, each row `Width` wide
/// (the key/value heads side by side: H_kv · d_head). `filled` rows of each matrix hold the
/// positions 0 .. filled-1; the rest are unused (a model's step reads only the filled rows, so
/// their contents never matter). A literal value: a cache can be a `constexpr` variable, which
/// is how a generation is continued from one constant expression to the next.
template <class T, std::size_t Layers, extent Capacity, extent Width>
struct kv_cache {
  static constexpr std::size_t layers = Layers;
  static constexpr std::size_t capacity = Capacity.size;
  static constexpr auto capacity_extent = Capacity;
  static constexpr auto width_extent = Width;

  matrix<T, Capacity, Width> keys[Layers];
  matrix<T, Capacity, Width> values[Layers];
  /// How many positions the cache holds.
  std::size_t filled = 0;

  /// Room for n more positions.
  [[nodiscard]] constexpr bool fits(std::size_t n) const noexcept { return n <= capacity - filled; }
};

namespace detail {
// Writes the rows of k and v (positions first .. first + R - 1) into a layer's cache.
template <class T, extent Cap, extent W, extent R, extent W2>
constexpr void store_rows(matrix<T, Cap, W>& keys, matrix<T, Cap, W>& values, const matrix<T, R, W2>& k,
                          const matrix<T, R, W2>& v, std::size_t first) noexcept {
  for (std::size_t r = 0; r < R.size; ++r) {
    for (std::size_t c = 0; c < W.size; ++c) {
      keys.elems[first + r][c] = k.elems[r][c];
      values.elems[first + r][c] = v.elems[r][c];
    }
  }
}
}  // namespace detail

}  // namespace cxmat
