// Mistake: int8 matmul_transposed given b (K x C) where the transposed operand bt (C x K) belongs.
// Rule: q8::matmul_transposed(a, bt): a is R x K, bt is C x K: a.cols must equal bt.cols.
// Expect: shape_error::matmul_transposed_a_cols_must_equal_bt_cols
// Expect-plain: error: static assertion failed: q8::matmul_transposed\(a, bt\): a's columns \(3\) must equal bt's columns \(4\): bt is the right operand stored transposed, C x K like TFLite's fully-connected weights\. Given as K x C\? Pass transpose\(b\)\.
#include <cstdint>

#include <cxmat/quantized/matmul.hpp>

constexpr cxmat::matrix<std::int8_t, 2, 3> a{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::int8_t, 3, 4> b{};  // K x C: not transposed
inline constexpr auto y = cxmat::q8::matmul_transposed(a, b, cxmat::q8::matmul_params{0, 0, 0, {1 << 30, 0}});
#else
constexpr cxmat::matrix<std::int8_t, 4, 3> bt{};  // C x K
inline constexpr auto y = cxmat::q8::matmul_transposed(a, bt, cxmat::q8::matmul_params{0, 0, 0, {1 << 30, 0}});
#endif
