// Mistake: A square W_o given transposed, as PyTorch stores out_proj.weight (d_model = H·d_v = 4, so only the names differ).
// Rule: multi-head attention: W_o has one row per concatenated head column (H·d_v rows); the sentence's first advice is the transpose, the one that fixes it.
// Expect: shape_error::output_projection_wo_rows_must_equal_h_times_d_v<cxmat::dim<4, cxmat::times<2, d_v_dim> ?>, cxmat::dim<4, d_model_dim> ?>
// Expect-plain: error: static assertion failed: multi-head attention: W_o's rows \(4, d_model\) must equal the columns of the concatenated heads \(4, 2\*d_v\) .* if W_o is d_model x H.d_v \(PyTorch's out_proj.weight\), pass transpose\(W_o\)
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);
using cxmat::times_v;

constexpr cxmat::matrix<double, n, d_model> X{{{1, 0, 1, 0}, {0, 1, 0, 1}}};
constexpr cxmat::matrix<double, d_model, times_v<2, d_k>> Wq{{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}}};
constexpr cxmat::matrix<double, d_model, times_v<2, d_v>> Wv{{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}}};
// out_proj.weight as PyTorch stores it: d_model x (H·d_v), the transpose of the W_o cxmat takes.
constexpr cxmat::matrix<double, d_model, times_v<2, d_v>> Wo_torch{
    {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto out = cxmat::multi_head_attention<2>(X, Wq, Wq, Wv, Wo_torch);
#else
constexpr auto out = cxmat::multi_head_attention<2>(X, Wq, Wq, Wv, cxmat::transpose(Wo_torch));
static_assert(cxmat::shape_text(out) == "2 x 4 (n x d_model)");
#endif
