// Mistake: Asking for head 2 of 2 heads (heads are numbered from 0).
// Rule: column_block<I, H>(m): I < H.
// Expect: shape_error::column_block_index_must_be_below_h<2, 2>
// Expect-plain: error: static assertion failed: column_block<I, H>\(m\): the block index I = 2 must be below H = 2; blocks are numbered 0 \.\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 4> Q{{{1, 2, 3, 4}, {5, 6, 7, 8}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto second_head = cxmat::column_block<2, 2>(Q);
#else
constexpr auto second_head = cxmat::column_block<1, 2>(Q);
static_assert(second_head(1, 0) == 7);
#endif
