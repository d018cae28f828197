// Piece: the H·n·n exp calls of the layer's softmax, on the same kind of arguments (score minus
// row maximum), one call per loop iteration and nothing else: the cost of cxmat::exp.
#include <cstddef>

#include <cxmat/math.hpp>

#include "intermediates.hpp"

namespace cxmat_bench {

template <class M>
constexpr M exp_each(const M& m) noexcept {
  M out{};
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) out.elems[i][j] = cxmat::exp(m.elems[i][j]);
  }
  return out;
}

constexpr auto y = exp_each(exp_args);
static_assert(finite_and_nonzero(y), "exp: a result is not finite");

}  // namespace cxmat_bench
