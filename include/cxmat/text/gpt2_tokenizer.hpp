// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// GPT-2's byte-level BPE: words from a hand-written splitter in place of GPT-2's regular
// expression, bytes merged by the rank of merges.txt, from the arrays that
// scripts/gpt2_bpe_to_header.py writes out of vocab.json and merges.txt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <cxmat/text/char_tokenizer.hpp>
#include <cxmat/text/detail/pieces.hpp>
#include <cxmat/text/status.hpp>

namespace cxmat {

namespace detail {
// The char classes of the splitter. Bytes >= 0x80 count as letters: most non-ASCII text in a
// prompt is letters of other scripts, and keeping a UTF-8 char's bytes in one word keeps them
// mergeable.
enum class gpt2_class { letter, digit, space, other };

constexpr gpt2_class gpt2_class_of(char c) noexcept {
  const std::size_t b = byte_of(c);
  if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80) return gpt2_class::letter;
  if (b >= '0' && b <= '9') return gpt2_class::digit;
  if (b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r') return gpt2_class::space;
  return gpt2_class::other;
}

// The end of the word that starts at `at`: GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// with the classes above, its alternatives tried in that order.
constexpr std::size_t gpt2_word_end(std::string_view text, std::size_t at) noexcept {
  const std::size_t n = text.size();
  if (text[at] == '\'') {
    for (const std::string_view suffix : {"s", "t", "re", "ve", "m", "ll", "d"}) {
      if (text.substr(at + 1, suffix.size()) == suffix) return at + 1 + suffix.size();
    }
  }
  std::size_t start = at;
  if (text[at] == ' ' && at + 1 < n && gpt2_class_of(text[at + 1]) != gpt2_class::space) start = at + 1;
  const gpt2_class kind = gpt2_class_of(text[start]);
  std::size_t end = start + 1;
  while (end < n && gpt2_class_of(text[end]) == kind) ++end;
  if (kind != gpt2_class::space) return end;
  // Whitespace: all of it at the end of the text; before a word, all but its last char (which
  // then leads the word), unless it is a single char.
  if (end == n || end - start == 1) return end;
  return end - 1;
}

constexpr std::size_t pair_hash(std::int32_t left, std::int32_t right) noexcept {
  std::uint32_t h = static_cast<std::uint32_t>(left) * 2654435761u ^ static_cast<std::uint32_t>(right) * 2246822519u;
  h ^= h >> 15;
  return h;
}
}  // namespace detail

/// GPT-2's tokenizer: Vocab tokens (raw bytes, ByteCapacity in all) and Merges merges by rank,
/// with a hash table from a pair of ids to its rank. Made by make_gpt2_tokenizer from the arrays
/// of scripts/gpt2_bpe_to_header.py.
///
/// encode splits the text into words (gpt2_word_end: GPT-2's pre-tokenizer pattern, exact for
/// ASCII, with bytes >= 0x80 as letters), maps each word's bytes to their one-byte tokens, and
/// merges as GPT-2's encoder.py: while some adjacent pair is a merge, the one of lowest rank is
/// merged at every place it occurs, left to right. A pair listed twice has its later rank, as
/// encoder.py's dict gives it. Special tokens (<|endoftext|>) are never produced from text.
template <std::size_t Vocab, std::size_t ByteCapacity, std::size_t Merges>
struct gpt2_tokenizer {
  static_assert(Vocab >= 256 && Merges >= 1, "gpt2_tokenizer: a byte-level BPE has 256 byte tokens and merges");
  static constexpr std::size_t table_size = detail::table_size_for(Merges);

  std::uint32_t starts[Vocab + 1] = {};
  char chars[ByteCapacity] = {};
  /// The one-byte token of each byte value.
  std::int32_t byte_ids[256] = {};
  /// Merge r (rank r): left id, right id, result id.
  std::int32_t merge_ids[3 * Merges] = {};
  /// Ranks by hash of their pair, -1 where empty.
  std::int32_t slots[table_size] = {};
  tokenizer_error error = tokenizer_error::none;
  /// The index of the token, merge or byte where the arrays were refused.
  std::size_t error_entry = 0;

  [[nodiscard]] constexpr bool ok() const noexcept { return error == tokenizer_error::none; }
  [[nodiscard]] constexpr std::size_t vocab_size() const noexcept { return Vocab; }
  [[nodiscard]] constexpr std::string_view piece(std::size_t id) const noexcept {
    return {chars + starts[id], starts[id + 1] - starts[id]};
  }

