// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Text in, text out: a prompt written as a string literal, encoded by the model's tokenizer,
// generate<N>, and the new tokens decoded back into text, so that a student writes
//   static_assert(cxmat::complete<5, "123+456=">(adder, tok, cxmat::greedy, cxmat::stop_token{12}) == "579$");
// and a teacher, with llama2.c's tokenizer.bin,
//   cxmat::complete<32, "Once upon a time", 256>(story, tok)   // at most 256 chars of text
#pragma once

#include <cstddef>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/generation/generate.hpp>
#include <cxmat/generation/sampling.hpp>
#include <cxmat/math/fp.hpp>
#include <cxmat/text/encode.hpp>
#include <cxmat/text/fixed_string.hpp>

namespace cxmat {

/// A tokenizer that gives exactly one id per char (char_tokenizer, byte_tokenizer): a prompt of L
/// chars is a 1 x L row of ids, its length known from the literal alone.
template <class Tok>
concept OneTokenPerChar = Tokenizer<Tok> && detail::FixedPieces<Tok> && Tok::max_piece_bytes == 1 &&
                          Tok::max_tokens(1) == 1 && Tok::max_tokens(7) == 7;

namespace detail {
// Named error of constant evaluation: the encoded prompt and the N new tokens exceed the context.
inline void complete_prompt_tokens_plus_new_tokens_must_fit_context() noexcept {}

}  // namespace detail

/// The text a model writes after Prompt: the prompt encoded with `tok` (llama2.c's tokenizer puts
/// BOS first, as run.c does), N tokens generated (greedy unless a sampler is given, up to and
/// including the stop token), decoded with `tok` into at most TextCapacity chars (by default N
/// times the piece length of a tokenizer whose pieces have one, char_tokenizer's and
/// byte_tokenizer's; give it for the others). With one id per char the prompt is a 1 x L row
/// prefilled at once; otherwise its length is known once encoded and its ids go through the
/// model one at a time (the same logits in constant evaluation: static.generation).
/// A prompt the tokenizer refuses, a prompt whose ids and N exceed the context, or text beyond
/// TextCapacity is a compile error in a constant expression; at run time the result is empty,
/// or ends where generation or the capacity stopped.
template <std::size_t N, fixed_string Prompt, std::size_t TextCapacity = 0, LanguageModel M, Tokenizer Tok>
constexpr fixed_string<detail::decode_capacity<Tok, TextCapacity, N>()> complete(const M& model, const Tok& tok,
                                                                                 const sampler& s = greedy,
                                                                                 const stop_token& stop = {}) noexcept {
  static_assert(N > 0, "complete<N, Prompt>(model, tok): generate at least one token");
  static_assert(Prompt.size() > 0, "complete<N, Prompt>(model, tok): the prompt must not be empty");
  constexpr std::size_t ids = Tok::max_tokens(Prompt.size());
  const encoding<ids> prompt = encode<Prompt>(tok);
  if (!prompt.ok() || prompt.size == 0) return {};
  if constexpr (OneTokenPerChar<Tok>) {
    return decode<TextCapacity>(tok, generate<N>(model, prompt.ids, s, stop));
  } else {
    constexpr std::size_t capacity = ids + N < M::context.size ? ids + N : M::context.size;
    if (prompt.size + N > M::context.size) {
      detail::refuse_in_constant_evaluation<detail::complete_prompt_tokens_plus_new_tokens_must_fit_context>();
      return {};
    }
    generation<M, extent{capacity}> g{};
    detail::begin_generation<detail::prompt_rows::one_at_a_time>(model, g, prompt.ids, s, stop,
                                                                 detail::no_attention_sink{}, prompt.size);
    return decode<TextCapacity>(tok, detail::finish_generation<N>(model, g, s, stop, detail::no_attention_sink{}));
  }
}

}  // namespace cxmat
