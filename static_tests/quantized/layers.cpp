// The int8 linear layer, residual add, layer norm, encoder and decoder layers in constant evaluation:
// values by hand, and seeded layers calibrated, quantized and run in the compiler, equal element
// for element to the independent reference (test_support/tflite_reference.hpp, composed step by
// step in layer_support.hpp).
#include <cstdint>
#include <type_traits>

#include <cxmat/quantized.hpp>
#include <cxmat/transformer.hpp>

#include "test_support/layer_support.hpp"
#include "test_support/rejection.hpp"

namespace q8_static_layers {

namespace q8 = cxmat::q8;
using cxmat::matrix;

// ADD by hand: s1 = 1/2, s2 = 1/4 (zero point 10), out scale 1 (zero point -5). The multipliers
// are 1/2 = {2^30, 0}, 1/4 = {2^30, -1}, 1/2^20 = {2^30, -19}; 3 + (14 - 10) is 1.5 + 1.0 = 2.5,
// whose shifted sum 2621440 halves to 1310720 = 2.5·2^19, rounded away from zero to 3, minus 5.
constexpr auto add_p = q8::make_add_params({0.5, 0}, {0.25, 10}, {1.0, -5});
static_assert(add_p.input1 == q8::requantizer{1 << 30, 0} && add_p.input2 == q8::requantizer{1 << 30, -1});
static_assert(add_p.output == q8::requantizer{1 << 30, -19} && add_p.left_shift == 20);
// Second element: (-128)·1/2 + (127 - 10)·1/4 = -64 + 29.25 = -34.75, rounded to -35, minus 5.
static_assert(q8::add(matrix<std::int8_t, 1, 2>{{{3, -128}}}, matrix<std::int8_t, 1, 2>{{{14, 127}}}, add_p) ==
              matrix<std::int8_t, 1, 2>{{{-2, -40}}});
// Clamped: 127·1/2 + 117·1/4 = 92.75 -> 93 - 5 = 88 fits; with out scale 1/2 it would not.
static_assert(q8::add(matrix<std::int8_t, 1, 1>{{{127}}}, matrix<std::int8_t, 1, 1>{{{127}}},
                      q8::make_add_params({0.5, 0}, {0.25, 10}, {0.5, 0}))(0, 0) == 127);

// Two shapes: the float a + b's rule, a shape error rather than a call.
CXMAT_ASSERT_REJECTED([](const auto& a, const auto& b) {
  return !requires { q8::add(a, b, add_p); };
}(matrix<std::int8_t, 2, 3>{}, matrix<std::int8_t, 3, 2>{}));

// Layer norm by hand: x = (1, -1, 1, -1) at scale 1 has mean 0 and variance 1, so with γ = 1, β = 0
// and ε = 1e-5 the output is ±1/√(1 + 1e-5) ≈ ±0.999995, ±64 at the output scale 1/64.
constexpr cxmat::layer_norm_module<double, 4> norm4{{{{1, 1, 1, 1}}}, {{{0, 0, 0, 0}}}, 1e-5};
constexpr auto ln4 = q8::quantize_layer_norm(norm4, {1.0, 0}, {1.0 / 64, 0});
static_assert(ln4(matrix<std::int8_t, 1, 4>{{{1, -1, 1, -1}}}) == matrix<std::int8_t, 1, 4>{{{64, -64, 64, -64}}});
// 2^8·ε·D³ / s_x² = 0.16 rounds to 0: eps is at least 1.
static_assert(ln4.eps == 1 && ln4.input_offset == 0 && ln4.output_offset == 0);
// A constant row has no deviation: every output is β's.
static_assert(ln4(matrix<std::int8_t, 1, 4>{{{7, 7, 7, 7}}}) == matrix<std::int8_t, 1, 4>{{{0, 0, 0, 0}}});

// A seeded layer norm of width 16 on 4 rows, and a linear layer 16 -> 8 with fused ReLU,
// per channel and per tensor, against the reference.
constexpr auto xs16 = q8_test::random_inputs<double, 1, 4, 16>(31, 3.0);
constexpr auto make_norm() {
  q8_test::lcg g{5};
  cxmat::layer_norm_module<double, 16> n{};
  for (std::size_t j = 0; j < 16; ++j) n.weight(0, j) = 1.0 + 0.5 * g.next(), n.bias(0, j) = 0.3 * g.next();
  return n;
}
constexpr auto ln16 = q8::quantize_layer_norm(make_norm(), q8::choose_quantization(-3, 3), {0.02, 3});
constexpr auto x16 = q8::quantize(xs16[0], q8::choose_quantization(-3, 3));
constexpr bool norm_matches_reference() {
  std::int8_t xf[64]{}, want[64]{};
  q8_test::flatten(x16, xf);
  q8_test::run_layer_norm_reference(ln16, xf, 4, want);
  return q8_test::equals_flat(ln16(x16), want);
}
static_assert(norm_matches_reference());

constexpr auto make_linear() {
  q8_test::lcg g{8};
  return cxmat::linear_module<double, 16, 8>{q8_test::random_matrix<matrix<double, 16, 8>>(g, 0.5),
                                             q8_test::random_matrix<matrix<double, 1, 8>>(g, 0.2)};
}
constexpr auto lin_cal = q8::calibrate(xs16, make_linear());
constexpr auto lin_cal_tensor = q8::calibrate(xs16, make_linear(), q8::per_tensor_weights);
constexpr auto lin_relu = q8::quantize_linear(make_linear(), lin_cal.input, {0.01, -128}, true);
template <class L>
constexpr bool linear_matches_reference(const L& l) {
  std::int8_t xf[64]{}, want[32]{};
  q8_test::flatten(x16, xf);
  q8_test::run_linear_reference(l, xf, 4, want);
  return q8_test::equals_flat(l(x16), want);
}
static_assert(lin_cal.ok() && linear_matches_reference(lin_cal.module));
static_assert(linear_matches_reference(lin_cal_tensor.module));
static_assert(linear_matches_reference(lin_relu) && lin_relu.params.activation_min == -128);
static_assert(decltype(lin_cal.module)::per_channel && !decltype(lin_cal_tensor.module)::per_channel);
// A width that does not match d_in is a shape error, not a call.
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& l) {
  return !requires { l(x); };
}(matrix<std::int8_t, 4, 15>{}, lin_cal.module));

