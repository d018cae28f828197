// Mistake: An int8 bias with one entry per input column instead of one per output column.
// Rule: q8::matmul_transposed(a, bt, bias): bias is 1 x C, C = bt.rows.
// Expect: shape_error::matmul_transposed_bias_must_be_1_by_bt_rows
// Expect-plain: error: static assertion failed: q8::matmul_transposed\(a, bt, bias\): the bias has one int32 per output column: its columns \(3\) must equal bt's rows \(4\) \(bias is 1 x C, bt is C x K\)\.
#include <cstdint>

#include <cxmat/quantized/matmul.hpp>

constexpr cxmat::matrix<std::int8_t, 2, 3> a{};
constexpr cxmat::matrix<std::int8_t, 4, 3> bt{};
#ifdef CXMAT_COMPILE_FAIL
constexpr cxmat::matrix<std::int32_t, 1, 3> bias{};  // sized by K instead of C
#else
constexpr cxmat::matrix<std::int32_t, 1, 4> bias{};
#endif
inline constexpr auto y = cxmat::q8::matmul_transposed(a, bt, bias, cxmat::q8::matmul_params{0, 0, 0, {1 << 30, 0}});
