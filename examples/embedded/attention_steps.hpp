// The computations of the embedded example, one function each, shared by the firmware, the host
// check and the host benchmark.
#pragma once

#include <cxmat/attention/multi_head.hpp>
#include <cxmat/ops/arithmetic.hpp>

#include "model.hpp"

namespace model {

/// m, with the optimiser no longer knowing that it is a constant. GCC folds a product of two
/// constexpr matrices on its own when it can see them; the baseline that deliberate folding is
/// measured against must really compute at run time.
template <class M>
const M& not_folded(const M& m) noexcept {
  const M* p = &m;
  __asm__("" : "+r"(p));  // p may have changed: its target is unknown from here on
  return *p;
}

/// Multi-head self-attention with W_o over a frame: n x d_model -> n x d_model.
inline frame self_attention_step(const frame& x) noexcept {
  return cxmat::multi_head_attention<heads>(x, wq, wk, wv, wo);
}

/// The frame's queries attend to the fixed context, whose keys and values are projected at run
/// time, on every call.
inline frame cross_attention_step(const frame& x) noexcept {
  const memory_rows& c = not_folded(memory);
  return cxmat::matmul(cxmat::multi_head_attention_qkv<heads>(cxmat::matmul(x, wq), cxmat::matmul(c, not_folded(wk)),
                                                              cxmat::matmul(c, not_folded(wv))),
                       wo);
}

/// The same computation with the context's keys and values folded at compile time
/// (memory_keys, memory_values): two S x d x d products fewer per call, and the context and
/// W_k, W_v need not be stored at all.
inline frame cross_attention_step_folded(const frame& x) noexcept {
  return cxmat::matmul(cxmat::multi_head_attention_qkv<heads>(cxmat::matmul(x, wq), memory_keys, memory_values), wo);
}

}  // namespace model
