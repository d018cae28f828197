// Mistake: Queries and keys near 1e200: their dot products leave the range of double.
// Rule: constant expressions: d_k·max|Q|·max|K| (scaled, plus the bias) fits in T, or the scores could overflow.
// Expect: product_could_overflow_in_a_constant_expression.*input::scores
// Expect-plain: product_could_overflow_in_a_constant_expression.*input::scores
#include <cxmat/cxmat.hpp>

#ifdef CXMAT_COMPILE_FAIL
constexpr double big = 1e200;
#else
constexpr double big = 1e100;
#endif
constexpr cxmat::matrix<double, 2, 2> Q{{{big, 0}, {0, big}}};
constexpr auto w = cxmat::attention_weights(Q, Q);
#ifndef CXMAT_COMPILE_FAIL
static_assert(w(0, 0) == 1.0 && w(0, 1) == 0.0);
#endif
