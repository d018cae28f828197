// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// GPT-2's byte-level BPE in constant expressions: the converter's arrays of a tiny vocab.json and
// merges.txt, encode against a plain reference (test_support/text_tokenizers.py: Python's re
// with GPT-2's pattern, encoder.py's merge loop), decode back to the text.
#include <cxmat/text.hpp>

#include <cstddef>
#include <string_view>

#include "test_support/text/text_reference.hpp"
#include "test_support/text/tiny_gpt2.hpp"

namespace {
using text_reference::gpt2_cases;

constexpr auto tok = cxmat::make_gpt2_tokenizer(text_reference::tiny_gpt2_starts, text_reference::tiny_gpt2_chars,
                                                text_reference::tiny_gpt2_merge_ids);
static_assert(tok.ok());
static_assert(tok.piece(static_cast<std::size_t>(tok.byte_ids[97])) == "a");  // byte 97 is 'a'

constexpr bool encodes_as_reference(std::size_t k) {
  const auto& c = gpt2_cases[k];
  const std::string_view text(c.text, c.text_size);
  const auto e = cxmat::encode<64>(tok, text);
  if (!e.ok() || e.size != c.size) return false;
  for (std::size_t i = 0; i < c.size; ++i) {
    if (e.ids(0, i) != c.ids[i]) return false;
  }
  return cxmat::decode<64>(tok, e.ids) == text;  // byte-level: decode gives the text back
}
// The fixed cases (empty, words, spaces before words and at the end, contractions, digits,
// UTF-8, a stray continuation byte), then generated ones.
static_assert(encodes_as_reference(0));
static_assert(encodes_as_reference(1));
static_assert(encodes_as_reference(2));
static_assert(encodes_as_reference(3));
static_assert(encodes_as_reference(6));
static_assert(encodes_as_reference(7));
static_assert(encodes_as_reference(8));
static_assert(encodes_as_reference(9));
static_assert(encodes_as_reference(10));
static_assert(encodes_as_reference(12));
static_assert(encodes_as_reference(13));
static_assert(encodes_as_reference(14));

// Words of the splitter, written out: GPT-2's pattern on ASCII.
constexpr bool splits_as(std::string_view text, std::initializer_list<std::string_view> words) {
  std::size_t at = 0;
  for (const std::string_view w : words) {
    if (at >= text.size()) return false;
    const std::size_t end = cxmat::detail::gpt2_word_end(text, at);
    if (text.substr(at, end - at) != w) return false;
    at = end;
  }
  return at == text.size();
}
static_assert(splits_as("Hello world", {"Hello", " world"}));
static_assert(splits_as("it's they're I'm we'll 'd",
                        {"it", "'s", " they", "'re", " I", "'m", " we", "'ll", " '", "d"}));
static_assert(splits_as("a   b", {"a", "  ", " b"}));
static_assert(splits_as("a\nb", {"a", "\n", "b"}));
static_assert(splits_as("x  ", {"x", "  "}));
static_assert(splits_as("42+7=49!!", {"42", "+", "7", "=", "49", "!!"}));
static_assert(splits_as("a ''s", {"a", " ''", "s"}));

// A literal's capacity: one id per byte at most.
constexpr auto hello = cxmat::encode<"hello world">(tok);
static_assert(hello.ids.cols == 11 && hello.size == gpt2_cases[2].size);
}  // namespace
