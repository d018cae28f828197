// The transformer layer at run time, compared with PyTorch 1.13 in float64
// (test_support/transformer_reference.hpp): double within 1e-12 and float within 1e-6 of the
// largest magnitude of each expected matrix (docs/numerics.md). Inputs pass through volatile
// copies, so the run-time paths compute them.
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include <cxmat/transformer.hpp>

#include "test_support/catch.hpp"
#include "test_support/runtime_value.hpp"
#include "test_support/transformer_checks.hpp"
#include "test_support/transformer_reference.hpp"

namespace {

using namespace transformer_ref;
using cxmat_test::at_run_time;
using transformer_test::scaled_error;

template <class T>
constexpr double tolerance = sizeof(T) == sizeof(float) ? transformer_test::float_tolerance
                                                        : transformer_test::double_tolerance;

// The largest error seen per element type, printed by the last test case (docs/numerics.md
// quotes it).
template <class T>
double largest_error = 0.0;

template <class T, class A, class E>
bool close(const A& actual, const E& expected) {
  const double error = scaled_error(actual, expected);
  if (error > largest_error<T>) largest_error<T> = error;
  return error <= tolerance<T>;
}

template <class B>
B batch_at_run_time(const B& x) {
  B out{};
  for (std::size_t b = 0; b < B::count; ++b) out.items[b] = at_run_time(x.items[b]);
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("activations equal PyTorch's", "[transformer][pytorch]", double, float) {
  const auto x = at_run_time(act_x<TestType>);
  CHECK(close<TestType>(cxmat::relu(x), act_relu));
  CHECK(close<TestType>(cxmat::sigmoid(x), act_sigmoid));
  CHECK(close<TestType>(cxmat::silu(x), act_silu));
  CHECK(close<TestType>(cxmat::gelu(x), act_gelu));
  CHECK(close<TestType>(cxmat::gelu_tanh(x), act_gelu_tanh));
}

TEMPLATE_TEST_CASE("norms and SwiGLU equal PyTorch's and LLaMA's formulas", "[transformer][pytorch]", double, float) {
  const auto x = at_run_time(ln_x<TestType>);
  CHECK(close<TestType>(cxmat::layer_norm(x, ln_gamma<TestType>, ln_beta<TestType>, TestType(1e-5)), ln_y));
  CHECK(close<TestType>(cxmat::layer_norm(x, ln_eps_gamma<TestType>, ln_eps_beta<TestType>, TestType(1e-3)), ln_eps_y));
  const cxmat::layer_norm_module<TestType, 8> norm{ln_gamma<TestType>, ln_beta<TestType>};
  CHECK(close<TestType>(norm(x), ln_y));
  CHECK(close<TestType>(cxmat::rms_norm(x, rms_gamma<TestType>, TestType(1e-6)), rms_y));
  CHECK(close<TestType>(cxmat::swiglu(x, swiglu_w_gate<TestType>, swiglu_w_up<TestType>, swiglu_w_down<TestType>),
                        swiglu_y));
}

TEMPLATE_TEST_CASE("encoder layers equal nn.TransformerEncoderLayer", "[transformer][pytorch]", double, float) {
  SECTION("relu, post-norm, H = 2") {
    CHECK(close<TestType>(enc_relu_post<TestType>(at_run_time(enc_relu_post_x<TestType>)), enc_relu_post_y));
  }
  SECTION("relu, pre-norm, causal, H = 4") {
    CHECK(close<TestType>(enc_relu_pre_causal<TestType>(at_run_time(enc_relu_pre_causal_x<TestType>), cxmat::causal),
                          enc_relu_pre_causal_y));
  }
  SECTION("relu, pre-norm, key padding, H = 1") {
    CHECK(close<TestType>(enc_relu_pre_padding<TestType>(at_run_time(enc_relu_pre_padding_x<TestType>),
                                                         cxmat::key_padding(enc_relu_pre_padding_keep)),
                          enc_relu_pre_padding_y));
  }
  SECTION("relu, post-norm, causal and key padding, H = 8") {
    CHECK(close<TestType>(
        enc_relu_post_causal_padding<TestType>(at_run_time(enc_relu_post_causal_padding_x<TestType>), cxmat::causal,
                                               cxmat::key_padding(enc_relu_post_causal_padding_keep)),
        enc_relu_post_causal_padding_y));
  }
  SECTION("gelu, post-norm, key padding, H = 1") {
    CHECK(close<TestType>(enc_gelu_post_padding<TestType>(at_run_time(enc_gelu_post_padding_x<TestType>),
                                                          cxmat::key_padding(enc_gelu_post_padding_keep)),
                          enc_gelu_post_padding_y));
  }
  SECTION("gelu, pre-norm, causal and key padding, H = 8") {
    CHECK(close<TestType>(
        enc_gelu_pre_causal_padding<TestType>(at_run_time(enc_gelu_pre_causal_padding_x<TestType>), cxmat::causal,
                                              cxmat::key_padding(enc_gelu_pre_causal_padding_keep)),
        enc_gelu_pre_causal_padding_y));
  }
  SECTION("a batch of 2 with a key padding per item") {
    const auto y =
        enc_batch<TestType>(batch_at_run_time(enc_batch_x<TestType>), cxmat::batch_key_padding(enc_batch_keep));
    CHECK(close<TestType>(y.items[0], enc_batch_y.items[0]));
    CHECK(close<TestType>(y.items[1], enc_batch_y.items[1]));
  }
  SECTION("a stack of 2 pre-norm layers with a final norm, causal") {
    CHECK(close<TestType>(enc_stack<TestType>(at_run_time(enc_stack_x<TestType>), cxmat::causal), enc_stack_y));
  }
}

TEMPLATE_TEST_CASE("decoder layers equal nn.TransformerDecoderLayer", "[transformer][pytorch]", double, float) {
  SECTION("relu, post-norm, H = 2, causal, memory key padding") {
    CHECK(close<TestType>(
        dec_relu_post<TestType>(at_run_time(dec_relu_post_x<TestType>), at_run_time(dec_relu_post_memory<TestType>),
                                cxmat::causal, cxmat::on_memory(cxmat::key_padding(dec_relu_post_memory_keep))),
        dec_relu_post_y));
  }
  SECTION("gelu, pre-norm, H = 4, causal") {
    CHECK(close<TestType>(dec_gelu_pre<TestType>(at_run_time(dec_gelu_pre_x<TestType>),
                                                 at_run_time(dec_gelu_pre_memory<TestType>), cxmat::causal),
                          dec_gelu_pre_y));
  }
  SECTION("a stack of 2 pre-norm layers with a final norm, causal") {
    CHECK(close<TestType>(
        dec_stack<TestType>(at_run_time(dec_stack_x<TestType>), at_run_time(dec_stack_memory<TestType>), cxmat::causal),
        dec_stack_y));
  }
}

TEMPLATE_TEST_CASE("attention_module equals nn.MultiheadAttention", "[transformer][pytorch]", double, float) {
  const auto x = at_run_time(mha_x<TestType>);
  CHECK(close<TestType>(mha<TestType>(x, cxmat::key_padding(mha_keep)), mha_self_y));
  CHECK(close<TestType>(mha<TestType>(x, at_run_time(mha_memory<TestType>), cxmat::key_padding(mha_memory_keep)),
                        mha_cross_y));
}

TEMPLATE_TEST_CASE("the layers in the caller's workspace equal PyTorch's, bit for bit their stack form",
                   "[transformer][pytorch][workspace]", double, float) {
  // Filled with a pattern before each call: what a workspace held must not matter.
  const auto filled = [](auto& ws, int pattern) -> auto& {
    if (pattern == 0) {
      std::memset(static_cast<void*>(&ws), 0xff, sizeof ws);  // NaN in every element
    } else {
      transformer_test::fill_workspace(ws, TestType(1e30));
    }
    return ws;
  };
  for (int pattern = 0; pattern < 2; ++pattern) {
    SECTION("encoder layers of one size share a workspace, pattern " + std::to_string(pattern)) {
      cxmat::workspace_for<std::remove_cvref_t<decltype(enc_relu_post<TestType>)>, 5> ws;
      const auto x = at_run_time(enc_relu_post_x<TestType>);
      const auto post = enc_relu_post<TestType>(x, filled(ws, pattern));
      CHECK(close<TestType>(post, enc_relu_post_y));
      CHECK(post == enc_relu_post<TestType>(x));
      const auto xp = at_run_time(enc_gelu_pre_causal_padding_x<TestType>);
      const auto keep = cxmat::key_padding(enc_gelu_pre_causal_padding_keep);
      const auto pre = enc_gelu_pre_causal_padding<TestType>(xp, filled(ws, pattern), cxmat::causal, keep);
      CHECK(close<TestType>(pre, enc_gelu_pre_causal_padding_y));
      CHECK(pre == enc_gelu_pre_causal_padding<TestType>(xp, cxmat::causal, keep));
      const auto xc = at_run_time(enc_relu_pre_causal_x<TestType>);
      const auto pre_relu = enc_relu_pre_causal<TestType>(xc, filled(ws, pattern), cxmat::causal);
      CHECK(close<TestType>(pre_relu, enc_relu_pre_causal_y));
      CHECK(pre_relu == enc_relu_pre_causal<TestType>(xc, cxmat::causal));
      const auto xg = at_run_time(enc_gelu_post_padding_x<TestType>);
      const auto keep_g = cxmat::key_padding(enc_gelu_post_padding_keep);
      const auto post_gelu = enc_gelu_post_padding<TestType>(xg, filled(ws, pattern), keep_g);
      CHECK(close<TestType>(post_gelu, enc_gelu_post_padding_y));
      CHECK(post_gelu == enc_gelu_post_padding<TestType>(xg, keep_g));
    }
    SECTION("decoder layers of one size share a workspace, pattern " + std::to_string(pattern)) {
      cxmat::workspace_for<std::remove_cvref_t<decltype(dec_relu_post<TestType>)>, 5, 3> ws;
      const auto x = at_run_time(dec_relu_post_x<TestType>);
      const auto m = at_run_time(dec_relu_post_memory<TestType>);
      const auto keep = cxmat::on_memory(cxmat::key_padding(dec_relu_post_memory_keep));
      const auto post = dec_relu_post<TestType>(x, m, filled(ws, pattern), cxmat::causal, keep);
      CHECK(close<TestType>(post, dec_relu_post_y));
      CHECK(post == dec_relu_post<TestType>(x, m, cxmat::causal, keep));
      const auto xp = at_run_time(dec_gelu_pre_x<TestType>);
      const auto mp = at_run_time(dec_gelu_pre_memory<TestType>);
      const auto pre = dec_gelu_pre<TestType>(xp, mp, filled(ws, pattern), cxmat::causal);
      CHECK(close<TestType>(pre, dec_gelu_pre_y));
      CHECK(pre == dec_gelu_pre<TestType>(xp, mp, cxmat::causal));
    }
    SECTION("attention_module, self and cross, pattern " + std::to_string(pattern)) {
      using module = std::remove_cvref_t<decltype(mha<TestType>)>;
      cxmat::workspace_for<module, 5> self_ws;
      cxmat::workspace_for<module, 5, 3> cross_ws;
      const auto x = at_run_time(mha_x<TestType>);
      const auto m = at_run_time(mha_memory<TestType>);
      const auto self = mha<TestType>(x, filled(self_ws, pattern), cxmat::key_padding(mha_keep));
      CHECK(close<TestType>(self, mha_self_y));
      CHECK(self == mha<TestType>(x, cxmat::key_padding(mha_keep)));
      const auto cross = mha<TestType>(x, m, filled(cross_ws, pattern), cxmat::key_padding(mha_memory_keep));
      CHECK(close<TestType>(cross, mha_cross_y));
      CHECK(cross == mha<TestType>(x, m, cxmat::key_padding(mha_memory_keep)));
    }
  }
}

TEST_CASE("an embedding index outside the table gives a row of zeros at run time", "[transformer][embedding]") {
  constexpr cxmat::matrix<double, 3, 2> table{{{1, 2}, {3, 4}, {5, 6}}};
  const auto tokens = at_run_time(cxmat::matrix<int, 1, 4>{{{2, -1, 3, 0}}});
  const auto rows = cxmat::embedding(table, tokens);
  CHECK((rows(0, 0) == 5 && rows(0, 1) == 6));
  CHECK((rows(1, 0) == 0 && rows(1, 1) == 0));
  CHECK((rows(2, 0) == 0 && rows(2, 1) == 0));
  CHECK((rows(3, 0) == 1 && rows(3, 1) == 2));
}

TEST_CASE("largest errors against PyTorch", "[transformer][pytorch]") {
  // Runs after the comparisons above (Catch2 runs test cases in declaration order).
  std::printf("largest scaled error against PyTorch: double %.2g (bound %.0e), float %.2g (bound %.0e)\n",
              largest_error<double>, transformer_test::double_tolerance, largest_error<float>,
              transformer_test::float_tolerance);
  CHECK(largest_error<double> <= transformer_test::double_tolerance);
  CHECK(largest_error<float> <= transformer_test::float_tolerance);
}
