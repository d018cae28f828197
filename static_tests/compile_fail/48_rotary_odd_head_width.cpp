// Mistake: Rotary position embedding on heads of odd width (d_model = 6 split into H = 2 heads of 3).
// Rule: rotary() turns pairs of each head's query and key columns: the head width d_k must be even.
// Expect: shape_error::rotary_head_width_must_be_even
// Expect-plain: static assertion failed: rotary position embedding: the head width d_k \(3\) must be even
#include <cxmat/cxmat.hpp>

constexpr auto X = cxmat::filled<double, 3, 6>(0.5);
constexpr auto W = cxmat::identity<double, 6>();
#ifdef CXMAT_COMPILE_FAIL
constexpr auto Y = cxmat::multi_head_attention<2>(X, W, W, W, cxmat::causal, cxmat::rotary());
#else
constexpr auto Y = cxmat::multi_head_attention<3>(X, W, W, W, cxmat::causal, cxmat::rotary());
static_assert(Y(2, 5) == 0.5);  // equal values: any weights average them to 0.5
#endif
