// TFLite / CMSIS-NN integer arithmetic at compile time: hand-computed cases (rounding ties,
// negative values, saturation, the multiplier's frexp, softmax's fixed values and diff_min
// cut-off, activation clamping) and agreement with the independent reference.
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cxmat/quantized.hpp>

#include "test_support/rejection.hpp"
#include "test_support/tflite_reference.hpp"

namespace q8_static_arith {

namespace q8 = cxmat::q8;
using cxmat::matrix;
constexpr std::int32_t min32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t max32 = std::numeric_limits<std::int32_t>::max();

// SaturatingRoundingDoublingHighMul: a·b/2^31, ties toward +inf, the one overflow saturates.
static_assert(q8::saturating_rounding_doubling_high_mul(min32, min32) == max32);
static_assert(q8::saturating_rounding_doubling_high_mul(min32, max32) == -max32);  // -(2^31 - 1) exactly
static_assert(q8::saturating_rounding_doubling_high_mul(1 << 30, 1 << 30) == 1 << 29);
static_assert(q8::saturating_rounding_doubling_high_mul(1, 1 << 30) == 1);    //  0.5 -> 1
static_assert(q8::saturating_rounding_doubling_high_mul(-1, 1 << 30) == 0);   // -0.5 -> 0
static_assert(q8::saturating_rounding_doubling_high_mul(3, 1 << 30) == 2);    //  1.5 -> 2
static_assert(q8::saturating_rounding_doubling_high_mul(-3, 1 << 30) == -1);  // -1.5 -> -1
static_assert(q8::saturating_rounding_doubling_high_mul(-5, 1 << 29) == -1);  // -1.25 -> -1

// RoundingDivideByPOT: x/2^e, ties away from zero.
static_assert(q8::rounding_divide_by_pot(5, 1) == 3 && q8::rounding_divide_by_pot(-5, 1) == -3);
static_assert(q8::rounding_divide_by_pot(4, 1) == 2 && q8::rounding_divide_by_pot(-4, 1) == -2);
static_assert(q8::rounding_divide_by_pot(7, 2) == 2 && q8::rounding_divide_by_pot(-6, 2) == -2);
static_assert(q8::rounding_divide_by_pot(-5, 2) == -1 && q8::rounding_divide_by_pot(5, 2) == 1);
static_assert(q8::rounding_divide_by_pot(min32, 31) == -1 && q8::rounding_divide_by_pot(max32, 31) == 1);
static_assert(q8::rounding_divide_by_pot(123, 0) == 123);

// QuantizeMultiplier: frexp, round half away, 2^31 folded back, tiny factors flushed.
static_assert(q8::quantize_multiplier(0.5) == q8::requantizer{1 << 30, 0});
static_assert(q8::quantize_multiplier(1.0) == q8::requantizer{1 << 30, 1});
static_assert(q8::quantize_multiplier(0.75) == q8::requantizer{1610612736, 0});
static_assert(q8::quantize_multiplier(-0.5) == q8::requantizer{-(1 << 30), 0});
static_assert(q8::quantize_multiplier(0x1p-31) == q8::requantizer{1 << 30, -30});
static_assert(q8::quantize_multiplier(0x1p-32) == q8::requantizer{1 << 30, -31});
static_assert(q8::quantize_multiplier(0x1p-33) == q8::requantizer{0, 0});                    // shift would be -32
static_assert(q8::quantize_multiplier(1.0 - 0x1p-40) == q8::requantizer{1 << 30, 1});        // rounds up to 2^31
static_assert(q8::quantize_multiplier(0.5 + 0x1p-32) == q8::requantizer{(1 << 30) + 1, 0});  // tie: away from zero
static_assert(q8::quantize_multiplier(0.5 + 0x1p-33) == q8::requantizer{1 << 30, 0});        // 2^30 + 0.25: down
// Shifts stay in [-31, 30]: 2^29 = 0.5 · 2^30 is the largest power of two with its own shift;
// beyond, TFLite's saturation to {2^31 - 1, 30} (3e9 = (1.5e9 / 2^31) · 2^32 would need shift 32).
static_assert(q8::quantize_multiplier(0x1p29) == q8::requantizer{1 << 30, 30});
static_assert(q8::quantize_multiplier(0x1p30 - 64) == q8::requantizer{max32 - 127, 30});  // (2^31 - 128) · 2^-1
static_assert(q8::quantize_multiplier(0x1p30 - 0x1p-22) == q8::requantizer{max32, 30});   // rounds up to 2^30
static_assert(q8::quantize_multiplier(0x1p30) == q8::requantizer{max32, 30});
static_assert(q8::quantize_multiplier(3e9) == q8::requantizer{max32, 30});
static_assert(q8::quantize_multiplier(1e12) == q8::requantizer{max32, 30});  // was {1953125000, 40}
static_assert(q8::quantize_multiplier(-1e12) == q8::requantizer{-max32, 30});
static_assert(q8::requantize(1, q8::quantize_multiplier(1e12)) == 1 << 30);  // 1 · (2^31 - 1) · 2^-1 rounded
static_assert(q8::quantize_multiplier(0.0) == q8::requantizer{0, 0});

// MultiplyByQuantizedMultiplier: double rounding is the reference behaviour.
static_assert(q8::requantize(100, {1 << 30, 0}) == 50);
static_assert(q8::requantize(6, {1 << 30, -1}) == 2 && q8::requantize(-6, {1 << 30, -1}) == -2);  // ±1.5
static_assert(q8::requantize(1, {1610612736, -1}) == 1);        // 0.375: 0.75 -> 1, then 0.5 -> 1 (single rounding: 0)
static_assert(q8::requantize(1 << 30, {1 << 30, 2}) == max32);  // 2^31 saturates (TFLite's int32 product wraps to 0)
static_assert(q8::requantize(4, {1 << 30, 30}) == max32 && q8::requantize(-4, {1 << 30, 30}) == min32);
static_assert(q8::requantize(4, {1 << 30, 30}) == q8_ref::mbqm(4, 1 << 30, 30));
static_assert(q8::requantize(3, {1 << 30, 30}) == 3 << 29);
static_assert(q8::requantize(-7, {1 << 30, 3}) == -28);      // -7 · 4
static_assert(q8::requantize(100, {-(1 << 30), 0}) == -50);  // a negative factor, as quantize_multiplier(-0.5)

// What a requantizer may hold: multiplier 0 or |multiplier| in [2^30, 2^31), shift in [-31, 30]
// (anything else is refused where it is made, by make_requantizer and q8::check, and where it is
// used in a constant expression: compile_fail 46, 52 and 63, and the run-time tests).
static_assert(q8::make_requantizer(1 << 30, 30).ok() &&
              q8::make_requantizer(1 << 30, 30).value == q8::requantizer{1 << 30, 30});
static_assert(q8::status_of({214748365, 0}) == q8::requantizer_status::multiplier_not_normalized);
static_assert(q8::status_of({1 << 30, 40}) == q8::requantizer_status::shift_out_of_range);
static_assert(q8::status_of({1 << 30, -32}) == q8::requantizer_status::shift_out_of_range);
// make_requantizer of a broken requantizer is not a constant expression (its named error).
template <std::int32_t M, std::int32_t S>
concept constant_requantizer = requires {
  typename std::integral_constant<bool, q8::make_requantizer(M, S).ok()>;
};
static_assert(constant_requantizer<1 << 30, 30> && constant_requantizer<0, -31> && constant_requantizer<-max32, 0>);
static_assert(!constant_requantizer<214748365, 0> && !constant_requantizer<1 << 30, 40> &&
              !constant_requantizer<1 << 30, -32>);
static_assert(q8::valid_requantizer({0, 0}) && q8::valid_requantizer({0, -31}) && q8::valid_requantizer({1 << 30, 30}));
static_assert(q8::valid_requantizer({max32, -31}) && q8::valid_requantizer({-max32, 0}) &&
              q8::valid_requantizer({-(1 << 30), 0}));
static_assert(!q8::valid_requantizer({(1 << 30) - 1, 0}) && !q8::valid_requantizer({-(1 << 30) + 1, 0}));
static_assert(!q8::valid_requantizer({1, 0}) && !q8::valid_requantizer({-1, 0}) && !q8::valid_requantizer({min32, 0}));
static_assert(!q8::valid_requantizer({1 << 30, 31}) && !q8::valid_requantizer({1 << 30, -32}));
static_assert(q8::valid_requantizer(q8::quantize_multiplier(1e12)) &&
              q8::valid_requantizer(q8::quantize_multiplier(-1e-9)));

// Softmax parameters: input_scale 0.1 -> 0.1·2^26 = 0.8·2^23; diff_min = -floor(31·2^26 / 2^23).
static_assert(q8::make_softmax_params(0.1) == q8::softmax_params{1717986918, 23, -248});
static_assert(q8::make_softmax_params(1.0) == q8::softmax_params{1 << 30, 27, -15});
static_assert(q8::make_softmax_params(0.05, 2.0) == q8::make_softmax_params(0.1));
// What softmax_params may hold: multiplier 0 or in [2^30, 2^31), left_shift in [0, 31], diff_min <= 0.
static_assert(q8::valid_softmax_params(q8::make_softmax_params(0.1)) && q8::valid_softmax_params({0, 0, 0}));
static_assert(q8::valid_softmax_params({max32, 31, min32}));
static_assert(!q8::valid_softmax_params({(1 << 30) - 1, 20, -4}) && !q8::valid_softmax_params({-(1 << 30), 20, -4}));
static_assert(!q8::valid_softmax_params({1 << 30, 32, -4}) && !q8::valid_softmax_params({1 << 30, -1, -4}));
static_assert(!q8::valid_softmax_params({1 << 30, 20, 1}));

// exp_on_negative_values: exp(0) = 1 (INT32_MAX); exp(-1) = 790015084.0 / 2^31 and exp(-1/4) =
// 1672461947.2 / 2^31 to within the Taylor remainder on [-1/8, 1/8], (1/8)^5 / 120 · 2^31 = 546.
static_assert(q8::detail::exp_on_negative_values(0) == max32);
constexpr std::int32_t exp_error(std::int32_t got, std::int32_t want) { return got > want ? got - want : want - got; }
static_assert(exp_error(q8::detail::exp_on_negative_values(-(1 << 26)), 790015084) <= 546);
static_assert(exp_error(q8::detail::exp_on_negative_values(-(1 << 24)), 1672461947) <= 546);

// Softmax of equal entries: 1/n exactly representable for n = 1, 2, 4 (1 saturates to 127).
static_assert(q8::softmax_rows(matrix<std::int8_t, 1, 1>{{{-7}}}, q8::make_softmax_params(0.1)) ==
              matrix<std::int8_t, 1, 1>{{{127}}});
static_assert(q8::softmax_rows(matrix<std::int8_t, 1, 2>{{{5, 5}}}, q8::make_softmax_params(0.1)) ==
              matrix<std::int8_t, 1, 2>{{{0, 0}}});
static_assert(q8::softmax_rows(matrix<std::int8_t, 2, 4>{{{-128, -128, -128, -128}, {127, 127, 127, 127}}},
                               q8::make_softmax_params(0.1)) ==
              matrix<std::int8_t, 2, 4>{{{-64, -64, -64, -64}, {-64, -64, -64, -64}}});

// diff_min cut-off: with left_shift 20 and multiplier 2^30 a difference d is d/128 in real terms,
// so exp(-4/128) is large; diff_min = -3 keeps d = -3 and drops d = -4 (probability exactly 0).
constexpr q8::softmax_params wide{1 << 30, 20, -3};
constexpr auto cut = q8::softmax_rows(matrix<std::int8_t, 1, 3>{{{10, 7, 6}}}, wide);
static_assert(cut(0, 2) == -128 && cut(0, 1) > -10 && cut(0, 0) > -10);
constexpr auto kept = q8::softmax_rows(matrix<std::int8_t, 1, 3>{{{10, 7, 6}}}, q8::softmax_params{1 << 30, 20, -4});
static_assert(kept(0, 2) > -60);

// Agreement with the reference on rows with negative values, ties and cut-offs.
template <std::size_t N>
constexpr bool softmax_matches(const std::int8_t (&row)[N], q8::softmax_params p) {
  matrix<std::int8_t, 1, N> m{};
  for (std::size_t i = 0; i < N; ++i) m(0, i) = row[i];
  const auto got = q8::softmax_rows(m, p);
  std::int8_t want[N]{};
  q8_ref::softmax(row, want, N, nullptr, {p.multiplier, p.left_shift, p.diff_min});
  for (std::size_t i = 0; i < N; ++i) {
    if (got(0, i) != want[i]) return false;
  }
  return true;
}
static_assert(softmax_matches({-128, 127, 0, 3, -3, 126}, q8::make_softmax_params(0.1)));
static_assert(softmax_matches({-128, 127, 0, 3, -3, 126}, q8::make_softmax_params(0.02)));
static_assert(softmax_matches({-128, 127, 0, 3, -3, 126}, q8::make_softmax_params(1.7)));
static_assert(softmax_matches({1, 2, 3, 4, 5, 6, 7, 8}, q8::make_softmax_params(0.25, 0.5)));
static_assert(softmax_matches({10, 7, 6}, wide));

// The product: offsets added, bias before requantization, output offset, activation clamp.
// a = [1 2; -3 4], bt = [5 6; 7 -8] (so b = btᵀ), offsets lhs 1, rhs -2:
// (a + 1)·(bt - 2)ᵀ = [2 3; -2 5]·[3 5; 4 -10] = [2·3+3·4, 2·5+3·-10; -2·3+5·4, -2·5+5·-10] = [18 -20; 14 -60]
constexpr matrix<std::int8_t, 2, 2> a{{{1, 2}, {-3, 4}}}, bt{{{5, 6}, {7, -8}}};
constexpr q8::matmul_params half{1, -2, 3, {1 << 30, 0}};  // ·0.5, + 3
static_assert(q8::matmul_transposed(a, bt, half) == matrix<std::int8_t, 2, 2>{{{12, -7}, {10, -27}}});
// With a bias [1 -1] the accumulators are [19 -21; 15 -61]: every product by 0.5 is a tie, and
// the doubling high multiply rounds ties toward +inf: 9.5 -> 10, -10.5 -> -10, 7.5 -> 8, -30.5 -> -30.
constexpr matrix<std::int32_t, 1, 2> bias{{{1, -1}}};
static_assert(q8::matmul_transposed(a, bt, bias, half) == matrix<std::int8_t, 2, 2>{{{13, -7}, {11, -27}}});
constexpr q8::matmul_params relu{1, -2, 3, {1 << 30, 0}, 3, 11};  // fused ReLU6-like clamp [3, 11]
static_assert(q8::matmul_transposed(a, bt, relu) == matrix<std::int8_t, 2, 2>{{{11, 3}, {10, 3}}});
constexpr q8::matmul_params big{0, 0, 0, {1 << 30, 8}};  // a·btᵀ = [17 -9; 9 -53], ·128: clamped to int8
static_assert(q8::matmul_transposed(a, bt, big) == matrix<std::int8_t, 2, 2>{{{127, -128}, {127, -128}}});

// The batched product is the product of each item (arm_batch_matmul_s8 without broadcasting).
constexpr cxmat::batch<std::int8_t, 2, 2, 2> ab{{a, bt}}, btb{{bt, a}};
constexpr auto batched = q8::matmul_transposed(ab, btb, half);
static_assert(batched[0] == q8::matmul_transposed(a, bt, half) && batched[1] == q8::matmul_transposed(bt, a, half));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& y) {
  return !requires { q8::matmul_transposed(x, y, half); };
}(ab, cxmat::batch<std::int8_t, 3, 2, 2>{}));

// Shapes are checked in the type: the depth K must agree and the bias is 1 x C.
[[maybe_unused]] constexpr matrix<std::int8_t, 2, 3> a3{};  // only the default mode probes it
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& y) {
  return !requires { q8::matmul_transposed(x, y, half); };
}(a3, bt));
static_assert([](const auto& x, const auto& y) {
  return requires { q8::matmul_transposed(x, y, half); };
}(a, bt));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& y, const auto& b) {
  return !requires { q8::matmul_transposed(x, y, b, half); };
}(a, bt, matrix<std::int32_t, 1, 3>{}));

}  // namespace q8_static_arith
