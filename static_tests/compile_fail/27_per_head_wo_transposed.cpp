// Mistake: A transposed W_o in the per-head form (worksheet 001: two heads of width d_v = 2).
// Rule: multi-head attention: W_o has one row per concatenated head column (H·d_v rows).
// Expect: shape_error::output_projection_wo_rows_must_equal_h_times_d_v<cxmat::dim<4, cxmat::times<2, d_v_dim> ?>, cxmat::dim<2, d_model_dim> ?>
// Expect-plain: error: static assertion failed: multi-head attention: W_o's rows \(2, d_model\) must equal the columns of the concatenated heads \(4, 2\*d_v\) \(Concat\(heads\) is n x H.+d_v, W_o is H.+d_v x d_model\)\.
#include <cxmat/cxmat.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 2);
CXMAT_DIM(d_v, 2);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 2}, {3, 4}}};
constexpr cxmat::matrix<double, d_model, d_v> W{{{1, 0}, {0, 1}}};
constexpr auto heads = cxmat::make_heads(cxmat::attention_head{W, W, W}, cxmat::attention_head{W, W, W});

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, d_model, cxmat::times_v<2, d_v>> Wo{};
#else
constexpr cxmat::matrix<double, cxmat::times_v<2, d_v>, d_model> Wo{};
#endif
constexpr auto Z = cxmat::multi_head_attention(X, heads, Wo);
#ifndef CXMAT_COMPILE_FAIL
static_assert(Z.rows == 2 && Z.cols == 2);
#endif
