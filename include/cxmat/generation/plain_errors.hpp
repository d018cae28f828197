// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Shape errors of generation in plain words: in plain mode (CXMAT_PLAIN_ERRORS, core/config.hpp)
// each shape error of generation/rules.hpp is defined here as a static_assert whose message is one
// sentence built at compile time. Outside plain mode this header defines nothing.
#pragma once

#include <cstddef>

#include <cxmat/core/config.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/plain_errors.hpp>

#if CXMAT_PLAIN_ERRORS
namespace cxmat::detail::plain {

template <class P, class N, class Context>
constexpr sentence generation_length() noexcept {
  sentence s;
  s.put("generate<N>(model, prompt): the prompt's ");
  s.put(P::size);
  s.put(" tokens and the ");
  s.put(N::size);
  s.put(" new ones must fit the model's context of ");
  s.put(Context::size);
  s.put(" positions (at least one of each): generate fewer tokens, or continue with a shorter prompt.");
  return s;
}

template <class Capacity, class Context>
constexpr sentence cache_capacity() noexcept {
  sentence s;
  s.put("a cache of ");
  s.put(Capacity::size);
  s.put(" positions is larger than the model's context of ");
  s.put(Context::size);
  s.put(": use Model::cache_type<C> with C at most the context.");
  return s;
}

}  // namespace cxmat::detail::plain

namespace cxmat::shape_error {
template <class P, class N, class Context>
struct generate_prompt_plus_new_tokens_must_fit_context {
  static_assert(false, detail::plain::generation_length<P, N, Context>());
};
template <class Capacity, class Context>
struct kv_cache_capacity_must_not_exceed_context {
  static_assert(false, detail::plain::cache_capacity<Capacity, Context>());
};
}  // namespace cxmat::shape_error
#endif
