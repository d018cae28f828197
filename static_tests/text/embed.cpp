// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// tokenizer.bin through C23's #embed, where the compiler has it (clang++ 19): the form that works
// for bytes >= 0x80 is a plain, non-template `unsigned char` array (clang++ 19 rejects #embed in a
// variable template's initializer and in std::to_array's braces). The same tokenizer as the
// generated header's.
#include <cxmat/text/llama_tokenizer.hpp>

#include "test_support/text/tiny_llama.hpp"

#if defined(__has_embed)
#if __has_embed("../../test_support/text/tiny_tokenizer.bin")
namespace {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
constexpr unsigned char tiny_bin[] = {
#embed "../../test_support/text/tiny_tokenizer.bin"
};
#pragma clang diagnostic pop

static_assert(sizeof(tiny_bin) == sizeof(text_reference::tiny_llama_bin));
constexpr bool same_bytes() {
  for (std::size_t i = 0; i < sizeof(tiny_bin); ++i) {
    if (tiny_bin[i] != text_reference::tiny_llama_bin[i]) return false;
  }
  return true;
}
static_assert(same_bytes());
// The file's size is the pieces' capacity when only the array is at hand.
constexpr auto tok = cxmat::read_llama_tokenizer<text_reference::tiny_llama_bin_vocab>(tiny_bin);
static_assert(tok.ok() && tok.piece(3 + 0x80) == "<0x80>" && tok.lookup(" hello") > 0);
}  // namespace
#endif
#endif
