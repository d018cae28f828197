// matmul_transposed(a, bt): the right operand is stored transposed (C x K), so its columns, not
// its rows, must match a's columns. Passing b (K x C) instead of bt is the usual mistake.
// Expect: matmul_transposed_a_cols_must_equal_bt_cols
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
