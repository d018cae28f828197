// Piece: softmax_rows on the H heads' scores stacked, (H·n) x n: the layer's softmax work.
#include <cxmat/ops/softmax.hpp>

#include "intermediates.hpp"

namespace cxmat_bench {

constexpr auto y = cxmat::softmax_rows(scores);
static_assert(finite_and_nonzero(y), "softmax_rows: the weights are not finite");

}  // namespace cxmat_bench
