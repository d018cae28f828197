// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Text in, text out: a prompt written as a string literal, encoded by a tokenizer of one id per
// char or byte, generate<N>, and the new tokens decoded back into text, so that a student writes
//   static_assert(cxmat::complete<5, "123+456=">(model, tok, cxmat::greedy, cxmat::stop_token{12}) == "579$");
// For a tokenizer whose number of ids depends on the text (llama2.c's, GPT-2's BPE), the prompt's
// length is known only after encoding: encode it in a constexpr variable, make the prompt with
// exact_tokens<e>(), then generate and decode (docs/text.md).
#pragma once

#include <cstddef>

#include <cxmat/generation/generate.hpp>
#include <cxmat/generation/sampling.hpp>
#include <cxmat/text/encode.hpp>
#include <cxmat/text/fixed_string.hpp>
#include <cxmat/text/status.hpp>

namespace cxmat {

/// A tokenizer that gives exactly one id per char (char_tokenizer, byte_tokenizer): a prompt of L
/// chars is a 1 x L row of ids, its length known from the literal alone.
template <class Tok>
concept OneTokenPerChar = Tokenizer<Tok> && detail::FixedPieces<Tok> && Tok::max_piece_bytes == 1 &&
                          Tok::max_tokens(1) == 1 && Tok::max_tokens(7) == 7;

/// The text a model writes after Prompt: N tokens generated (greedy unless a sampler is given,
/// up to and including the stop token), decoded with the same tokenizer. A char of the prompt
/// that the tokenizer lacks, or a token id the model does not have, is a compile error in a
/// constant expression; at run time the result is empty (the encoding refused) or ends where
/// generation stopped.
template <std::size_t N, fixed_string Prompt, LanguageModel M, OneTokenPerChar Tok>
constexpr fixed_string<N> complete(const M& model, const Tok& tok, const sampler& s = greedy,
                                   const stop_token& stop = {}) noexcept {
  static_assert(Prompt.size() > 0, "complete<N, Prompt>(model, tok): the prompt must not be empty");
  const encoding<Prompt.size()> prompt = encode<Prompt>(tok);
  if (!prompt.ok()) return {};
  return decode<N>(tok, generate<N>(model, prompt.ids, s, stop));
}

}  // namespace cxmat
