// Mistake: float inputs with double projection weights (cxmat does not promote silently).
// Rule: attention: every matrix of one call has the same element type.
// Expect: shape_error::attention_element_types_must_match<float, float, double
// Expect-plain: error: static assertion failed: attention: every matrix of one call must have the same element type, but they are float, float, double, double, double; convert explicitly\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<float, 2, 2> X{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<float, 2, 2> Wf{{{1, 0}, {0, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 2, 2> Wd{{{1, 0}, {0, 1}}};
constexpr auto Z = cxmat::self_attention(X, Wd, Wd, Wd);
#else
constexpr auto Z = cxmat::self_attention(X, Wf, Wf, Wf);
static_assert(Z(1, 1) > 3.9f && Z(1, 1) < 4.0f);
#endif