  /// Takes the converter's arrays and checks them: starts non-decreasing within ByteCapacity,
  /// merge ids in range and each result the concatenation of its pair, every byte value a
  /// one-byte token. A refusal is a compile error in a constant expression naming it
  /// (gpt2_merge_is_not_the_concatenation_of_its_pieces, ...), else `error` at run time.
  constexpr tokenizer_error build(const std::uint32_t (&piece_starts)[Vocab + 1],
                                  const unsigned char (&piece_chars)[ByteCapacity],
                                  const std::int32_t (&merges)[3 * Merges]) noexcept {
    const auto fail = [&](tokenizer_error why, std::size_t index) {
      error = detail::refuse(why);
      error_entry = index;
      return error;
    };
    for (std::size_t i = 0; i < Vocab; ++i) {
      if (piece_starts[i + 1] < piece_starts[i] || piece_starts[i + 1] > ByteCapacity) {
        return fail(tokenizer_error::pieces_exceed_byte_capacity, i);
      }
    }
    for (std::size_t i = 0; i <= Vocab; ++i) starts[i] = piece_starts[i];
    for (std::size_t i = 0; i < ByteCapacity; ++i) chars[i] = static_cast<char>(piece_chars[i]);
    for (std::int32_t& id : byte_ids) id = -1;
    for (std::size_t i = Vocab; i-- > 0;) {
      if (starts[i + 1] - starts[i] == 1) byte_ids[detail::byte_of(chars[starts[i]])] = static_cast<std::int32_t>(i);
    }
    for (std::size_t b = 0; b < 256; ++b) {
      if (byte_ids[b] < 0) return fail(tokenizer_error::byte_without_a_token, b);
    }
    for (std::int32_t& slot : slots) slot = -1;
    for (std::size_t r = 0; r < Merges; ++r) {
      const std::int32_t* m = merges + 3 * r;
      for (std::size_t k = 0; k < 3; ++k) {
        if (m[k] < 0 || static_cast<std::size_t>(m[k]) >= Vocab) return fail(tokenizer_error::bad_merge, r);
        merge_ids[3 * r + k] = m[k];
      }
      const std::string_view left = piece(static_cast<std::size_t>(m[0]));
      const std::string_view right = piece(static_cast<std::size_t>(m[1]));
      const std::string_view result = piece(static_cast<std::size_t>(m[2]));
      if (result.size() != left.size() + right.size() || result.substr(0, left.size()) != left ||
          result.substr(left.size()) != right) {
        return fail(tokenizer_error::bad_merge, r);
      }
      std::size_t s = detail::pair_hash(m[0], m[1]) & (table_size - 1);
      while (slots[s] >= 0 && !same_pair(static_cast<std::size_t>(slots[s]), m[0], m[1]))
        s = (s + 1) & (table_size - 1);
      slots[s] = static_cast<std::int32_t>(r);  // a pair listed again takes its later rank
    }
    error = tokenizer_error::none;
    error_entry = 0;
    return error;
  }

  [[nodiscard]] constexpr bool same_pair(std::size_t rank, std::int32_t left, std::int32_t right) const noexcept {
    return merge_ids[3 * rank] == left && merge_ids[3 * rank + 1] == right;
  }

  /// The rank of the merge of left and right, or -1.
  [[nodiscard]] constexpr std::int32_t rank_of(std::int32_t left, std::int32_t right) const noexcept {
    for (std::size_t s = detail::pair_hash(left, right) & (table_size - 1);; s = (s + 1) & (table_size - 1)) {
      const std::int32_t rank = slots[s];
      if (rank < 0 || same_pair(static_cast<std::size_t>(rank), left, right)) return rank;
    }
  }

  /// At most one token per byte.
  [[nodiscard]] static constexpr std::size_t max_tokens(std::size_t text_bytes) noexcept { return text_bytes; }

  /// Encodes text (see the class comment). Out must hold each word's bytes before merging.
  template <std::size_t Capacity>
  constexpr text_status encode_into(std::string_view text, int (&out)[Capacity], std::size_t& count) const noexcept {
    count = 0;
    if (!ok()) return detail::refuse(text_status::invalid_tokenizer);
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = detail::gpt2_word_end(text, at);
      if (end - at > Capacity - count) return detail::refuse(text_status::too_many_tokens);
      int* word = out + count;
      std::size_t n = 0;
      for (std::size_t i = at; i < end; ++i) word[n++] = byte_ids[detail::byte_of(text[i])];
      while (n > 1) {
        std::int32_t best = -1;
        for (std::size_t i = 0; i + 1 < n; ++i) {
          const std::int32_t rank = rank_of(word[i], word[i + 1]);
          if (rank >= 0 && (best < 0 || rank < best)) best = rank;
        }
        if (best < 0) break;
        const std::int32_t* m = merge_ids + 3 * static_cast<std::size_t>(best);
        std::size_t kept = 0;
        for (std::size_t i = 0; i < n; ++kept) {
          if (i + 1 < n && word[i] == m[0] && word[i + 1] == m[1]) {
            word[kept] = m[2];
            i += 2;
          } else {
            word[kept] = word[i];
            i += 1;
          }
        }
        n = kept;
      }
      count += n;
      at = end;
    }
    return text_status::ok;
  }

  /// The bytes of token id; the previous token does not matter.
  [[nodiscard]] constexpr std::string_view piece_text(int /*previous*/, int id) const noexcept {
    return piece(static_cast<std::size_t>(id));
  }
};

/// A gpt2_tokenizer from scripts/gpt2_bpe_to_header.py's arrays:
/// `constexpr auto tok = cxmat::make_gpt2_tokenizer(NAME_starts, NAME_chars, NAME_merge_ids);`.
template <std::size_t StartCount, std::size_t ByteCapacity, std::size_t MergeInts>
constexpr gpt2_tokenizer<StartCount - 1, ByteCapacity, MergeInts / 3> make_gpt2_tokenizer(
    const std::uint32_t (&starts)[StartCount], const unsigned char (&chars)[ByteCapacity],
    const std::int32_t (&merge_ids)[MergeInts]) noexcept {
  static_assert(MergeInts % 3 == 0, "make_gpt2_tokenizer: merge_ids holds (left, right, result) triples");
  gpt2_tokenizer<StartCount - 1, ByteCapacity, MergeInts / 3> tok{};
  tok.build(starts, chars, merge_ids);
  return tok;
}

}  // namespace cxmat
