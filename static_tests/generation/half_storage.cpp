// 16-bit float weights (half_weights): widening by hand, and a model stored in float16 or
// bfloat16 computing the very bits of the float model whose weights are the widened values.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <cxmat/generation.hpp>

#include "test_support/half_models.hpp"

namespace {

using cxmat::half_format;
using cxmat::matrix;
using cxmat::widen_half;

// binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits; bfloat16: the top half of a float.
static_assert(widen_half<half_format::binary16>(0x3C00) == 1.0f);
static_assert(widen_half<half_format::binary16>(0xC000) == -2.0f);
static_assert(widen_half<half_format::binary16>(0x3555) == 0x1.554p-2f);   // 1/3 rounded to 10 bits
static_assert(widen_half<half_format::binary16>(0x0001) == 0x1p-24f);      // the smallest subnormal
static_assert(widen_half<half_format::binary16>(0x03FF) == 0x1.ff8p-15f);  // the largest subnormal
static_assert(widen_half<half_format::binary16>(0x7BFF) == 65504.0f);      // the largest finite
static_assert(widen_half<half_format::binary16>(0xFC00) == -std::numeric_limits<float>::infinity());
static_assert(widen_half<half_format::binary16>(0x7E00) != widen_half<half_format::binary16>(0x7E00));  // NaN
static_assert(std::bit_cast<std::uint32_t>(widen_half<half_format::binary16>(0x8000)) == 0x80000000U);  // -0
static_assert(widen_half<half_format::bfloat16>(0x3F80) == 1.0f);
static_assert(widen_half<half_format::bfloat16>(0x4049) == 3.140625f);
static_assert(widen_half<half_format::bfloat16>(0xFF80) == -std::numeric_limits<float>::infinity());

static_assert(cxmat_test::narrow_exact<half_format::binary16>(-2.0f) == 0xC000);

using namespace cxmat_test;
constexpr float_llama float_model = make_half_exact_llama();
constexpr auto binary16_model = make_half<half_format::binary16>(float_model);
constexpr auto bfloat16_model = make_half<half_format::bfloat16>(float_model);

// The storage round-trips, and every logit of every position is the float model's, bit for bit.
static_assert(binary16_model.blocks[1].w_down.widen() == float_model.blocks[1].w_down);
static_assert(bfloat16_model.output.widen() == float_model.output);
constexpr matrix<int, 1, 6> tokens{{{1, 7, 3, 12, 0, 5}}};
static_assert(cxmat::forward(float_model, tokens)(5, 2) != cxmat::forward(float_model, tokens)(5, 3));
static_assert(cxmat::forward(binary16_model, tokens) == cxmat::forward(float_model, tokens));
static_assert(cxmat::forward(bfloat16_model, tokens) == cxmat::forward(float_model, tokens));
constexpr matrix<int, 1, 2> prompt{{{3, 1}}};
static_assert(cxmat::generate<8>(bfloat16_model, prompt) == cxmat::generate<8>(float_model, prompt));
static_assert(sizeof(binary16_model.blocks[0].w_gate) == 16 * 24 * 2);  // two bytes a weight

}  // namespace
