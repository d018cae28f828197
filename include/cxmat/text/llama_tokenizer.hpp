// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// llama2.c's tokenizer.bin read from bytes (a generated header, or C23 #embed), encoded and
// decoded as llama2.c's run.c does: sentencepiece-style BPE by scores with byte fallback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <cxmat/text/char_tokenizer.hpp>
#include <cxmat/text/detail/pieces.hpp>
#include <cxmat/text/status.hpp>

namespace cxmat {

namespace detail {
// The byte of a piece "<0xNN>" (two hex digits, either case), or -1.
constexpr int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr int byte_piece_value(std::string_view piece) noexcept {
  if (piece.size() != 6 || piece[0] != '<' || piece[1] != '0' || piece[2] != 'x' || piece[5] != '>') return -1;
  const int high = hex_digit(piece[3]);
  const int low = hex_digit(piece[4]);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}
}  // namespace detail

/// What llama encode adds around the text: llama2.c's run.c encodes a prompt with bos and
/// without eos.
struct llama_options {
  bool bos = true;
  bool eos = false;
};

/// llama2.c's tokenizer: Vocab pieces (the vocabulary size comes from the model, not the file),
/// their scores and max_token_length, with the pieces' bytes in ByteCapacity chars, and a hash
/// table from piece to id. Read it with read_llama_tokenizer. A value: a constexpr tokenizer is
/// read once, in its own constant expression, and encodes in others.
///
/// Ids 1 and 2 are BOS and EOS, ids 3 .. 258 the byte pieces <0x00> .. <0xFF>, as llama2.c
/// assumes. Where a piece occurs twice, the lower id is the one looked up.
template <std::size_t Vocab, std::size_t ByteCapacity>
struct llama_tokenizer {
  static_assert(Vocab >= 3, "llama_tokenizer<Vocab, ByteCapacity>: ids 1 and 2 are BOS and EOS, so Vocab >= 3");
  static_assert(ByteCapacity > 0, "llama_tokenizer<Vocab, ByteCapacity>: ByteCapacity must be at least 1");
  static constexpr std::size_t table_size = detail::table_size_for(Vocab);
  static constexpr int bos_id = 1;
  static constexpr int eos_id = 2;

  float scores[Vocab] = {};
  /// Piece i is chars[starts[i] .. starts[i + 1]).
  std::uint32_t starts[Vocab + 1] = {};
  char chars[ByteCapacity] = {};
  /// Id + 1 by hash of their piece, 0 where empty.
  std::int32_t slots[table_size] = {};
  std::int32_t max_token_length = 0;
  /// Why the file was refused, and the index of the piece where it was (or Vocab).
  tokenizer_error error = tokenizer_error::none;
  std::size_t error_piece = 0;

  [[nodiscard]] constexpr bool ok() const noexcept { return error == tokenizer_error::none; }
  [[nodiscard]] constexpr std::size_t vocab_size() const noexcept { return Vocab; }
  [[nodiscard]] constexpr std::string_view piece(std::size_t id) const noexcept {
    return {chars + starts[id], starts[id + 1] - starts[id]};
  }
  [[nodiscard]] constexpr float score(std::size_t id) const noexcept { return scores[id]; }

