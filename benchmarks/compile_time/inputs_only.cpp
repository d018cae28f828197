// Baseline for layer.cpp: the same headers and the same generated inputs, and no layer. The
// difference between the two is the cost of the layer itself. Each check is its own constant
// expression, so none of them costs more than one input.
#include <cxmat/attention/multi_head.hpp>

#include "inputs.hpp"

namespace cxmat_bench {

static_assert(finite_and_nonzero(X), "inputs: X is not finite");
static_assert(finite_and_nonzero(Wq), "inputs: Wq is not finite");
static_assert(finite_and_nonzero(Wk), "inputs: Wk is not finite");
static_assert(finite_and_nonzero(Wv), "inputs: Wv is not finite");
static_assert(finite_and_nonzero(Wo), "inputs: Wo is not finite");

}  // namespace cxmat_bench
