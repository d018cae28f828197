// int8 weights in groups (Q8_0): the quantization of a group and an int8 product by hand, and a
// float model quantized by the compiler generating the float model's tokens.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cxmat/generation.hpp>

#include "test_support/tiny_language_models.hpp"

namespace {

using cxmat::matrix;

// d_in 8 (two groups of 4) x d_out 1. Group 0 has max |w| = 127, so its scale is exactly 1 and
// its values round halves away from zero (-3.5 -> -4, -0.5 -> -1); group 1 is zero: scale 0.
constexpr matrix<double, 8, 1> w{{{127}, {-3.5}, {2.4}, {-0.5}, {0}, {0}, {0}, {0}}};
constexpr auto qw = cxmat::q8::quantize_groups<4>(w);
static_assert(qw.scales(0, 0) == 1.0f && qw.scales(0, 1) == 0.0f);
static_assert(qw.values(0, 0) == 127 && qw.values(0, 1) == -4 && qw.values(0, 2) == 2 && qw.values(0, 3) == -1);
static_assert(qw.values(0, 4) == 0 && qw.values(0, 7) == 0);

// x's first group has max 254: scale 2, values 127, -64 (-63.5), 0, 32 (31.75). The product is
// (127·127 + (-64)(-4) + 0·2 + 32·(-1)) · 1 · 2 = 16353 · 2 = 32706, exactly; group 1 adds 0.
constexpr matrix<float, 1, 8> x{{{254.0f, -127.0f, 0.0f, 63.5f, 1.0f, 2.0f, 3.0f, 4.0f}}};
static_assert(cxmat::q8::group_linear(x, qw)(0, 0) == 32706.0f);

// A table stored out x in (an embedding) quantizes per row; a dequantized row is values · scale.
constexpr matrix<float, 2, 4> table{{{1.0f, -2.0f, 0.5f, 0.25f}, {0.0f, 0.0f, 0.0f, 0.0f}}};
constexpr auto qt = cxmat::q8::quantize_table_groups<4>(table);
static_assert(qt.values(0, 1) == -127 && qt.scales(0, 0) == 2.0f / 127.0f && qt.scales(1, 0) == 0.0f);
static_assert(cxmat::q8::dequantize_row(qt, 0)(0, 1) == -2.0f);

// The tiny float model quantized in groups of 8 by the compiler generates the same tokens.
using namespace cxmat_test;
constexpr auto model = make_tiny_llama<tiny_llama<float>>(3);
constexpr auto model_q8 = cxmat::quantize_groups<8>(model);
constexpr matrix<int, 1, 3> prompt{{{3, 1, 4}}};
static_assert(cxmat::generate<8>(model_q8, prompt) == cxmat::generate<8>(model, prompt));
static_assert(sizeof(model_q8.blocks[0].w_gate.values) == 16 * 24);  // one byte per weight

// A step's workspace (scratch_bytes<Model, 1>, all of a generation's memory besides its cache and
// tokens): the float rows x (16), h, q (16 each), k, v (8 each), the SwiGLU's gate and up (24
// each), the head's normed row (16) and logits (13), 141 floats; and the int8 groups of the
// quantized input rows: 16 values and 2 scales for the d_model-wide products and the head, 24
// values and 3 scales for the down projection.
using model_q8_type = std::remove_cvref_t<decltype(model_q8)>;
static_assert(cxmat::scratch_bytes<model_q8_type, 1> ==
              141 * sizeof(float) + 2 * (16 + 2 * sizeof(float)) + (24 + 3 * sizeof(float)));

// A group size that does not divide the width: the last group of each row is the rest. d_in 6 in
// groups of 4 and 2; group 1's weights (127, -63.5) have scale 1 and round to 127, -64, and x's
// group 1 (254, 127) has scale 2 and values 127, 64 (63.5). Group 0 is the product above (32706);
// group 1 adds (127·127 + 64·(-64)) · 1 · 2 = 12033 · 2 = 24066: 56772, exactly.
constexpr matrix<double, 6, 1> w6{{{127}, {-3.5}, {2.4}, {-0.5}, {127}, {-63.5}}};
constexpr auto qw6 = cxmat::q8::quantize_groups<4>(w6);
static_assert(decltype(qw6)::groups == 2 && qw6.scales(0, 0) == 1.0f && qw6.scales(0, 1) == 1.0f);
static_assert(qw6.values(0, 1) == -4 && qw6.values(0, 4) == 127 && qw6.values(0, 5) == -64);
constexpr matrix<float, 1, 6> x6{{{254.0f, -127.0f, 0.0f, 63.5f, 254.0f, 127.0f}}};
static_assert(cxmat::q8::group_linear(x6, qw6)(0, 0) == 56772.0f);
// A table's rows the same way: a row of 5 in groups of 2, 2 and 1.
constexpr matrix<float, 1, 5> row5{{{1.0f, -2.0f, 0.5f, 0.25f, -3.0f}}};
constexpr auto qt5 = cxmat::q8::quantize_table_groups<2>(row5);
static_assert(decltype(qt5)::groups == 3 && qt5.scales(0, 2) == 3.0f / 127.0f && qt5.values(0, 4) == -127);
static_assert(cxmat::q8::dequantize_row(qt5, 0)(0, 4) == -3.0f);

// Any positive group size makes a type; 0 does not.
template <std::size_t G>
concept groups_fit = requires {
  cxmat::q8::quantize_groups<G>(w);
};
static_assert(groups_fit<4> && groups_fit<8> && groups_fit<3> && groups_fit<9> && !groups_fit<0>);

}  // namespace
