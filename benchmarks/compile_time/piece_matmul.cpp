// Piece: one n x d by d x d product, X·Wq. The layer does four (Q, K, V and W_o).
#include <cxmat/ops/arithmetic.hpp>

#include "inputs.hpp"

namespace cxmat_bench {

constexpr auto y = cxmat::matmul(X, Wq);
static_assert(finite_and_nonzero(y), "matmul: the product is not finite");

}  // namespace cxmat_bench
