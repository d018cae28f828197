// Baseline for the piece_*.cpp benchmarks: their inputs and intermediates, and no piece. Each
// check is its own constant expression, so none of them costs more than one input.
#include <cxmat/attention/multi_head.hpp>
#include <cxmat/math.hpp>
#include <cxmat/ops/softmax.hpp>

#include "intermediates.hpp"

namespace cxmat_bench {

static_assert(finite_and_nonzero(Q), "intermediates: Q is not finite");
static_assert(finite_and_nonzero(K), "intermediates: K is not finite");
static_assert(finite_and_nonzero(V), "intermediates: V is not finite");
static_assert(finite_and_nonzero(scores), "intermediates: scores is not finite");
static_assert(finite_and_nonzero(exp_args), "intermediates: exp_args is not finite");

}  // namespace cxmat_bench
