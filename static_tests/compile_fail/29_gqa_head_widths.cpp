// Mistake: Grouped-query attention whose query heads (8 / 4 = 2 wide) and key heads (2 / 2 = 1) differ.
// Rule: grouped-query attention: a query head and its key/value head have the same width d_k.
// Expect: shape_error::grouped_query_head_widths_must_match<cxmat::dim<2, cxmat::anonymous> ?, cxmat::dim<1, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: grouped-query attention: a query head's width \(2\) must equal its key/value head's width \(1\) \(Wq is H.+d_k wide, Wk is H_kv.+d_k wide\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 3, 4> X{};
constexpr cxmat::matrix<double, 4, 8> Wq{};  // 4 query heads of width 2

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 4, 2> Wk{}, Wv{};  // 2 key/value heads of width 1
#else
constexpr cxmat::matrix<double, 4, 4> Wk{}, Wv{};  // 2 key/value heads of width 2
#endif
constexpr auto Z = cxmat::grouped_query_attention<4, 2>(X, X, Wq, Wk, Wv);
#ifndef CXMAT_COMPILE_FAIL
static_assert(Z.rows == 3 && Z.cols == 8);
#endif
