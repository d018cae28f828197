// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// llama2.c's tokenizer.bin read and used in constant expressions: encode against the ids of a
// plain reference encoder (test_support/text_tokenizers.py), decode by llama2.c's rule.
#include <cxmat/text.hpp>

#include <cstddef>
#include <string_view>

#include "test_support/text/text_reference.hpp"
#include "test_support/text/tiny_llama.hpp"

namespace {
using text_reference::llama_cases;

constexpr auto tok =
    cxmat::read_llama_tokenizer<text_reference::tiny_llama_bin_vocab, text_reference::tiny_llama_bin_piece_bytes>(
        text_reference::tiny_llama_bin);
static_assert(tok.ok() && tok.vocab_size() == text_reference::tiny_llama_bin_vocab);
static_assert(tok.piece(1) == "\n<s>\n" && tok.piece(3 + 'A') == "<0x41>");

// Case k of the reference: the ids, then decode of those ids.
constexpr bool encodes_as_reference(std::size_t k) {
  const auto& c = llama_cases[k];
  const auto e = cxmat::encode<64>(tok, std::string_view(c.text, c.text_size), cxmat::llama_options{c.bos, c.eos});
  if (!e.ok() || e.size != c.size) return false;
  for (std::size_t i = 0; i < c.size; ++i) {
    if (e.ids(0, i) != c.ids[i]) return false;
  }
  for (std::size_t i = c.size; i < 64; ++i) {
    if (e.ids(0, i) != -1) return false;
  }
  return cxmat::decode<128>(tok, e.ids) == std::string_view(c.decoded, c.decoded_size);
}
// The fixed cases: empty, "hello", "hello world", "the cat sat", ties ("xyz"), the -1e10 floor
// ("qqq"), UTF-8 pieces, byte fallback ("\xe2\x82\xac~"), contractions, spaces, stray
// continuation bytes, a lone lead byte; then generated ones.
static_assert(encodes_as_reference(0));
static_assert(encodes_as_reference(1));
static_assert(encodes_as_reference(2));
static_assert(encodes_as_reference(3));
static_assert(encodes_as_reference(4));
static_assert(encodes_as_reference(5));
static_assert(encodes_as_reference(6));
static_assert(encodes_as_reference(7));
static_assert(encodes_as_reference(8));
static_assert(encodes_as_reference(9));
static_assert(encodes_as_reference(10));
static_assert(encodes_as_reference(11));
static_assert(encodes_as_reference(12));
static_assert(encodes_as_reference(13));

// A prompt of exactly its tokens: BOS, then " hello" merged to one piece.
constexpr auto hello = cxmat::encode<"hello">(tok);
static_assert(hello.size == 2 && hello.ids(0, 0) == 1 && hello.ids(0, 1) == llama_cases[1].ids[1]);
constexpr auto hello_prompt = cxmat::exact_tokens<hello>();
static_assert(hello_prompt.cols == 2);
// After BOS the leading space of " hello" is dropped; a byte piece decodes to its byte.
static_assert(cxmat::decode<16>(tok, hello_prompt) == "hello");
constexpr cxmat::matrix<int, 1, 4> bytes{{{1, 3 + 'H', 3 + 'i', -1}}};
static_assert(cxmat::decode<8>(tok, bytes) == "Hi");
}  // namespace
