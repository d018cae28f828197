// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// A generation that also records what every head of every layer attended to, for teaching: the
// weights each position gave the positions before it, the prompt's (prefill) and each generated
// token's (one step over the cache), as the model computed them (the recorder receives the
// weights the outputs were summed with; no second computation).
#pragma once

#include <cstddef>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/generation/generate.hpp>
#include <cxmat/generation/rules.hpp>
#include <cxmat/generation/sampling.hpp>

namespace cxmat {

/// The tokens of generate<N> and the attention of each layer: attention[l].items[h](i, j) is the
/// weight that head h of layer l gave position j when it computed position i (j <= i; 0 above the
/// diagonal and in the rows of positions never computed: after a stop, or the last token, which
/// is chosen but not run). Positions 0 .. P-1 are the prompt's, then the generated tokens'.
template <LanguageModel M, std::size_t N, extent Positions>
struct recorded_generation {
  using value_type = typename M::value_type;
  matrix<int, 1, N> tokens{};
  batch<value_type, extent{M::heads}, Positions, Positions> attention[M::layers]{};
};

/// generate<N>(model, prompt, sampler, stop) with every head's attention weights recorded: the same
/// tokens (the recorder changes no arithmetic).
template <std::size_t N, LanguageModel M, class I, extent One, extent P>
requires rules_hold<rules_of::generate<I, One, P, extent{N}, M::context>>
constexpr recorded_generation<M, N, extent{P.size + N}> generate_recording(const M& model,
                                                                           const matrix<I, One, P>& prompt,
                                                                           const sampler& s = greedy,
                                                                           const stop_token& stop = {}) noexcept {
  using T = typename M::value_type;
  recorded_generation<M, N, extent{P.size + N}> out{};
  const auto recorder = [&out](std::size_t layer, std::size_t head, std::size_t position, const T* weights,
                               std::size_t keys) {
    for (std::size_t j = 0; j < keys; ++j) out.attention[layer].items[head].elems[position][j] = weights[j];
  };
  auto g = start<extent{P.size + N}>(model, prompt, s, stop, recorder);
  out.tokens = detail::finish_generation<N>(model, g, s, stop, recorder);
  return out;
}

}  // namespace cxmat
