// Mistake: An infinite entry in X of a constant expression (no finite attention exists for it).
// Rule: constant expressions: every input of attention is finite (bias(b) may hold -inf, a mask).
// Expect: input_must_be_finite_in_a_constant_expression.*projection_input<cxmat::projection::query>
// Expect-plain: input_must_be_finite_in_a_constant_expression.*projection_input<cxmat::projection::query>
#include <limits>

#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 2> W{{{1, 0}, {0, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 2, 2> X{{{1, std::numeric_limits<double>::infinity()}, {3, 4}}};
#else
constexpr cxmat::matrix<double, 2, 2> X{{{1, 2}, {3, 4}}};
#endif
constexpr auto Z = cxmat::self_attention(X, W, W, W);
#ifndef CXMAT_COMPILE_FAIL
static_assert(Z(1, 1) > 3.9 && Z(1, 1) < 4.0);
#endif
