// Mistake: Two scale() options in one call (only one scale can apply to the scores).
// Rule: attention options: at most one scale() and at most one bias per projection in one call.
// Expect: shape_error::attention_options_conflict
// Expect-plain: error: static assertion failed: attention options conflict: one call takes at most one scale\(\.\.\.\) and at most one bias per projection\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 2> Q{{{1, 0}, {0, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto w = cxmat::attention_weights(Q, Q, cxmat::scale(0.5), cxmat::scale(0.25));
#else
constexpr auto w = cxmat::attention_weights(Q, Q, cxmat::scale(0.5));
static_assert(w(0, 0) > w(0, 1));
#endif
