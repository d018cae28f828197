// Mistake: Partial rotary asking for more columns than a head has (rotary<8> on heads of width 4).
// Rule: rotary<RotaryDims>() turns pairs among the first RotaryDims columns of each head: an even number, at most d_k.
// Expect: shape_error::rotary_dims_must_be_even_and_at_most_d_k
// Expect-plain: static assertion failed: rotary<8>\(\): the rotated columns \(8\) must be an even number, at most the head width d_k \(4\)
#include <cxmat/cxmat.hpp>

constexpr auto X = cxmat::filled<double, 3, 8>(0.5);
constexpr auto W = cxmat::identity<double, 8>();
#ifdef CXMAT_COMPILE_FAIL
constexpr auto Y = cxmat::multi_head_attention<2>(X, W, W, W, cxmat::rotary<8>());
#else
constexpr auto Y = cxmat::multi_head_attention<2>(X, W, W, W, cxmat::rotary<2>());
static_assert(Y(2, 7) == 0.5);  // equal values: any weights average them to 0.5
#endif
