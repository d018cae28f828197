// Mistake: W_o given as d_model x (H·d_v) instead of (H·d_v) x d_model (worksheet 001: 2 x 4).
// Rule: multi-head attention: W_o has one row per concatenated head column, H·d_v.
// Expect: shape_error::output_projection_wo_rows_must_equal_h_times_d_v<cxmat::dim<4, cxmat::anonymous>, cxmat::dim<2, cxmat::anonymous> ?>
// Expect-plain: error: static assertion failed: multi-head attention: W_o's rows \(2\) must equal the columns of the concatenated heads \(4\) \(Concat\(heads\) is n x H.+d_v, W_o is H.+d_v x d_model\)\.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 2> X{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<double, 2, 4> Wq{{{1, 0, 0, 1}, {0, 1, 1, 0}}}, Wk{{{0, 1, 1, 0}, {1, 0, 0, 1}}};
constexpr cxmat::matrix<double, 2, 4> Wv{{{1, 0, 0, 1}, {0, -1, -1, 0}}};
constexpr cxmat::matrix<double, 2, 4> Wo_transposed{{{1, 0, -1, 0}, {0, 1, 0, -1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto M = cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, Wo_transposed);
#else
constexpr auto M = cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, cxmat::transpose(Wo_transposed));
static_assert(M(0, 0) > 6.9 && M(0, 0) < 7.0);
#endif
