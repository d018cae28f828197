// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// What the file-based tokenizers share: reading little-endian fields from bytes, and the
// hash (FNV-1a) of their lookup tables. A table of open addressing is built in one pass over the
// vocabulary, where sorting it would cost the constant evaluator V log V string comparisons.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace cxmat::detail {

// The smallest power of two >= 2 * n: a table at most half full keeps probe runs short.
constexpr std::size_t table_size_for(std::size_t n) noexcept {
  std::size_t size = 2;
  while (size < 2 * n) size *= 2;
  return size;
}

inline constexpr std::uint32_t fnv_offset = 2166136261u;

constexpr std::uint32_t fnv_add(std::uint32_t hash, unsigned char byte) noexcept { return (hash ^ byte) * 16777619u; }

constexpr std::uint32_t fnv_add(std::uint32_t hash, const char* chars, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) hash = fnv_add(hash, static_cast<unsigned char>(chars[i]));
  return hash;
}

// Little-endian fields, as llama2.c writes them on every common machine.
constexpr std::uint32_t read_u32(const unsigned char* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
constexpr std::int32_t read_i32(const unsigned char* p) noexcept { return std::bit_cast<std::int32_t>(read_u32(p)); }
constexpr float read_f32(const unsigned char* p) noexcept { return std::bit_cast<float>(read_u32(p)); }
constexpr bool is_nan_bits(std::uint32_t bits) noexcept {
  return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0;
}

// Whether two byte ranges hold the same chars.
constexpr bool same_chars(const char* a, const char* b, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace cxmat::detail
