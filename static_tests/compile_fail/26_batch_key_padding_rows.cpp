// Mistake: Key padding for 3 sequences given to a batch of 2 sequences.
// Rule: batch_key_padding(keep): keep is B x S, one row per batch item.
// Expect: shape_error::batch_key_padding_must_have_one_row_per_item
// Expect-plain: error: static assertion failed: batched attention: batch_key_padding\(keep\) needs one row per batch item, B \(2\) rows \(keep is B x S, row b for item b\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::batch<double, 2, 3, 4> X{};
constexpr cxmat::matrix<double, 4, 4> W{};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<bool, 3, 3> keep{{{true, true, true}, {true, false, false}, {true, true, false}}};
#else
constexpr cxmat::matrix<bool, 2, 3> keep{{{true, true, true}, {true, false, false}}};
#endif
constexpr auto Z = cxmat::multi_head_attention<2>(X, W, W, W, W, cxmat::batch_key_padding(keep));
#ifndef CXMAT_COMPILE_FAIL
static_assert(Z.count == 2 && Z.rows == 3 && Z.cols == 4);
#endif
