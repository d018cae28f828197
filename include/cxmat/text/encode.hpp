// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Text to token ids and back for any tokenizer of this layer: encode into a matrix<int, 1, P>
// whose P is known from the text's capacity, and decode a 1 x N row of ids (-1 = no token, as
// generate<N> leaves them) into a fixed_string.
#pragma once

#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/text/fixed_string.hpp>
#include <cxmat/text/status.hpp>

namespace cxmat {

/// A tokenizer of this layer: max_tokens(text bytes) bounds the ids of a text, encode_into
/// writes them into an array of any capacity, piece_text(previous id, id) is the text of one id, vocab_size() the ids'
/// bound.
template <class Tok>
concept Tokenizer = requires(const Tok& tok, std::string_view text, int (&out)[1], std::size_t n, std::size_t& count) {
  { Tok::max_tokens(n) } -> std::same_as<std::size_t>;
  { tok.encode_into(text, out, count) } -> std::same_as<text_status>;
  { tok.piece_text(0, 0) } -> std::same_as<std::string_view>;
  { tok.vocab_size() } -> std::same_as<std::size_t>;
};

/// The ids of a text: the first `size` entries of `ids` (1 x Capacity), then -1 (no token).
/// A structural type, so a constexpr encoding can be a template argument (exact_tokens<e>()).
template <std::size_t Capacity>
struct encoding {
  matrix<int, 1, Capacity> ids{};
  std::size_t size = 0;
  text_status status = text_status::ok;

  [[nodiscard]] constexpr bool ok() const noexcept { return status == text_status::ok; }
};

namespace detail {
template <std::size_t Capacity, Tokenizer Tok, class... Options>
constexpr encoding<Capacity> encode_text(const Tok& tok, std::string_view text, const Options&... options) noexcept {
  encoding<Capacity> out{};
  out.status = tok.encode_into(text, out.ids.elems[0], out.size, options...);
  // A tokenizer may leave scratch values past the count (merging works in place).
  for (std::size_t i = out.size; i < Capacity; ++i) out.ids.elems[0][i] = -1;
  return out;
}
}  // namespace detail

/// Encodes text into at most Capacity ids: `cxmat::encode<16>(tok, "12+34=")`. Refusals (a char
/// the tokenizer lacks, more than Capacity ids) are compile errors in a constant expression and
/// the encoding's status at run time. Options go to the tokenizer (llama_options for a
/// llama_tokenizer).
template <std::size_t Capacity, Tokenizer Tok, class... Options>
constexpr encoding<Capacity> encode(const Tok& tok, std::string_view text, const Options&... options) noexcept {
  return detail::encode_text<Capacity>(tok, text, options...);
}

/// Encodes a fixed_string, with as many ids as its capacity can need (Tok::max_tokens): for
/// char_tokenizer and byte_tokenizer exactly one per char, so for a full string `.ids` is the
/// prompt itself, 1 x Length.
template <Tokenizer Tok, std::size_t Length, class... Options>
constexpr encoding<Tok::max_tokens(Length)> encode(const Tok& tok, const fixed_string<Length>& text,
                                                   const Options&... options) noexcept {
  static_assert(Tok::max_tokens(Length) > 0, "encode(tok, text): the text must not be empty");
  return detail::encode_text<Tok::max_tokens(Length)>(tok, text.view(), options...);
}

/// Encodes a literal given as template argument: `cxmat::encode<"12+34=">(tok)`, its capacity
/// from the literal's length (see above).
template <fixed_string Text, Tokenizer Tok, class... Options>
constexpr encoding<Tok::max_tokens(Text.size())> encode(const Tok& tok, const Options&... options) noexcept {
  static_assert(Tok::max_tokens(Text.size()) > 0, "encode<Text>(tok): the text must not be empty");
  return detail::encode_text<Tok::max_tokens(Text.size())>(tok, Text.view(), options...);
}

/// The ids of a constexpr encoding as a matrix of exactly its size, 1 x e.size, for a model's
/// prompt: `constexpr auto e = cxmat::encode<32>(tok, "Once"); constexpr auto prompt =
/// cxmat::exact_tokens<e>();`.
template <auto Encoded>
constexpr matrix<int, 1, Encoded.size> exact_tokens() noexcept {
  static_assert(Encoded.status == text_status::ok, "exact_tokens<e>(): e was refused (see e.status)");
  static_assert(Encoded.size > 0, "exact_tokens<e>(): e holds no token");
  matrix<int, 1, Encoded.size> out{};
  for (std::size_t i = 0; i < Encoded.size; ++i) out.elems[0][i] = Encoded.ids.elems[0][i];
  return out;
}

namespace detail {
template <class Tok>
concept FixedPieces = requires {
  Tok::max_piece_bytes;
};

template <class Tok, std::size_t Capacity, std::size_t Ids>
consteval std::size_t decode_capacity() {
  if constexpr (Capacity > 0) {
    return Capacity;
  } else {
    static_assert(FixedPieces<Tok>,
                  "decode(tok, ids): this tokenizer's pieces have no fixed length; give the capacity, "
                  "decode<Capacity>(tok, ids)");
    if constexpr (FixedPieces<Tok>) return Ids * Tok::max_piece_bytes;
    return 1;
  }
}
}  // namespace detail

/// The text of a 1 x N row of ids, skipping -1 (no token); each piece comes from
/// tok.piece_text(previous id, id), so llama's rules apply. Capacity (chars) defaults to N times
/// the tokenizer's piece length where it is fixed (char_tokenizer, byte_tokenizer). An id outside
/// [0, vocab) or text beyond the capacity is a compile error in a constant expression; at run
/// time decoding stops there and `status` says why.
template <std::size_t Capacity = 0, Tokenizer Tok, std::integral I, extent One, extent N>
requires(One.size == 1) constexpr fixed_string<detail::decode_capacity<Tok, Capacity, N.size>()> decode(
    const Tok& tok, const matrix<I, One, N>& ids, text_status& status) noexcept {
  fixed_string<detail::decode_capacity<Tok, Capacity, N.size>()> out;
  status = text_status::ok;
  int previous = -1;
  for (std::size_t i = 0; i < N.size; ++i) {
    const I id = ids.elems[0][i];
    if (id == I(-1)) continue;
    bool negative = false;
    if constexpr (std::is_signed_v<I>) negative = id < I(0);
    if (negative || static_cast<std::size_t>(id) >= tok.vocab_size()) {
      status = detail::refuse(text_status::token_out_of_range);
      return out;
    }
    const std::string_view piece = tok.piece_text(previous, static_cast<int>(id));
    if (piece.size() > out.capacity - out.size()) {
      status = detail::refuse(text_status::text_too_long);
      return out;
    }
    out.append(piece);
    previous = static_cast<int>(id);
  }
  return out;
}

/// decode without the status (refusals are still compile errors in a constant expression).
template <std::size_t Capacity = 0, Tokenizer Tok, std::integral I, extent One, extent N>
requires(One.size == 1) constexpr fixed_string<detail::decode_capacity<Tok, Capacity, N.size>()> decode(
    const Tok& tok, const matrix<I, One, N>& ids) noexcept {
  text_status status{};
  return decode<Capacity>(tok, ids, status);
}

}  // namespace cxmat
