// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The tiny tokenizer.bin (tiny_llama.hpp) with one field broken, for the refusal tests, made from
// its bytes at compile time. A tokenizer.bin is little-endian: the int32 max_token_length, then
// for each piece a float32 score, an int32 length and the piece's bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "test_support/text/tiny_llama.hpp"

namespace text_reference {

template <std::size_t N>
struct tokenizer_file {
  unsigned char bytes[N]{};
};

namespace broken {
inline constexpr std::size_t size = sizeof(tiny_llama_bin);

constexpr std::uint32_t read_u32(std::size_t at) noexcept {
  std::uint32_t v = 0;
  for (std::size_t b = 0; b < 4; ++b) v |= static_cast<std::uint32_t>(tiny_llama_bin[at + b]) << (8 * b);
  return v;
}

// The offset of piece i's score (its length follows at + 4, its bytes at + 8).
constexpr std::size_t piece_offset(std::size_t piece) noexcept {
  std::size_t at = 4;
  for (std::size_t i = 0; i < piece; ++i) at += 8 + read_u32(at + 4);
  return at;
}

// The first N bytes of the good file with the 32-bit word at `at` replaced by `value`.
template <std::size_t N = size>
constexpr tokenizer_file<N> with_word(std::size_t at, std::uint32_t value) noexcept {
  tokenizer_file<N> f{};
  for (std::size_t i = 0; i < N; ++i) f.bytes[i] = tiny_llama_bin[i];
  for (std::size_t b = 0; b < 4 && at + b < N; ++b) f.bytes[at + b] = static_cast<unsigned char>(value >> (8 * b));
  return f;
}

inline constexpr auto too_long = with_word(0, 3);                                     // max_token_length 3
inline constexpr auto nan_score = with_word(piece_offset(300), 0x7FC00001U);          // piece 300's score a NaN
inline constexpr auto truncated = with_word<size - 2>(0, read_u32(0));                // the last 2 bytes cut
inline constexpr auto negative_length = with_word(piece_offset(5) + 4, 0xFFFFFFFFU);  // piece 5's length -1
}  // namespace broken

inline constexpr const auto& too_long_bin = broken::too_long.bytes;
inline constexpr const auto& nan_score_bin = broken::nan_score.bytes;
inline constexpr const auto& truncated_bin = broken::truncated.bytes;
inline constexpr const auto& negative_length_bin = broken::negative_length.bytes;

}  // namespace text_reference
