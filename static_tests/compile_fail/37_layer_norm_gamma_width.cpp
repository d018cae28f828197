// Mistake: A layer norm whose gamma has 4 entries for rows of width d_model = 8.
// Rule: layer_norm(x, gamma, beta, eps): gamma and beta are 1 x d for x of n x d.
// Expect: shape_error::norm_gamma_and_beta_must_be_1_by_x_cols<cxmat::dim<4, cxmat::anonymous> ?, cxmat::dim<8, d_model_dim> ?>
// Expect-plain: error: static assertion failed: layer_norm\(x, gamma, beta, eps\) / rms_norm\(x, gamma, eps\): gamma's \(or beta's\) columns \(4\) must equal x's columns \(8, d_model\)
#include <cxmat/transformer.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 8);

constexpr cxmat::matrix<double, n, d_model> X{{{1, 2, 3, 4, 5, 6, 7, 8}, {8, 7, 6, 5, 4, 3, 2, 1}}};
constexpr cxmat::matrix<double, 1, d_model> beta{};

#ifdef CXMAT_COMPILE_FAIL
constexpr auto gamma = cxmat::filled<double, 1, 4>(1.0);
#else
constexpr auto gamma = cxmat::filled<double, 1, d_model>(1.0);
#endif
inline constexpr auto Y = cxmat::layer_norm(X, gamma, beta, 1e-5);
