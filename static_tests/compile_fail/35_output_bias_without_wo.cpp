// Mistake: An output bias on multi-head attention without W_o (it would be silently dropped).
// Rule: output_bias(b) is added to Concat(heads)·W_o: it needs the form with W_o.
// Expect: shape_error::output_bias_needs_w_o
// Expect-plain: static assertion failed: output_bias\(b\): the bias is added to Concat\(heads\).*W_o, and this call has no W_o
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 4> X{{{1, 0, 1, 0}, {0, 1, 0, 1}}};
constexpr cxmat::matrix<double, 4, 4> W{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
constexpr cxmat::matrix<double, 1, 4> b{{{1, 1, 1, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Z = cxmat::multi_head_attention<2>(X, W, W, W, cxmat::output_bias(b));
#else
constexpr auto Z = cxmat::multi_head_attention<2>(X, W, W, W, W, cxmat::output_bias(b));
static_assert(Z(0, 0) == cxmat::multi_head_attention<2>(X, W, W, W, W)(0, 0) + 1.0);
#endif
