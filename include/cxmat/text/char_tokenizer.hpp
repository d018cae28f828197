// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Tokenizers of small models: one token per char of an alphabet (char_tokenizer), or one per
// byte (byte_tokenizer, 256 ids).
#pragma once

#include <cstddef>
#include <string_view>

#include <cxmat/text/fixed_string.hpp>
#include <cxmat/text/status.hpp>

namespace cxmat {

namespace detail {
// Every byte value as a char, so that a one-byte piece is a view into static storage.
inline constexpr char all_bytes[256] = {
    '\x00', '\x01', '\x02', '\x03', '\x04', '\x05', '\x06', '\x07', '\x08', '\x09', '\x0a', '\x0b', '\x0c', '\x0d',
    '\x0e', '\x0f', '\x10', '\x11', '\x12', '\x13', '\x14', '\x15', '\x16', '\x17', '\x18', '\x19', '\x1a', '\x1b',
    '\x1c', '\x1d', '\x1e', '\x1f', '\x20', '\x21', '\x22', '\x23', '\x24', '\x25', '\x26', '\x27', '\x28', '\x29',
    '\x2a', '\x2b', '\x2c', '\x2d', '\x2e', '\x2f', '\x30', '\x31', '\x32', '\x33', '\x34', '\x35', '\x36', '\x37',
    '\x38', '\x39', '\x3a', '\x3b', '\x3c', '\x3d', '\x3e', '\x3f', '\x40', '\x41', '\x42', '\x43', '\x44', '\x45',
    '\x46', '\x47', '\x48', '\x49', '\x4a', '\x4b', '\x4c', '\x4d', '\x4e', '\x4f', '\x50', '\x51', '\x52', '\x53',
    '\x54', '\x55', '\x56', '\x57', '\x58', '\x59', '\x5a', '\x5b', '\x5c', '\x5d', '\x5e', '\x5f', '\x60', '\x61',
    '\x62', '\x63', '\x64', '\x65', '\x66', '\x67', '\x68', '\x69', '\x6a', '\x6b', '\x6c', '\x6d', '\x6e', '\x6f',
    '\x70', '\x71', '\x72', '\x73', '\x74', '\x75', '\x76', '\x77', '\x78', '\x79', '\x7a', '\x7b', '\x7c', '\x7d',
    '\x7e', '\x7f', '\x80', '\x81', '\x82', '\x83', '\x84', '\x85', '\x86', '\x87', '\x88', '\x89', '\x8a', '\x8b',
    '\x8c', '\x8d', '\x8e', '\x8f', '\x90', '\x91', '\x92', '\x93', '\x94', '\x95', '\x96', '\x97', '\x98', '\x99',
    '\x9a', '\x9b', '\x9c', '\x9d', '\x9e', '\x9f', '\xa0', '\xa1', '\xa2', '\xa3', '\xa4', '\xa5', '\xa6', '\xa7',
    '\xa8', '\xa9', '\xaa', '\xab', '\xac', '\xad', '\xae', '\xaf', '\xb0', '\xb1', '\xb2', '\xb3', '\xb4', '\xb5',
    '\xb6', '\xb7', '\xb8', '\xb9', '\xba', '\xbb', '\xbc', '\xbd', '\xbe', '\xbf', '\xc0', '\xc1', '\xc2', '\xc3',
    '\xc4', '\xc5', '\xc6', '\xc7', '\xc8', '\xc9', '\xca', '\xcb', '\xcc', '\xcd', '\xce', '\xcf', '\xd0', '\xd1',
    '\xd2', '\xd3', '\xd4', '\xd5', '\xd6', '\xd7', '\xd8', '\xd9', '\xda', '\xdb', '\xdc', '\xdd', '\xde', '\xdf',
    '\xe0', '\xe1', '\xe2', '\xe3', '\xe4', '\xe5', '\xe6', '\xe7', '\xe8', '\xe9', '\xea', '\xeb', '\xec', '\xed',
    '\xee', '\xef', '\xf0', '\xf1', '\xf2', '\xf3', '\xf4', '\xf5', '\xf6', '\xf7', '\xf8', '\xf9', '\xfa', '\xfb',
    '\xfc', '\xfd', '\xfe', '\xff'};

// A char's index 0..255 (char may be signed).
constexpr std::size_t byte_of(char c) noexcept { return static_cast<unsigned char>(c); }

// A view of the one char of byte value b.
constexpr std::string_view byte_piece(std::size_t b) noexcept { return {all_bytes + b, 1}; }

inline void alphabet_has_a_repeated_char() noexcept {}
}  // namespace detail

/// One token per char: token id = index of the char in the alphabet, e.g.
/// `constexpr cxmat::char_tokenizer tok{"0123456789+= "};` (ids 0..12, vocab_size() 13).
///
/// Chars are bytes: a multi-byte UTF-8 char is several entries. A char missing from the
/// alphabet is refused (text_status::unknown_char at run time, the compile error
/// char_not_in_the_tokenizers_alphabet in a constant expression). A char given twice in the
/// alphabet is a compile error in a constant expression (alphabet_has_a_repeated_char); at run
/// time its first index is its id and valid() is false.
template <std::size_t AlphabetSize>
struct char_tokenizer {
  static_assert(AlphabetSize > 0, "char_tokenizer: the alphabet must not be empty");
  fixed_string<AlphabetSize> alphabet{};
  /// The id of each byte value, -1 where the byte is not in the alphabet.
  short id_of_byte[256] = {};
  bool repeated = false;

