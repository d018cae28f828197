// The whole int8 layer in constant evaluation, under the compilers' default limits: worksheet
// 004's layer (5 x 6, H = 3) and a seeded n = 8, d_model = 16, H = 2 layer with W_o, calibrated,
// quantized and run in the compiler, equal element for element to the independent reference.
#include <cstdint>
#include <type_traits>

#include <cxmat/attention/options.hpp>
#include <cxmat/quantized.hpp>

#include "test_support/layer_support.hpp"
#include "test_support/rejection.hpp"
#include "test_support/worksheet_data.hpp"

CXMAT_DIM(q8_tokens, 5);
CXMAT_DIM(q8_d_model, 6);

namespace q8_static_layer {

namespace q8 = cxmat::q8;
using cxmat::matrix;

namespace ws004 {
using namespace worksheet_data::ws004;
constexpr cxmat::batch<double, 1, 5, 6> set{{X}};
constexpr auto cal = q8::calibrate<3>(set, Wq, Wk, Wv);
constexpr auto x8 = q8::quantize(X, cal.input);
constexpr auto y8 = q8::multi_head_attention(x8, cal.layer);
// The layer of a temporary calibration, used in the same constant expression (g++ 12 once
// rejected it: the kernel compared the address of the temporary's bias with null).
constexpr auto calibrated() { return q8::calibrate<3>(set, Wq, Wk, Wv); }
static_assert(q8::multi_head_attention(x8, calibrated().layer) == y8);

constexpr bool matches_reference(const bool* mask) {
  std::int8_t want[5 * 6]{};
  q8_test::run_reference<5, 6, 3, 2, 2, 0>(cal.layer, x8, mask, want);
  return q8_test::equals_flat(mask ? q8::multi_head_attention(x8, cal.layer, cxmat::causal) : y8, want);
}
constexpr bool causal_mask[25] = {1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1};
static_assert(matches_reference(nullptr));
static_assert(matches_reference(causal_mask));

// Every head's int8 probabilities, equal to the reference's, and each row sums to about 1.
constexpr bool probabilities_match() {
  std::int8_t y[5 * 6]{}, want[3 * 5 * 5]{};
  q8_test::run_reference<5, 6, 3, 2, 2, 0>(cal.layer, x8, causal_mask, y, want);
  const auto p = q8::attention_probabilities(x8, cal.layer, cxmat::causal);
  for (std::size_t h = 0; h < 3; ++h) {
    for (std::size_t i = 0; i < 5; ++i) {
      int sum = 0;
      for (std::size_t j = 0; j < 5; ++j) {
        if (p(h, i, j) != want[(h * 5 + i) * 5 + j]) return false;
        if (j > i && p(h, i, j) != -128) return false;  // masked: weight 0
        sum += p(h, i, j) + 128;
      }
      if (sum < 256 - 5 || sum > 256 + 5) return false;  // each entry rounds to 1/256
    }
  }
  return true;
}
static_assert(probabilities_match());

// A fully masked query row (row 1 here) has every probability 0 and the context zero point.
constexpr cxmat::matrix<bool, 5, 5> allowed{
    {{1, 1, 1, 1, 1}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {1, 1, 1, 1, 1}, {0, 1, 0, 1, 0}}};
constexpr auto masked_p = q8::attention_probabilities(x8, cal.layer, cxmat::mask(allowed));
constexpr auto masked_y = q8::multi_head_attention(x8, cal.layer, cxmat::mask(allowed));
static_assert(masked_p(0, 1, 0) == -128 && masked_p(1, 1, 4) == -128 && masked_p(2, 1, 2) == -128);
static_assert(masked_y(1, 0) == cal.context.zero_point && masked_y(1, 5) == cal.context.zero_point);
static_assert(masked_p(0, 2, 0) == 127);  // one key left: probability 255/256
// The calibration's own facts: X spans [-1.5, 2.7], so scale = 4.2 / 255 and the zero point
// round(-128 + 1.5 / scale) = round(-36.93) = -37.
static_assert(cal.input.scale == 4.2 / 255.0 && cal.input.zero_point == -37);
static_assert(cal.layer.context.lhs_offset == 128 && cal.layer.scores.rhs_offset == -cal.key.zero_point);

// Named dimensions carry through: the rows keep their name, and the width is checked by size.
constexpr cxmat::batch<double, 1, q8_tokens, q8_d_model> named_set{{cxmat::with_dims<q8_tokens, q8_d_model>(X)}};
constexpr auto named_cal = q8::calibrate<3>(named_set, Wq, Wk, Wv);
constexpr auto named_y8 = q8::multi_head_attention(q8::quantize(named_set[0], named_cal.input), named_cal.layer);
static_assert(std::is_same_v<std::remove_cv_t<decltype(named_y8)>, matrix<std::int8_t, q8_tokens, 6>>);
static_assert(cxmat::with_dims<5, 6>(named_y8) == y8);
}  // namespace ws004

namespace small {
// n = 8, d_model = 16, H = 2 (d_k = d_v = 8), d_out = 16: the size of the embedded target.
constexpr auto make() {
  q8_test::lcg g{2024};
  struct weights {
    matrix<double, 16, 16> wq, wk, wv, wo;
    cxmat::batch<double, 2, 8, 16> xs;
  } w{};
  w.wq = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.5);
  w.wk = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.5);
  w.wv = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.5);
  w.wo = q8_test::random_matrix<matrix<double, 16, 16>>(g, 0.5);
  w.xs.items[0] = q8_test::random_matrix<matrix<double, 8, 16>>(g, 2.0);
  w.xs.items[1] = q8_test::random_matrix<matrix<double, 8, 16>>(g, 2.0);
  return w;
}
constexpr auto w = make();
constexpr auto cal = q8::calibrate<2>(w.xs, w.wq, w.wk, w.wv, w.wo, cxmat::causal);
constexpr auto x8 = q8::quantize(w.xs[1], cal.input);
constexpr auto y8 = q8::multi_head_attention(x8, cal.layer, cxmat::causal);
constexpr bool matches_reference() {
  bool mask[64]{};
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j <= i; ++j) mask[i * 8 + j] = true;
  }
  std::int8_t want[8 * 16]{};
  q8_test::run_reference<8, 16, 2, 8, 8, 16>(cal.layer, x8, mask, want);
  return q8_test::equals_flat(y8, want);
}
static_assert(matches_reference());
static_assert(std::is_same_v<std::remove_cv_t<decltype(y8)>, matrix<std::int8_t, 8, 16>>);

// A width that does not match the layer's d_model is a shape error, not a call.
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& l) {
  return !requires { q8::multi_head_attention(x, l); };
}(matrix<std::int8_t, 8, 15>{}, cal.layer));
static_assert([](const auto& x, const auto& l) {
  return requires { q8::multi_head_attention(x, l); };
}(x8, cal.layer));
// Only masks are taken: a score bias belongs to the float API.
static_assert([](const auto& x, const auto& l) {
  return !requires { q8::multi_head_attention(x, l, cxmat::bias(matrix<double, 8, 8>{})); };
}(x8, cal.layer));
}  // namespace small

}  // namespace q8_static_layer
