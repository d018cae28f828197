// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The shape rules of decoder-only language models and generation, each bound once to the error
// it reports, as in transformer/rules.hpp: the heads of a block, a prompt's shape, and the length
// of a generation against the model's context and a cache's capacity.
#pragma once

#include <cstddef>

#include <cxmat/core/extent.hpp>
#include <cxmat/core/shape_rules.hpp>
#include <cxmat/transformer/rules.hpp>

namespace cxmat {

/// generate<N>(model, prompt): the prompt's P tokens and the N new ones fit the model's context.
template <std::size_t P, std::size_t N, std::size_t Context>
concept GenerationFitsContext = (N > 0) && (P > 0) && (P + N <= Context);

/// A cache for a model holds at most the model's context (positions past it have no embedding).
template <std::size_t Capacity, std::size_t Context>
concept CacheFitsContext = Capacity <= Context;

namespace shape_error {
template <class P, class N, class Context>
struct generate_prompt_plus_new_tokens_must_fit_context;  // generate<N>(model, prompt): P + N positions, at least one
                                                          // of each, at most the model's context
template <class Capacity, class Context>
struct kv_cache_capacity_must_not_exceed_context;  // a model's cache holds at most its context: use
                                                   // Model::cache_type<C> with C <= context
}  // namespace shape_error

namespace rule {
template <auto P, auto N, auto Context>
using generation_length =
    detail::check<GenerationFitsContext<P.size, N.size, Context.size>,
                  shape_error::generate_prompt_plus_new_tokens_must_fit_context<dim_of<P>, dim_of<N>, dim_of<Context>>>;
template <auto Capacity, auto Context>
using cache_capacity =
    detail::check<CacheFitsContext<Capacity.size, Context.size>,
                  shape_error::kv_cache_capacity_must_not_exceed_context<dim_of<Capacity>, dim_of<Context>>>;
}  // namespace rule

namespace rules_of {
// A LLaMA or GPT-2 block's heads: H divides d_model, H_kv divides H (the attention layer's rules).
template <std::size_t H, std::size_t Hkv, auto DModel>
using llama_sizes = detail::rule_list<rule::heads_divide_model<H, DModel>, rule::kv_heads_divide_heads<H, Hkv>>;
// generate<N>(model, prompt) with a prompt of element I, Rows x P.
template <class I, auto Rows, auto P, auto N, auto Context>
using generate = detail::rule_list<rule::token_index<I>, rule::token_row<Rows>, rule::generation_length<P, N, Context>>;
// prefill / step / forward with a cache of Capacity positions.
template <class I, auto Rows, auto Capacity, auto Context>
using cached_call =
    detail::rule_list<rule::token_index<I>, rule::token_row<Rows>, rule::cache_capacity<Capacity, Context>>;
}  // namespace rules_of

}  // namespace cxmat

#include <cxmat/generation/plain_errors.hpp>