// Encoder layers (n = 4, d_model = 8, H = 2, d_ff = 16) calibrated on two inputs: post-norm with
// ReLU and a causal mask, pre-norm with GELU (a lookup table), each run on a third input and equal
// to the reference composition.
using post_relu = cxmat::encoder_layer<double, 8, 2, 16>;
using pre_gelu = cxmat::encoder_layer<double, 8, 2, 16, cxmat::activation::gelu, true>;
constexpr auto xs8 = q8_test::random_inputs<double, 3, 4, 8>(77, 1.5);
constexpr cxmat::batch<double, 2, 4, 8> set8{{xs8[0], xs8[1]}};
constexpr auto post_cal = q8::calibrate(set8, q8_test::random_encoder_layer<post_relu>(11), cxmat::causal);
constexpr auto pre_cal = q8::calibrate(set8, q8_test::random_encoder_layer<pre_gelu>(12));
constexpr bool causal4[16] = {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1};
static_assert(post_cal.ok() && pre_cal.ok());
constexpr bool post_matches_reference() {
  const auto x = q8::quantize(xs8[2], post_cal.input);
  std::int8_t want[32]{};
  q8_test::run_encoder_reference<4>(post_cal.module, x, causal4, want);
  return q8_test::equals_flat(post_cal.module(x, cxmat::causal), want);
}
constexpr bool pre_matches_reference() {
  const auto x = q8::quantize(xs8[2], pre_cal.input);
  std::int8_t want[32]{};
  q8_test::run_encoder_reference<4>(pre_cal.module, x, nullptr, want);
  return q8_test::equals_flat(pre_cal.module(x), want);
}
static_assert(post_matches_reference());
static_assert(pre_matches_reference());

