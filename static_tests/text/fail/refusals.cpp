// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Each refusal of the text layer in a constant expression is a compile error that names it.
// CXMAT_TEXT_FAIL=N compiles mistake N (CTest expects its name in the compiler's message);
// CXMAT_TEXT_FAIL=0 is the twin that compiles, so a broken setup cannot pass vacuously.
#include <cxmat/text.hpp>

#include "test_support/text/broken_tokenizers.hpp"
#include "test_support/text/text_reference.hpp"
#include "test_support/text/tiny_gpt2.hpp"
#include "test_support/text/tiny_llama.hpp"

namespace {
using namespace text_reference;
constexpr std::size_t vocab = tiny_llama_bin_vocab;
constexpr std::size_t capacity = tiny_llama_bin_piece_bytes;
constexpr cxmat::char_tokenizer digits{"0123456789+= "};

#if CXMAT_TEXT_FAIL == 1  // Expect: char_not_in_the_tokenizers_alphabet
constexpr auto e = cxmat::encode<"12x">(digits);
#elif CXMAT_TEXT_FAIL == 2   // Expect: tokenizer_bin_piece_longer_than_max_token_length
constexpr auto tok = cxmat::read_llama_tokenizer<vocab, capacity>(too_long_bin);
#elif CXMAT_TEXT_FAIL == 3   // Expect: tokenizer_bin_score_is_nan
constexpr auto tok = cxmat::read_llama_tokenizer<vocab, capacity>(nan_score_bin);
#elif CXMAT_TEXT_FAIL == 4   // Expect: tokenizer_bin_is_truncated
constexpr auto tok = cxmat::read_llama_tokenizer<vocab, capacity>(truncated_bin);
#elif CXMAT_TEXT_FAIL == 5   // Expect: tokenizer_bin_piece_length_is_negative
constexpr auto tok = cxmat::read_llama_tokenizer<vocab, capacity>(negative_length_bin);
#elif CXMAT_TEXT_FAIL == 6   // Expect: token_id_outside_the_vocabulary
constexpr cxmat::matrix<int, 1, 2> ids{{{1, 13}}};
constexpr auto text = cxmat::decode(digits, ids);
#elif CXMAT_TEXT_FAIL == 7   // Expect: fixed_string_capacity_exceeded
constexpr auto s = [] {
  cxmat::fixed_string<2> out;
  out.append("abc");
  return out;
}();
#elif CXMAT_TEXT_FAIL == 8   // Expect: alphabet_has_a_repeated_char
constexpr cxmat::char_tokenizer repeated{"abca"};
#elif CXMAT_TEXT_FAIL == 9   // Expect: encoding_needs_more_tokens_than_its_capacity
constexpr auto e = cxmat::encode<2>(digits, "123");
#elif CXMAT_TEXT_FAIL == 10  // Expect: gpt2_merge_is_not_the_concatenation_of_its_pieces
constexpr auto merges = [] {
  struct {
    std::int32_t ids[std::size(tiny_gpt2_merge_ids)];
  } out{};
  for (std::size_t i = 0; i < std::size(out.ids); ++i) out.ids[i] = tiny_gpt2_merge_ids[i];
  out.ids[2] = out.ids[5];
  return out;
}();
constexpr auto tok = cxmat::make_gpt2_tokenizer(tiny_gpt2_starts, tiny_gpt2_chars, merges.ids);
#else                        // the twin: the same calls, right
constexpr auto e = cxmat::encode<"12+3">(digits);
constexpr auto tok = cxmat::read_llama_tokenizer<vocab, capacity>(tiny_llama_bin);
constexpr cxmat::matrix<int, 1, 2> ids{{{1, 12}}};
constexpr auto text = cxmat::decode(digits, ids);
constexpr cxmat::char_tokenizer unique{"abc"};
constexpr auto gpt2 = cxmat::make_gpt2_tokenizer(tiny_gpt2_starts, tiny_gpt2_chars, tiny_gpt2_merge_ids);
static_assert(e.ok() && tok.ok() && text == "1 " && unique.valid() && gpt2.ok());
#endif
}  // namespace
