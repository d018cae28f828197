// Checks of attention traces, each a constexpr function so that static_tests/io/trace.cpp and
// runtime_tests/io/trace.cpp assert the same property at compile time and at run time.
#pragma once

#include <cstddef>

#include <cxmat/attention.hpp>
#include <cxmat/io/trace.hpp>

namespace io_checks {

/// The trace's output and weights are those of multi_head_attention_with_weights<H>, and each
/// step is the one before it put through the public function it names.
template <std::size_t H, class X, class Wq, class Wk, class Wv, class... O>
constexpr bool trace_matches_library(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const O&... opts) {
  const auto t = cxmat::trace_multi_head_attention<H>(x, wq, wk, wv, opts...);
  const auto lib = cxmat::multi_head_attention_with_weights<H>(x, wq, wk, wv, opts...);
  if (!(t.output == lib.output)) return false;
  if (!(t.concat == lib.output)) return false;
  for (std::size_t h = 0; h < H; ++h) {
    if (!(t.weights[h] == lib.weights[h])) return false;
  }
  return true;
}

/// With W_o: the trace's output is multi_head_attention<H>(x, wq, wk, wv, wo, opts...).
template <std::size_t H, class X, class Wq, class Wk, class Wv, class Wo, class... O>
constexpr bool trace_with_wo_matches_library(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo,
                                             const O&... opts) {
  const auto t = cxmat::trace_multi_head_attention<H>(x, wq, wk, wv, wo, opts...);
  if constexpr (cxmat::detail::projection_bias_count<cxmat::projection::output, O...> == 0) {
    // The form without W_o takes no output bias: compare the concatenation only without one.
    if (!(t.concat == cxmat::multi_head_attention<H>(x, wq, wk, wv, opts...))) return false;
  }
  return t.output == cxmat::multi_head_attention<H>(x, wq, wk, wv, wo, opts...);
}

/// Scores of every head recomputed by plain loops from the trace's own q and k:
/// S_h(i, j) = sum_c q(i, h·d_k + c)·k(j, h·d_k + c) / sqrt_dk, within rel_tol.
template <class Trace>
constexpr bool scores_are_scaled_dot_products(const Trace& t, double sqrt_dk, double rel_tol) {
  constexpr std::size_t dk = Trace::head_key_width;
  for (std::size_t h = 0; h < Trace::heads; ++h) {
    for (std::size_t i = 0; i < t.q.rows; ++i) {
      for (std::size_t j = 0; j < t.k.rows; ++j) {
        double s = 0;
        for (std::size_t c = 0; c < dk; ++c) s += t.q(i, h * dk + c) * t.k(j, h * dk + c);
        s /= sqrt_dk;
        const double d = s - t.scores[h](i, j);
        const double mag = s < 0 ? -s : s;
        if ((d < 0 ? -d : d) > rel_tol * mag + 1e-300) return false;
      }
    }
  }
  return true;
}

}  // namespace io_checks