// The caller's workspace: the same layers computed in it by the compiler, and its size by hand:
// K and V (4 x 8 each; V transposed too where the DSP kernels are used), two 4 x 8 tensors and the
// 4 x 16 hidden layer.
using post_q8 = std::remove_cvref_t<decltype(post_cal.module)>;
static_assert(q8::scratch_bytes<post_q8, 4> == 4 * 8 + 4 * 8 + (CXMAT_DETAIL_DSP ? 8 * 4 : 0) + 2 * 4 * 8 + 4 * 16);
static_assert(q8::scratch_bytes<post_q8::attention_type, 4> == 4 * 8 + 4 * 8 + (CXMAT_DETAIL_DSP ? 8 * 4 : 0));
constexpr bool workspace_matches_reference() {
  q8::workspace_for<post_q8, 4> ws{};
  bool same = true;
  for (std::size_t b = 0; b < 3; ++b) {  // the workspace reused: what a call leaves must not matter
    const auto x = q8::quantize(xs8[b], post_cal.input), xp = q8::quantize(xs8[b], pre_cal.input);
    std::int8_t want[32]{}, want_pre[32]{};
    q8_test::run_encoder_reference<4>(post_cal.module, x, causal4, want);
    q8_test::run_encoder_reference<4>(pre_cal.module, xp, nullptr, want_pre);
    same = same && q8_test::equals_flat(post_cal.module(x, ws, cxmat::causal), want);
    same = same && q8_test::equals_flat(pre_cal.module(xp, ws), want_pre);  // one workspace serves both
  }
  return same;
}
static_assert(workspace_matches_reference());
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& l) {
  return !requires { l(x); };
}(matrix<std::int8_t, 4, 9>{}, post_cal.module));

// Decoder layers (n = 4 queries, s = 3 memory rows, d_model = 8, H = 2, d_ff = 16) calibrated on
// two input / memory pairs: post-norm with ReLU, a causal self-attention and a key padding of the
// memory (on_memory, as the float decoder layer takes it), and pre-norm with a GELU table; each run
// on a third pair and equal to the reference composition (the cross-attention by the reference's
// attention with keys and values from the memory).
using dec_post_relu = cxmat::decoder_layer<double, 8, 2, 16>;
using dec_pre_gelu = cxmat::decoder_layer<double, 8, 2, 16, cxmat::activation::gelu, true>;
constexpr auto ms3 = q8_test::random_inputs<double, 3, 3, 8>(78, 2.5);
constexpr cxmat::batch<double, 2, 3, 8> mset3{{ms3[0], ms3[1]}};
constexpr matrix<bool, 1, 3> keep3{{{true, false, true}}};
constexpr bool padded43[12] = {1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1};
constexpr auto dec_post_cal = q8::calibrate(set8, mset3, q8_test::random_decoder_layer<dec_post_relu>(13),
                                            cxmat::causal, cxmat::on_memory(cxmat::key_padding(keep3)));
