// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// What encoding and decoding report at run time, and the named errors they are in a constant
// expression.
#pragma once

#include <type_traits>

#include <cxmat/math/fp.hpp>

namespace cxmat {

/// The outcome of an encode or decode at run time. In a constant expression every refusal is a
/// compile error instead, raised by calling a function of namespace cxmat::detail whose name is
/// the message (e.g. `char_not_in_the_tokenizers_alphabet`), so a wrong prompt cannot compile.
enum class text_status {
  ok,
  /// A char that the tokenizer has no token for (char_tokenizer's alphabet).
  unknown_char,
  /// More tokens than the capacity of the result.
  too_many_tokens,
  /// decode: an id that is neither -1 (no token) nor below the vocabulary size.
  token_out_of_range,
  /// decode: more text than the capacity of the result.
  text_too_long,
  /// llama encode: a byte without a piece whose fallback id (byte + 3) is not in the vocabulary.
  byte_fallback_out_of_vocab,
  /// The tokenizer itself was refused when it was read (see its `error`).
  invalid_tokenizer,
};

namespace detail {
// Each is called only on its refusal; in a constant expression the call is the error.
inline void char_not_in_the_tokenizers_alphabet() noexcept {}
inline void encoding_needs_more_tokens_than_its_capacity() noexcept {}
inline void token_id_outside_the_vocabulary() noexcept {}
inline void decoded_text_longer_than_its_capacity() noexcept {}
inline void byte_fallback_id_outside_the_vocabulary() noexcept {}
inline void tokenizer_was_refused_when_it_was_read() noexcept {}

// The one place a refusal becomes a compile error in a constant expression: returns the status
// at run time.
constexpr text_status refuse(text_status status) noexcept {
  {  // a compile error in a constant expression, nothing at run time
    switch (status) {
      case text_status::unknown_char:
        cxmat::detail::refuse_in_constant_evaluation<char_not_in_the_tokenizers_alphabet>();
        break;
      case text_status::too_many_tokens:
        cxmat::detail::refuse_in_constant_evaluation<encoding_needs_more_tokens_than_its_capacity>();
        break;
      case text_status::token_out_of_range:
        cxmat::detail::refuse_in_constant_evaluation<token_id_outside_the_vocabulary>();
        break;
      case text_status::text_too_long:
        cxmat::detail::refuse_in_constant_evaluation<decoded_text_longer_than_its_capacity>();
        break;
      case text_status::byte_fallback_out_of_vocab:
        cxmat::detail::refuse_in_constant_evaluation<byte_fallback_id_outside_the_vocabulary>();
        break;
      case text_status::invalid_tokenizer:
        cxmat::detail::refuse_in_constant_evaluation<tokenizer_was_refused_when_it_was_read>();
        break;
      case text_status::ok:
        break;
    }
  }
  return status;
}
}  // namespace detail

/// Why a tokenizer file was refused (none: it was read).
enum class tokenizer_error {
  none,
  /// The file ends inside a field or a piece.
  truncated,
  /// max_token_length is negative.
  negative_max_token_length,
  /// A piece's length field is negative.
  negative_length,
  /// A piece is longer than the file's max_token_length.
  token_longer_than_max_token_length,
  /// A score is NaN (no order between pieces).
  nan_score,
  /// The pieces need more bytes than the tokenizer's ByteCapacity.
  pieces_exceed_byte_capacity,
  /// gpt2: a merge whose result is not the concatenation of its two pieces, or an id out of range.
  bad_merge,
  /// gpt2: a byte value without a one-byte token.
  byte_without_a_token,
};

/// One line naming the refusal, for a run-time message.
constexpr const char* describe(tokenizer_error error) noexcept {
  switch (error) {
    case tokenizer_error::none:
      return "read";
    case tokenizer_error::truncated:
      return "the file ends inside a field or a piece";
    case tokenizer_error::negative_max_token_length:
      return "max_token_length is negative";
    case tokenizer_error::negative_length:
      return "a piece's length is negative";
    case tokenizer_error::token_longer_than_max_token_length:
      return "a piece is longer than max_token_length";
    case tokenizer_error::nan_score:
      return "a score is NaN";
    case tokenizer_error::pieces_exceed_byte_capacity:
      return "the pieces need more bytes than the capacity";
    case tokenizer_error::bad_merge:
      return "a merge is not the concatenation of its two pieces";
    case tokenizer_error::byte_without_a_token:
      return "a byte value has no one-byte token";
  }
  return "unknown";
}

namespace detail {
// Each is called only on its refusal; in a constant expression the call is the error.
inline void tokenizer_bin_is_truncated() noexcept {}
inline void tokenizer_bin_max_token_length_is_negative() noexcept {}
inline void tokenizer_bin_piece_length_is_negative() noexcept {}
inline void tokenizer_bin_piece_longer_than_max_token_length() noexcept {}
inline void tokenizer_bin_score_is_nan() noexcept {}
inline void tokenizer_pieces_exceed_byte_capacity() noexcept {}
inline void gpt2_merge_is_not_the_concatenation_of_its_pieces() noexcept {}
inline void gpt2_byte_without_a_one_byte_token() noexcept {}

constexpr tokenizer_error refuse(tokenizer_error error) noexcept {
  {  // a compile error in a constant expression, nothing at run time
    switch (error) {
      case tokenizer_error::truncated:
        cxmat::detail::refuse_in_constant_evaluation<tokenizer_bin_is_truncated>();
        break;
      case tokenizer_error::negative_max_token_length:
        cxmat::detail::refuse_in_constant_evaluation<tokenizer_bin_max_token_length_is_negative>();
        break;
      case tokenizer_error::negative_length:
        cxmat::detail::refuse_in_constant_evaluation<tokenizer_bin_piece_length_is_negative>();
        break;
      case tokenizer_error::token_longer_than_max_token_length:
        cxmat::detail::refuse_in_constant_evaluation<tokenizer_bin_piece_longer_than_max_token_length>();
        break;
      case tokenizer_error::nan_score:
        cxmat::detail::refuse_in_constant_evaluation<tokenizer_bin_score_is_nan>();
        break;
      case tokenizer_error::pieces_exceed_byte_capacity:
        cxmat::detail::refuse_in_constant_evaluation<tokenizer_pieces_exceed_byte_capacity>();
        break;
      case tokenizer_error::bad_merge:
        cxmat::detail::refuse_in_constant_evaluation<gpt2_merge_is_not_the_concatenation_of_its_pieces>();
        break;
      case tokenizer_error::byte_without_a_token:
        cxmat::detail::refuse_in_constant_evaluation<gpt2_byte_without_a_one_byte_token>();
        break;
      case tokenizer_error::none:
        break;
    }
  }
  return error;
}
}  // namespace detail

}  // namespace cxmat
