// Mistake: The block form called without its number of heads: multi_head_attention(X, ...).
// Rule: multi-head attention in block form: H is the first template argument, multi_head_attention<H>.
// Expect: shape_error::multi_head_attention_needs_h_as_template_argument
// Expect-plain: error: static assertion failed: multi_head_attention\(X, Wq, Wk, Wv, \.\.\.\): the number of heads H is not given and cannot be deduced from the matrices: write multi_head_attention<H>\(X, Wq, Wk, Wv, Wo\), H dividing X's columns \(4\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 4> X{};
constexpr cxmat::matrix<double, 4, 4> W{};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto Z = cxmat::multi_head_attention(X, W, W, W, W);
#else
constexpr auto Z = cxmat::multi_head_attention<2>(X, W, W, W, W);
static_assert(Z.rows == 2 && Z.cols == 4);
#endif