  /// Every piece is one char.
  static constexpr std::size_t max_piece_bytes = 1;

  constexpr char_tokenizer(const char (&chars)[AlphabetSize + 1]) noexcept  // NOLINT: from a literal
      : alphabet(chars) {
    for (short& id : id_of_byte) id = -1;
    for (std::size_t i = 0; i < alphabet.size(); ++i) {
      short& id = id_of_byte[detail::byte_of(alphabet[i])];
      if (id >= 0) {
        cxmat::detail::refuse_in_constant_evaluation<detail::alphabet_has_a_repeated_char>();
        repeated = true;
      } else {
        id = static_cast<short>(i);
      }
    }
  }

  [[nodiscard]] constexpr bool valid() const noexcept { return !repeated; }
  [[nodiscard]] constexpr std::size_t vocab_size() const noexcept { return alphabet.size(); }

  /// At most one token per byte of text.
  [[nodiscard]] static constexpr std::size_t max_tokens(std::size_t text_bytes) noexcept { return text_bytes; }

  /// Writes the ids of text to out[0 .. count).
  template <std::size_t Capacity>
  constexpr text_status encode_into(std::string_view text, int (&out)[Capacity], std::size_t& count) const noexcept {
    count = 0;
    for (const char c : text) {
      const short id = id_of_byte[detail::byte_of(c)];
      if (id < 0) return detail::refuse(text_status::unknown_char);
      if (count == Capacity) return detail::refuse(text_status::too_many_tokens);
      out[count++] = id;
    }
    return text_status::ok;
  }

  /// The text of token id (0 <= id < vocab_size()); the previous token does not matter.
  [[nodiscard]] constexpr std::string_view piece_text(int /*previous*/, int id) const noexcept {
    return {alphabet.data() + id, 1};
  }
};

template <std::size_t LiteralSize>
char_tokenizer(const char (&)[LiteralSize]) -> char_tokenizer<LiteralSize - 1>;

/// One token per byte: token id = the byte's value (0..255), vocab_size() 256, as byte-level
/// models (llama2.c's vocab_size 256 checkpoints) use. Every text is accepted.
struct byte_tokenizer {
  static constexpr std::size_t max_piece_bytes = 1;

  [[nodiscard]] constexpr std::size_t vocab_size() const noexcept { return 256; }
  [[nodiscard]] static constexpr std::size_t max_tokens(std::size_t text_bytes) noexcept { return text_bytes; }

  template <std::size_t Capacity>
  constexpr text_status encode_into(std::string_view text, int (&out)[Capacity], std::size_t& count) const noexcept {
    count = 0;
    for (const char c : text) {
      if (count == Capacity) return detail::refuse(text_status::too_many_tokens);
      out[count++] = static_cast<int>(detail::byte_of(c));
    }
    return text_status::ok;
  }

  [[nodiscard]] constexpr std::string_view piece_text(int /*previous*/, int id) const noexcept {
    return detail::byte_piece(static_cast<std::size_t>(id));
  }
};

}  // namespace cxmat
