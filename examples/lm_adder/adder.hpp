// The adding language model of train.py (adder.safetensors, imported in the build) with its
// characters, and its answer to a prompt such as "12+345=": greedy generation until the stop
// token, one definition for the compiler (static_assert) and for run time.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include <cxmat/core/matrix.hpp>
#include <cxmat/generation.hpp>
#include <cxmat/text.hpp>

#include "adder_model.hpp"  // adder: the LLaMA of adder.safetensors (cxmat_import.py --module llama)

namespace lm_adder {

using ::adder;

using model_type = std::remove_cvref_t<decltype(adder)>;

/// The characters of the vocabulary in token order, as train.py's VOCAB_TEXT: digits are tokens
/// 0 to 9, '+' 10, '=' 11, and '$' 12 is the stop token.
inline constexpr char characters[] = "0123456789+=$";
inline constexpr int stop = 12;
inline constexpr std::size_t context = model_type::context.size;
/// The longest prompt, "999+999=", and the longest answer with its stop token, "1998$".
inline constexpr std::size_t longest_prompt = 8;
inline constexpr std::size_t longest_answer = 5;

/// One token per character (cxmat::char_tokenizer): a character outside the vocabulary is a
/// compile error in a constant expression, and no token (-1, which the model refuses) at run time.
inline constexpr cxmat::char_tokenizer tokenizer{characters};

/// Characters of a short text (an answer), compared with a string literal or another text.
struct text {
  char chars[context + 1]{};
  std::size_t length = 0;

  constexpr void push(char c) noexcept { chars[length++] = c; }
  constexpr bool operator==(const text&) const = default;
  constexpr bool operator==(std::string_view s) const noexcept { return std::string_view(chars, length) == s; }
};

/// A prompt of P characters as one row of tokens.
template <std::size_t P>
constexpr cxmat::matrix<int, 1, P> tokens_of(std::string_view prompt) noexcept {
  return cxmat::encode<P>(tokenizer, prompt.substr(0, P)).ids;
}

/// The characters of generated tokens: everything up to and including the stop token (PyTorch's
/// greedy output in held_out.txt is written the same way).
template <cxmat::extent One, cxmat::extent N>
constexpr text continuation_text(const cxmat::matrix<int, One, N>& tokens) noexcept {
  text out{};
  for (std::size_t i = 0; i < N.size && tokens(0, i) != cxmat::no_token; ++i) {
    out.push(characters[tokens(0, i)]);
    if (tokens(0, i) == stop) break;
  }
  return out;
}

/// What the model writes after a prompt of P characters, greedily, until its stop token or
/// longest_answer tokens (fewer when the context ends first): "12+345=" -> "357$".
template <std::size_t P>
constexpr text continuation(std::string_view prompt) noexcept {
  constexpr std::size_t budget = longest_answer < context - P ? longest_answer : context - P;
  return continuation_text(
      cxmat::generate<budget>(adder, tokens_of<P>(prompt), cxmat::greedy, cxmat::stop_token{stop}));
}

/// The answer without its stop token ("357" for "12+345="), or the text with '?' appended when
/// the model did not stop.
constexpr text answer_of(const text& written) noexcept {
  text out = written;
  if (out.length > 0 && out.chars[out.length - 1] == characters[stop]) {
    out.chars[--out.length] = '\0';
  } else {
    out.push('?');
  }
  return out;
}

/// The model's answer to a prompt literal: answer("12+34=") == "46".
template <std::size_t N>
constexpr text answer(const char (&prompt)[N]) noexcept {
  return answer_of(continuation<N - 1>(std::string_view(prompt, N - 1)));
}

/// continuation() for a prompt whose length is known at run time only (1 to longest_prompt
/// characters; an empty text for others).
inline text continuation_at_run_time(std::string_view prompt) {
  return [&]<std::size_t... Ps>(std::index_sequence<Ps...>) {
    text out{};
    static_cast<void>(((prompt.size() == Ps + 1 ? (out = continuation<Ps + 1>(prompt), true) : false) || ...));
    return out;
  }
  (std::make_index_sequence<longest_prompt>{});
}

}  // namespace lm_adder
