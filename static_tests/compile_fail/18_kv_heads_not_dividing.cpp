// Mistake: Grouped-query attention with H = 4 query heads and H_kv = 3 key/value heads.
// Rule: grouped-query attention: H_kv divides H (each key/value head serves H / H_kv query heads).
// Expect: shape_error::grouped_query_h_kv_must_divide_h
// Expect-plain: error: static assertion failed: grouped-query attention: H_kv = 3 key/value heads must divide H = 4 query heads \(query head i reads key/value head i / \(H / H_kv\)\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 4> X{};
constexpr cxmat::matrix<double, 4, 4> Wq{};  // 4 query heads of width 1
constexpr cxmat::matrix<double, 4, 4> Wo{};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, 4, 3> Wk{}, Wv{};  // 3 key/value heads
constexpr auto out = cxmat::grouped_query_attention<4, 3>(X, X, Wq, Wk, Wv, Wo);
#else
constexpr cxmat::matrix<double, 4, 2> Wk{}, Wv{};  // 2 key/value heads
constexpr auto out = cxmat::grouped_query_attention<4, 2>(X, X, Wq, Wk, Wv, Wo);
static_assert(out.rows == 2 && out.cols == 4);
#endif
