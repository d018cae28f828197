// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Running a decoder-only model (llama_model, gpt2_model, or any type with their `hidden` and
// `logits_of`) over a cache of keys and values: prefill a prompt, step one token, the logits of a
// whole sequence, and generation, in one constant expression or continued across many.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/generation/kv_cache.hpp>
#include <cxmat/generation/rules.hpp>
#include <cxmat/generation/sampling.hpp>
#include <cxmat/kernels/cached_attention.hpp>
#include <cxmat/math/fp.hpp>
#include <cxmat/ops/blocks.hpp>

namespace cxmat {

/// A decoder-only model: a value with `hidden(cache, tokens)` and `logits_of(rows)`, their forms
/// in a workspace (`hidden_into(cache, tokens, ws)`, `logits_into(ws.head, row)`, the workspace
/// type `workspace<R>`), its sizes as static members (llama_model, gpt2_model).
template <class M>
concept LanguageModel = requires {
  typename M::value_type;
  typename M::template workspace<1>;
  M::vocab;
  M::context;
  M::layers;
};

/// A cache made for model M (M::cache_type<C> for some capacity C).
template <class Cache, class M>
concept CacheOf = requires {
  Cache::capacity_extent;
}
&&std::is_same_v<Cache, typename M::template cache_type<Cache::capacity_extent>>;

/// The token at which generation stops (it is emitted, then nothing more). No stop token: -1.
struct stop_token {
  int id = -1;
};

namespace detail {
inline void cache_is_full_in_a_constant_expression() noexcept {}
inline void token_id_must_be_below_vocab_in_a_constant_expression() noexcept {}

template <class M>
using logits_row = matrix<typename M::value_type, 1, M::vocab>;

// Whether the first `count` tokens are valid ids of the vocabulary.
template <class I, extent One, extent R>
constexpr bool tokens_in_vocab(const matrix<I, One, R>& tokens, std::size_t vocab,
                               std::size_t count = R.size) noexcept {
  for (std::size_t i = 0; i < count; ++i) {
    const I t = tokens.elems[0][i];
    if constexpr (std::is_signed_v<I>) {
      if (t < I(0)) return false;
    }
    if (static_cast<std::size_t>(t) >= vocab) return false;
  }
  return true;
}

// Whether the first `count` tokens of a prompt cannot run: the cache has no room for them, or an
// id is not below vocab. In a constant expression either is a compile error that names it.
template <LanguageModel M, class Cache, class I, extent One, extent P>
constexpr bool prompt_refused(const Cache& cache, const matrix<I, One, P>& prompt, std::size_t count) noexcept {
  if (!cache.fits(count)) {
    refuse_in_constant_evaluation<cache_is_full_in_a_constant_expression>();
    return true;
  }
  if (!tokens_in_vocab(prompt, M::vocab.size, count)) {
    refuse_in_constant_evaluation<token_id_must_be_below_vocab_in_a_constant_expression>();
    return true;
  }
  return false;
}

template <class T, extent V>
constexpr void fill_nan(matrix<T, 1, V>& row) noexcept {
  for (std::size_t j = 0; j < V.size; ++j) row.elems[0][j] = std::numeric_limits<T>::quiet_NaN();
}

// prefill in the caller's workspace for P rows: the logits, in ws.head.logits (NaN for a
// refused prompt, the cache as it was).
template <LanguageModel M, class Cache, class I, extent One, extent P, class Recorder>
constexpr const logits_row<M>& prefill_in(const M& model, Cache& cache, const matrix<I, One, P>& prompt,
                                          typename M::template workspace<P.size>& ws,
                                          const Recorder& recorder) noexcept {
  if (prompt_refused<M>(cache, prompt, P.size)) {
    fill_nan(ws.head.logits);
    return ws.head.logits;
  }
  model.hidden_into(cache, prompt, ws, recorder);
  return model.logits_into(ws.head, ws.x.elems[P.size - 1]);
}
}  // namespace detail

/// Runs the prompt's P tokens (1 x P) at positions cache.filled .. through the model, appending
/// their keys and values to the cache, and returns the logits for the token after them (1 x
/// vocab). In a constant expression a full cache or a token id >= vocab is a compile error that
/// names it; at run time both give a row of NaN and leave the cache as it was (generation then
/// stops with no_token). A recorder, if given, gets every head's attention weights
/// (generate_recording).
template <LanguageModel M, class Cache, class I, extent One, extent P, class Recorder = detail::no_attention_sink>
requires CacheOf<Cache, M> && rules_hold<rules_of::cached_call<I, One, Cache::capacity_extent, M::context>>
constexpr detail::logits_row<M> prefill(const M& model, Cache& cache, const matrix<I, One, P>& prompt,
                                        const Recorder& recorder = {}) noexcept {
  typename M::template workspace<P.size> ws;
  return detail::prefill_in(model, cache, prompt, ws, recorder);
}

/// One token through the model at position cache.filled: prefill of a one-token prompt.
template <LanguageModel M, class Cache, class Recorder = detail::no_attention_sink>
requires CacheOf<Cache, M>
constexpr detail::logits_row<M> step(const M& model, Cache& cache, int token, const Recorder& recorder = {}) noexcept {
  const matrix<int, 1, 1> one{{{token}}};
  return prefill(model, cache, one, recorder);
}

/// The logits of every position of a sequence (N x vocab) under the causal rule, from an empty
/// cache of capacity N: what a training framework's forward pass gives.
template <LanguageModel M, class I, extent One, extent N>
requires rules_hold<rules_of::cached_call<I, One, N, M::context>>
constexpr matrix<typename M::value_type, N, M::vocab> forward(const M& model,
                                                              const matrix<I, One, N>& tokens) noexcept {
  using T = typename M::value_type;
  typename M::template cache_type<N> cache{};
  if (!detail::tokens_in_vocab(tokens, M::vocab.size)) {
    detail::refuse_in_constant_evaluation<detail::token_id_must_be_below_vocab_in_a_constant_expression>();
    matrix<T, N, M::vocab> out{};
    for (std::size_t i = 0; i < N.size; ++i) out.elems[i][0] = std::numeric_limits<T>::quiet_NaN();
    return out;
  }
  return model.logits_of(model.hidden(cache, tokens));
}

/// A generation in progress, a literal value: the cache, the tokens so far (the prompt, then the
/// generated ones; the last one is not in the cache yet), whether it has stopped, and the
/// workspaces its steps and sampled choices compute in. In the caller's storage
/// (generate<N>(model, prompt, storage)) the prompt goes through the step's workspace one token
/// at a time too, so a generation is all the memory that needs besides frames: sizeof, a
/// compile-time constant; a static one is in .bss. A program continues a generation from one
/// constant expression to the next, each with its own step budget:
///   constexpr auto g0 = cxmat::start<40>(model, prompt);  // prefill, first token
///   constexpr auto g1 = cxmat::advance<8>(model, g0);      // 8 more, in a new constant expression
template <LanguageModel M, extent Capacity>
struct generation {
  typename M::template cache_type<Capacity> cache{};
  matrix<int, 1, Capacity> tokens{};
  /// Tokens held: the prompt's and the generated ones.
  std::size_t length = 0;
  std::size_t prompt_length = 0;
  /// The stop token was emitted, the logits were NaN or the capacity is reached.
  bool stopped = false;
  /// The memory of a step: one row through the blocks and its logits, and of a sampled choice.
  /// Their contents between steps do not matter.
  typename M::template workspace<1> workspace{};
  sampling_workspace<M::vocab.size> sampling{};

