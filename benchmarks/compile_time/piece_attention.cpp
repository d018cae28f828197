// Piece: the attention part of the layer alone, all H heads on given projections Q, K, V
// (scores, softmax, weighted sum of values): multi_head_attention_qkv<H>(Q, K, V).
#include <cxmat/attention/multi_head.hpp>

#include "intermediates.hpp"

namespace cxmat_bench {

constexpr auto y = cxmat::multi_head_attention_qkv<heads>(Q, K, V);
static_assert(finite_and_nonzero(y), "multi_head_attention_qkv: the output is not finite");

}  // namespace cxmat_bench