  /// Reads tokenizer.bin's bytes: int32 max_token_length, then per piece float32 score, int32
  /// length and the bytes (little-endian). Bytes after the Vocab-th piece are ignored, as
  /// llama2.c does. A refusal (tokenizer_error) is a compile error in a constant expression
  /// naming it (tokenizer_bin_is_truncated, tokenizer_bin_score_is_nan, ...); at run time it is
  /// left in `error`, with the piece's index in `error_piece`, and every encode is refused.
  constexpr tokenizer_error read(std::span<const unsigned char> file) noexcept {
    std::size_t at = 0;
    std::uint32_t used = 0;
    for (std::int32_t& slot : slots) slot = 0;  // a tokenizer may be read again
    const auto fail = [&](tokenizer_error why, std::size_t index) {
      error = detail::refuse(why);
      error_piece = index;
      return error;
    };
    if (file.size() < 4) return fail(tokenizer_error::truncated, Vocab);
    max_token_length = detail::read_i32(file.data());
    if (max_token_length < 0) return fail(tokenizer_error::negative_max_token_length, Vocab);
    at = 4;
    for (std::size_t i = 0; i < Vocab; ++i) {
      if (file.size() - at < 8) return fail(tokenizer_error::truncated, i);
      const std::uint32_t score_bits = detail::read_u32(file.data() + at);
      const std::int32_t length = detail::read_i32(file.data() + at + 4);
      at += 8;
      if (detail::is_nan_bits(score_bits)) return fail(tokenizer_error::nan_score, i);
      if (length < 0) return fail(tokenizer_error::negative_length, i);
      if (length > max_token_length) return fail(tokenizer_error::token_longer_than_max_token_length, i);
      const auto n = static_cast<std::size_t>(length);
      if (file.size() - at < n) return fail(tokenizer_error::truncated, i);
      if (ByteCapacity - used < n) return fail(tokenizer_error::pieces_exceed_byte_capacity, i);
      scores[i] = detail::read_f32(file.data() + at - 8);
      for (std::size_t k = 0; k < n; ++k) chars[used + k] = static_cast<char>(file[at + k]);
      at += n;
      used += static_cast<std::uint32_t>(n);
      starts[i + 1] = used;
    }
    for (std::size_t i = 0; i < Vocab; ++i) {
      const std::string_view p = piece(i);
      std::size_t s = detail::fnv_add(detail::fnv_offset, p.data(), p.size()) & (table_size - 1);
      while (slots[s] > 0 && piece(static_cast<std::size_t>(slots[s] - 1)) != p) s = (s + 1) & (table_size - 1);
      if (slots[s] == 0) slots[s] = static_cast<std::int32_t>(i + 1);
    }
    error = tokenizer_error::none;
    error_piece = Vocab;
    return error;
  }

  /// The id of the piece a followed by b, or -1 (llama2.c's str_lookup of their concatenation,
  /// without building it).
  [[nodiscard]] constexpr int lookup(std::string_view a, std::string_view b = {}) const noexcept {
    const std::uint32_t hash =
        detail::fnv_add(detail::fnv_add(detail::fnv_offset, a.data(), a.size()), b.data(), b.size());
    for (std::size_t s = hash & (table_size - 1);; s = (s + 1) & (table_size - 1)) {
      const std::int32_t id = slots[s] - 1;
      if (id < 0) return -1;
      const std::string_view p = piece(static_cast<std::size_t>(id));
      if (p.size() == a.size() + b.size() && detail::same_chars(p.data(), a.data(), a.size()) &&
          detail::same_chars(p.data() + a.size(), b.data(), b.size())) {
        return id;
      }
    }
  }

  /// Ids of a text: at most one per byte, plus BOS, the leading space and EOS.
  [[nodiscard]] static constexpr std::size_t max_tokens(std::size_t text_bytes) noexcept { return text_bytes + 3; }

