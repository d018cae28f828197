// The whole int8 layer in constant evaluation, under the compilers' default limits: worksheet
// 004's layer (5 x 6, H = 3) and a seeded n = 8, d_model = 16, H = 2 layer with W_o, calibrated,
// quantized and run in the compiler, equal element for element to the independent reference.
#include <cstdint>

#include <cxmat/attention/options.hpp>
#include <cxmat/quantized.hpp>

#include "quantized/layer_support.hpp"
#include "support/worksheet_data.hpp"

namespace q8_static_layer {

namespace q8 = cxmat::q8;
using cxmat::matrix;

template <class M>
constexpr bool equals_flat(const M& m, const std::int8_t* flat) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (m(i, j) != flat[i * M::cols + j]) return false;
    }
  }
  return true;
}

namespace ws004 {
using namespace worksheet_data::ws004;
constexpr cxmat::batch<double, 1, 5, 6> set{{X}};
constexpr auto cal = q8::calibrate<3>(set, Wq, Wk, Wv);
constexpr auto x8 = q8::quantize(X, cal.input);
constexpr auto y8 = q8::multi_head_attention(x8, cal.layer);

constexpr bool matches_reference(const bool* mask) {
  std::int8_t want[5 * 6]{};
  q8_test::run_reference<5, 6, 3, 2, 2, 0>(cal.layer, x8, mask, want);
  return equals_flat(mask ? q8::multi_head_attention(x8, cal.layer, cxmat::causal) : y8, want);
}
constexpr bool causal_mask[25] = {1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1};
static_assert(matches_reference(nullptr));
static_assert(matches_reference(causal_mask));
// The calibration's own facts: X spans [-1.5, 2.7], so scale = 4.2 / 255 and the zero point
// round(-128 + 1.5 / scale) = round(-36.93) = -37.
static_assert(cal.input.scale == 4.2 / 255.0 && cal.input.zero_point == -37);
static_assert(cal.layer.context.lhs_offset == 128 && cal.layer.scores.rhs_offset == -cal.key.zero_point);
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
  return equals_flat(y8, want);
}
static_assert(matches_reference());
static_assert(std::is_same_v<std::remove_cv_t<decltype(y8)>, matrix<std::int8_t, 8, 16>>);

// A width that does not match the layer's d_model is a shape error, not a call.
static_assert([](const auto& x, const auto& l) { return !requires { q8::multi_head_attention(x, l); }; }(
    matrix<std::int8_t, 8, 15>{}, cal.layer));
static_assert([](const auto& x, const auto& l) { return requires { q8::multi_head_attention(x, l); }; }(x8, cal.layer));
// Only masks are taken: a score bias belongs to the float API.
static_assert([](const auto& x, const auto& l) {
  return !requires { q8::multi_head_attention(x, l, cxmat::bias(matrix<double, 8, 8>{})); };
}(x8, cal.layer));
}  // namespace small

}  // namespace q8_static_layer