constexpr auto dec_pre_cal = q8::calibrate(set8, mset3, q8_test::random_decoder_layer<dec_pre_gelu>(14));
static_assert(dec_post_cal.ok() && dec_pre_cal.ok());
constexpr bool dec_post_matches_reference() {
  const auto x = q8::quantize(xs8[2], dec_post_cal.input);
  const auto m = q8::quantize(ms3[2], dec_post_cal.memory);
  std::int8_t want[32]{};
  q8_test::run_decoder_reference<4, 3>(dec_post_cal.module, x, m, causal4, padded43, want);
  return q8_test::equals_flat(dec_post_cal.module(x, m, cxmat::causal, cxmat::on_memory(cxmat::key_padding(keep3))),
                              want);
}
constexpr bool dec_pre_matches_reference() {
  const auto x = q8::quantize(xs8[2], dec_pre_cal.input);
  const auto m = q8::quantize(ms3[2], dec_pre_cal.memory);
  std::int8_t want[32]{};
  q8_test::run_decoder_reference<4, 3>(dec_pre_cal.module, x, m, nullptr, nullptr, want);
  return q8_test::equals_flat(dec_pre_cal.module(x, m), want);
}
static_assert(dec_post_matches_reference());
static_assert(dec_pre_matches_reference());
// In the caller's workspace: the self-attention's K and V (4 rows), the cross-attention's (3
// rows), two 4 x 8 tensors and the 4 x 16 hidden layer.
using dec_q8 = std::remove_cvref_t<decltype(dec_post_cal.module)>;
static_assert(q8::scratch_bytes<dec_q8, 4, 3> == (4 + 3) * (8 + 8 + (CXMAT_DETAIL_DSP ? 8 : 0)) + 2 * 4 * 8 + 4 * 16);
constexpr bool dec_workspace_matches_reference() {
  q8::workspace_for<dec_q8, 4, 3> ws{};
  bool same = true;
  for (std::size_t b = 0; b < 3; ++b) {
    const auto x = q8::quantize(xs8[b], dec_post_cal.input), xp = q8::quantize(xs8[b], dec_pre_cal.input);
    const auto m = q8::quantize(ms3[b], dec_post_cal.memory), mp = q8::quantize(ms3[b], dec_pre_cal.memory);
    std::int8_t want[32]{}, want_pre[32]{};
    q8_test::run_decoder_reference<4, 3>(dec_post_cal.module, x, m, causal4, padded43, want);
    q8_test::run_decoder_reference<4, 3>(dec_pre_cal.module, xp, mp, nullptr, nullptr, want_pre);
    same = same && q8_test::equals_flat(
                       dec_post_cal.module(x, m, ws, cxmat::causal, cxmat::on_memory(cxmat::key_padding(keep3))), want);
    same = same && q8_test::equals_flat(dec_pre_cal.module(xp, mp, ws), want_pre);
  }
  return same;
}
static_assert(dec_workspace_matches_reference());
// The memory has its own quantization (its values span ±2.5, x's ±1.5).
static_assert(dec_post_cal.memory.scale > dec_post_cal.input.scale);
// x or the memory of another width, and a memory mask given plainly (it would be the
// self-attention's, 4 x 4, which a key padding of 3 does not fit): shape errors, not calls.
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& m, const auto& l) {
  return !requires { l(x, m); };
}(matrix<std::int8_t, 4, 9>{}, matrix<std::int8_t, 3, 8>{}, dec_post_cal.module));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& m, const auto& l) {
  return !requires { l(x, m); };
}(matrix<std::int8_t, 4, 8>{}, matrix<std::int8_t, 3, 7>{}, dec_post_cal.module));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& m, const auto& l) {
  return !requires { l(x, m, cxmat::key_padding(keep3)); };
}(matrix<std::int8_t, 4, 8>{}, matrix<std::int8_t, 3, 8>{}, dec_post_cal.module));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& m, const auto& l) {
  return !requires { q8::cross_attention(x, m, l); };
}(matrix<std::int8_t, 4, 8>{}, matrix<std::int8_t, 3, 6>{}, dec_post_cal.module.multihead_attn));

// q8::check: what calibration makes passes, in the compiler too; a hand-written mistake in a
// constexpr module is not a constant expression (its named error), and is found at run time
// (runtime_tests/quantized/layers_runtime.cpp).
static_assert(q8::check(post_cal.module).ok() && q8::check(pre_cal.module).ok());
static_assert(q8::check(dec_post_cal.module).ok() && q8::check(dec_pre_cal.module).ok());
static_assert(q8::check(lin_cal.module).ok() && q8::check(ln16).ok() && q8::check(add_p).ok());
template <std::int32_t Shift>
constexpr auto with_linear1_shift() {
  auto l = post_cal.module;
  l.linear1.channels.values[2].shift = Shift;
  return l;
}
template <std::int32_t Shift>
concept checks_in_the_compiler = requires {
  typename std::integral_constant<bool, q8::check(with_linear1_shift<Shift>()).ok()>;
};
static_assert(checks_in_the_compiler<-5> && !checks_in_the_compiler<31> && !checks_in_the_compiler<-32>);

// Calibration in the compiler refuses a constant set, an all-zero set and a linear1 weight of 1e6
// among weights within ±0.5: not constant expressions (their named errors, whose text
// compile_fail 64 and 65 check), while the set and layer as generated calibrate.
template <int Case>
constexpr bool calibrates() {
  auto set = set8;
  auto f = q8_test::random_encoder_layer<post_relu>(11);
  if constexpr (Case == 1) {
    for (auto& x : set.items) {
      for (auto& row : x.elems) {
        for (auto& v : row) v = 0.5;
      }
    }
  } else if constexpr (Case == 2) {
    set = {};
  } else if constexpr (Case == 3) {
    f.linear1.weight(1, 2) = 1e6;
  }
  return q8::calibrate(set, f).ok();
}
template <int Case>
concept calibrates_in_the_compiler = requires {
  typename std::integral_constant<bool, calibrates<Case>()>;
};
static_assert(calibrates_in_the_compiler<0> && calibrates<0>());
static_assert(!calibrates_in_the_compiler<1> && !calibrates_in_the_compiler<2> && !calibrates_in_the_compiler<3>);

}  // namespace q8_static_layers
