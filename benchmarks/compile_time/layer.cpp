// One multi-head self-attention layer with output projection, n = d = CXMAT_BENCH_N, H =
// CXMAT_BENCH_HEADS, evaluated in a single constant expression. Compiling this file is the
// benchmark; the inputs are separate constant expressions (see inputs_only.cpp for their cost).
#include <cxmat/attention/multi_head.hpp>

#include "inputs.hpp"

namespace cxmat_bench {

constexpr auto y = cxmat::multi_head_attention<heads>(X, Wq, Wk, Wv, Wo);
static_assert(finite_and_nonzero(y), "multi_head_attention: the layer's output is not finite");

}  // namespace cxmat_bench
