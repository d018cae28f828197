// Mistake: A feed-forward network whose first weight is 8 x 16 and second 8 x 8 (d_ff = 16 expected).
// Rule: feed_forward: w1 is d_model x d_ff, w2 is d_ff x d_model.
// Expect: shape_error::feed_forward_hidden_widths_must_match<cxmat::dim<16, d_ff_dim> ?, cxmat::dim<8, d_model_dim> ?>
// Expect-plain: error: static assertion failed: feed-forward d_model -> d_ff -> d_model: w1's columns \(16, d_ff\) must equal w2's rows \(8, d_model\) \(w1 is d_model x d_ff, w2 is d_ff x d_model\)\.
#include <cxmat/transformer.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 8);
CXMAT_DIM(d_ff, 16);

constexpr cxmat::matrix<double, n, d_model> X{};
constexpr cxmat::matrix<double, d_model, d_ff> w1{};
constexpr cxmat::matrix<double, 1, d_ff> b1{};
constexpr cxmat::matrix<double, 1, d_model> b2{};

#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<double, d_model, d_model> w2{};
#else
constexpr cxmat::matrix<double, d_ff, d_model> w2{};
#endif
inline constexpr auto Y = cxmat::feed_forward<cxmat::activation::relu>(X, w1, b1, w2, b2);
