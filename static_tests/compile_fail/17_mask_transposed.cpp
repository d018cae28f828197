// Mistake: A mask written S x L (keys by queries) instead of L x S, with 2 queries and 3 keys.
// Rule: attention options: a mask is L x S (true = may attend), checked in its type.
// Expect: shape_error::attention_options_must_fit_l_by_s_scores<cxmat::dim<2, cxmat::anonymous>, ?cxmat::dim<3, cxmat::anonymous>
// Expect-plain: error: static assertion failed: attention options must fit the L x S scores \(2\) x \(3\): mask\(m\) and bias\(b\) are L x S, key_padding\(k\) is 1 x S, of the scores' element type; given: mask \(3\) x \(2\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 4> Q{};
constexpr cxmat::matrix<double, 3, 4> K{};
constexpr cxmat::matrix<double, 3, 4> V{};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<bool, 3, 2> allowed{};
#else
constexpr cxmat::matrix<bool, 2, 3> allowed{};
#endif
constexpr auto out = cxmat::scaled_dot_product_attention(Q, K, V, cxmat::mask(allowed));
#ifndef CXMAT_COMPILE_FAIL
static_assert(out.rows == 2 && out.cols == 4);
#endif