  /// The generated tokens so far.
  [[nodiscard]] constexpr std::size_t generated() const noexcept { return length - prompt_length; }
};

namespace detail {
template <LanguageModel M, extent Capacity>
constexpr void take_token(generation<M, Capacity>& g, const logits_row<M>& logits, const sampler& s,
                          const stop_token& stop) noexcept {
  const int token = choose_token(logits, s, g.length, g.sampling);
  if (token == no_token) {
    g.stopped = true;
    return;
  }
  g.tokens.elems[0][g.length++] = token;
  if (token == stop.id || g.length == Capacity.size) g.stopped = true;
}

// Continues g in place by up to K tokens (fewer if it stops): advance's loop, and generate's
// without a copy of the generation (its cache is most of a microcontroller's RAM).
template <std::size_t K, LanguageModel M, extent Capacity, class Recorder>
constexpr void continue_generation(const M& model, generation<M, Capacity>& g, const sampler& s, const stop_token& stop,
                                   const Recorder& recorder) noexcept {
  for (std::size_t k = 0; k < K && !g.stopped; ++k) {
    const matrix<int, 1, 1> last{{{g.tokens.elems[0][g.length - 1]}}};
    take_token(g, prefill_in(model, g.cache, last, g.workspace, recorder), s, stop);
  }
}

// The generated tokens of g as a 1 x N row, no_token after the last.
template <std::size_t N, LanguageModel M, extent Capacity>
constexpr matrix<int, 1, N> generated_tokens(const generation<M, Capacity>& g) noexcept {
  matrix<int, 1, N> out{};
  for (std::size_t i = 0; i < N; ++i)
    out.elems[0][i] = g.prompt_length + i < g.length ? g.tokens.elems[0][g.prompt_length + i] : no_token;
  return out;
}

// How a generation's prompt goes through the model: all its rows in one call, in a workspace of
// P rows on the stack (start, generate: fewer operations for the constant evaluator; GCC's for
// the adder's prompt of 8 and first token: 5.4 M against 9.7 M one token at a time), or one at a
// time in the generation's own workspace (generate into the caller's storage: the stack keeps
// frames only; complete, whose prompt's length is known only once encoded). Each row's
// arithmetic is the same either way.
enum class prompt_rows { at_once, one_at_a_time };

// g (whatever it held: its cache's rows past `filled`, its tokens past `length` and its
// workspace are never read) made the generation of the first `count` tokens of `prompt` (all of
// them at once): the prompt prefilled, the first new token chosen.
template <prompt_rows Rows, LanguageModel M, extent Capacity, class I, extent One, extent P, class Recorder>
constexpr void begin_generation(const M& model, generation<M, Capacity>& g, const matrix<I, One, P>& prompt,
                                const sampler& s, const stop_token& stop, const Recorder& recorder,
                                std::size_t count = P.size) noexcept {
  g.cache.filled = 0;
  g.stopped = false;
  for (std::size_t i = 0; i < count; ++i) g.tokens.elems[0][i] = static_cast<int>(prompt.elems[0][i]);
  g.length = g.prompt_length = count;
  if constexpr (Rows == prompt_rows::at_once) {
    typename M::template workspace<P.size> ws;
    take_token(g, prefill_in(model, g.cache, prompt, ws, recorder), s, stop);
  } else {
    if (count == 0 || prompt_refused<M>(g.cache, prompt, count)) {
      fill_nan(g.workspace.head.logits);
    } else {
      for (std::size_t i = 0; i < count; ++i) {  // only the last token's logits are needed
        const matrix<int, 1, 1> token{{{static_cast<int>(prompt.elems[0][i])}}};
        model.hidden_into(g.cache, token, g.workspace, recorder);
      }
      model.logits_into(g.workspace.head, g.workspace.x.elems[0]);
    }
    take_token(g, g.workspace.head.logits, s, stop);
  }
}

// The N tokens of a generation whose first token is taken: g continued in place by N - 1 more.
template <std::size_t N, LanguageModel M, extent Capacity, class Recorder>
constexpr matrix<int, 1, N> finish_generation(const M& model, generation<M, Capacity>& g, const sampler& s,
                                              const stop_token& stop, const Recorder& recorder) noexcept {
  continue_generation<N - 1>(model, g, s, stop, recorder);
  return generated_tokens<N>(g);
}
}  // namespace detail

/// Starts a generation of at most Capacity tokens in all (prompt included): prefills the prompt
/// and chooses the first new token.
template <extent Capacity, LanguageModel M, class I, extent One, extent P, class Recorder = detail::no_attention_sink>
requires rules_hold<
    rules_of::generate<I, One, P, extent{(Capacity.size > P.size) ? Capacity.size - P.size : 0}, M::context>>
constexpr generation<M, Capacity> start(const M& model, const matrix<I, One, P>& prompt, const sampler& s = greedy,
                                        const stop_token& stop = {}, const Recorder& recorder = {}) noexcept {
  generation<M, Capacity> g{};
  detail::begin_generation<detail::prompt_rows::at_once>(model, g, prompt, s, stop, recorder);
  return g;
}

/// Continues a generation by up to K tokens (fewer if it stops).
template <std::size_t K, LanguageModel M, extent Capacity, class Recorder = detail::no_attention_sink>
constexpr generation<M, Capacity> advance(const M& model, generation<M, Capacity> g, const sampler& s = greedy,
                                          const stop_token& stop = {}, const Recorder& recorder = {}) noexcept {
  detail::continue_generation<K>(model, g, s, stop, recorder);
  return g;
}

/// The N tokens generated after the prompt (1 x P token ids), greedy unless a sampler is given.
/// After a stop token (which is included) or a stop for NaN logits or refused sampler
/// parameters, the remaining entries are no_token (-1). P + N must fit the model's context.
template <std::size_t N, LanguageModel M, class I, extent One, extent P>
requires rules_hold<rules_of::generate<I, One, P, extent{N}, M::context>>
constexpr matrix<int, 1, N> generate(const M& model, const matrix<I, One, P>& prompt, const sampler& s = greedy,
                                     const stop_token& stop = {}) noexcept {
  auto g = start<extent{P.size + N}>(model, prompt, s, stop);  // one generation, continued in place
  return detail::finish_generation<N>(model, g, s, stop, detail::no_attention_sink{});
}
/// generate<N>(model, prompt) with the generation (the cache and the tokens: most of the memory
/// a generation needs) in `storage`, the caller's, instead of on the stack: on a microcontroller
/// a static object (in .bss, its size known when the image is linked) keeps the stack small.
/// storage's capacity must hold the prompt and the N tokens; what it held before does not
/// matter, and afterwards it holds this generation.
template <std::size_t N, LanguageModel M, class I, extent One, extent P, extent Capacity>
requires rules_hold<rules_of::generate<I, One, P, extent{N}, M::context>> &&
    (Capacity.size >= P.size + N) constexpr matrix<int, 1, N> generate(const M& model, const matrix<I, One, P>& prompt,
                                                                       generation<M, Capacity>& storage,
                                                                       const sampler& s = greedy,
                                                                       const stop_token& stop = {}) noexcept {
  detail::begin_generation<detail::prompt_rows::one_at_a_time>(model, storage, prompt, s, stop,
                                                               detail::no_attention_sink{});
  return detail::finish_generation<N>(model, storage, s, stop, detail::no_attention_sink{});
}

/// Shape error of generate<N>(model, prompt): a prompt that is not one row of integers, or P + N
/// past the model's context.
template <std::size_t N, LanguageModel M, class I, extent One, extent P>
decltype(detail::first_failure<rules_of::generate<I, One, P, extent{N}, M::context>>::error()) generate(
    const M& model, const matrix<I, One, P>& prompt, const sampler& s = greedy, const stop_token& stop = {}) noexcept;

}  // namespace cxmat
