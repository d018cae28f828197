// Mistake: A batch key padding (one row per sequence) given to attention on a single sequence.
// Rule: batch_key_padding(keep) gives row b to item b of a batch; one sequence takes key_padding(row).
// Expect: shape_error::batch_key_padding_needs_a_batch
// Expect-plain: static assertion failed: batch_key_padding\(keep\): row b of keep is the key padding of item b of a batch
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 2> Q{{{1, 0}, {0, 1}}};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<bool, 2, 2> keep{{{true, false}, {true, true}}};
constexpr auto w = cxmat::attention_weights(Q, Q, cxmat::batch_key_padding(keep));
#else
constexpr auto w = cxmat::attention_weights(Q, Q, cxmat::key_padding(cxmat::matrix<bool, 1, 2>{{{true, false}}}));
static_assert(w(0, 0) == 1.0 && w(1, 1) == 0.0);
#endif
