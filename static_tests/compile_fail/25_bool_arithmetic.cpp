// Mistake: Multiplying two boolean masks as if they were numbers.
// Rule: arithmetic: bool matrices are masks, not numbers; pass them to mask() or key_padding().
// Expect: shape_error::arithmetic_needs_numbers_not_bool<bool>
// Expect-plain: error: static assertion failed: arithmetic on matrices of bool: bool matrices are masks, pass them to mask\(m\) or key_padding\(k\) instead\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<bool, 2, 2> allowed{{{true, false}, {true, true}}};
constexpr cxmat::matrix<double, 2, 2> Q{{{1, 0}, {0, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto both = cxmat::matmul(allowed, allowed);
#else
constexpr auto w = cxmat::attention_weights(Q, Q, cxmat::mask(allowed));
static_assert(w(0, 0) == 1.0 && w(0, 1) == 0.0);
#endif