  /// Encodes as llama2.c's encode: BOS if asked; the piece " " if the text is not empty
  /// (sentencepiece's dummy prefix; where the vocabulary lacks " ", its byte fallback, where
  /// llama2.c would write -1); each UTF-8 char (a lead byte and up to three continuation bytes)
  /// looked up as a piece, or its bytes as byte pieces (byte + 3); then, while some adjacent
  /// pair's concatenation is a piece with score above -1e10, the pair with the best score (the
  /// first on ties) is merged; EOS if asked. Out must hold the tokens before merging.
  template <std::size_t Capacity>
  constexpr text_status encode_into(std::string_view text, int (&out)[Capacity], std::size_t& count,
                                    const llama_options& options = {}) const noexcept {
    count = 0;
    if (!ok()) return detail::refuse(text_status::invalid_tokenizer);
    // The id of each token's pair with the next, so that a merge looks up two pairs, not all.
    int pair[Capacity + 1] = {};
    const auto put = [&](int id) {
      if (count == Capacity) return false;
      out[count++] = id;
      return true;
    };
    const auto put_bytes = [&](std::string_view bytes) {
      for (const char c : bytes) {
        const std::size_t id = detail::byte_of(c) + 3;
        if (id >= Vocab) return detail::refuse(text_status::byte_fallback_out_of_vocab);
        if (!put(static_cast<int>(id))) return detail::refuse(text_status::too_many_tokens);
      }
      return text_status::ok;
    };
    if (options.bos && !put(bos_id)) return detail::refuse(text_status::too_many_tokens);
    if (!text.empty()) {
      const int space = lookup(" ");
      if (space >= 0) {
        if (!put(space)) return detail::refuse(text_status::too_many_tokens);
      } else if (const text_status s = put_bytes(" "); s != text_status::ok) {
        return s;
      }
    }
    const auto continuation = [](char c) { return (detail::byte_of(c) & 0xC0u) == 0x80u; };
    for (std::size_t i = 0; i < text.size();) {
      std::size_t j = i + 1;
      while (j < text.size() && continuation(text[j]) && j - i < 4) ++j;
      const std::string_view utf8 = text.substr(i, j - i);
      const int id = lookup(utf8);
      if (id >= 0) {
        if (!put(id)) return detail::refuse(text_status::too_many_tokens);
      } else if (const text_status s = put_bytes(utf8); s != text_status::ok) {
        return s;
      }
      i = j;
    }
    const auto pair_of = [&](std::size_t k) {
      return lookup(piece(static_cast<std::size_t>(out[k])), piece(static_cast<std::size_t>(out[k + 1])));
    };
    for (std::size_t k = 0; k + 1 < count; ++k) pair[k] = pair_of(k);
    while (count > 1) {
      float best_score = -1e10f;
      std::size_t best = count;
      for (std::size_t k = 0; k + 1 < count; ++k) {
        if (pair[k] >= 0 && scores[pair[k]] > best_score) {
          best_score = scores[pair[k]];
          best = k;
        }
      }
      if (best == count) break;
      out[best] = pair[best];
      for (std::size_t k = best + 1; k + 1 < count; ++k) {
        out[k] = out[k + 1];
        pair[k] = pair[k + 1];
      }
      --count;
      if (best > 0) pair[best - 1] = pair_of(best - 1);
      if (best + 1 < count) pair[best] = pair_of(best);
    }
    if (options.eos && !put(eos_id)) return detail::refuse(text_status::too_many_tokens);
    return text_status::ok;
  }

  /// The text of id after previous, by llama2.c's decode: BOS gives no text; after BOS a piece's
  /// leading space is dropped; a piece <0xNN> is the one raw byte NN.
  [[nodiscard]] constexpr std::string_view piece_text(int previous, int id) const noexcept {
    if (id == bos_id) return {};
    std::string_view p = piece(static_cast<std::size_t>(id));
    if (previous == bos_id && !p.empty() && p[0] == ' ') p.remove_prefix(1);
    const int byte = detail::byte_piece_value(p);
    return byte >= 0 ? detail::byte_piece(static_cast<std::size_t>(byte)) : p;
  }
};

/// Reads tokenizer.bin's bytes into a llama_tokenizer<Vocab, ByteCapacity> (see
/// llama_tokenizer::read): `constexpr auto tok = cxmat::read_llama_tokenizer<512, 4096>(bytes);`.
template <std::size_t Vocab, std::size_t ByteCapacity>
constexpr llama_tokenizer<Vocab, ByteCapacity> read_llama_tokenizer(std::span<const unsigned char> file) noexcept {
  llama_tokenizer<Vocab, ByteCapacity> tok{};
  tok.read(file);
  return tok;
}

/// From an array of the file's bytes (`constexpr unsigned char bytes[] = { #embed "tokenizer.bin" };`),
/// with the file's size as the pieces' capacity (it always suffices).
template <std::size_t Vocab, std::size_t FileSize>
constexpr llama_tokenizer<Vocab, FileSize> read_llama_tokenizer(const unsigned char (&file)[FileSize]) noexcept {
  return read_llama_tokenizer<Vocab, FileSize>(std::span<const unsigned char>(file));
}

}  // namespace cxmat
