// Mistake: Float attention on int matrices (the weights would truncate to 0 and 1).
// Rule: softmax and attention compute with real numbers; int8 attention is cxmat::q8.
// Expect: shape_error::softmax_and_attention_need_real_elements<int>
// Expect-plain: error: static assertion failed: softmax and attention need real elements \(floating or fixed point\), not int: integers truncate the weights\.
#include <cxmat/cxmat.hpp>

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<int, 2, 2> Q{{{1, 0}, {0, 1}}};
constexpr auto Z = cxmat::scaled_dot_product_attention(Q, Q, Q);
#else
constexpr cxmat::matrix<double, 2, 2> Q{{{1, 0}, {0, 1}}};
constexpr auto Z = cxmat::scaled_dot_product_attention(Q, Q, Q);
static_assert(Z(0, 0) > 0.5 && Z(0, 0) < 1.0);
#endif
