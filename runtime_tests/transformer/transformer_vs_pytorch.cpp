// The transformer layer at run time, compared with PyTorch 1.13 in float64
// (test_support/transformer_reference.hpp): double within 1e-12 and float within 1e-6 of the
// largest magnitude of each expected matrix (docs/numerics.md). Inputs pass through volatile
// copies, so the run-time paths compute them.
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

template <class B>
B batch_at_run_time(const B& x) {
  B out{};
  for (std::size_t b = 0; b < B::count; ++b) out.items[b] = at_run_time(x.items[b]);
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("activations equal PyTorch's", "[transformer][pytorch]", double, float) {
  const auto x = at_run_time(act_x<TestType>);
  CHECK(scaled_error(cxmat::relu(x), act_relu) <= tolerance<TestType>);
  CHECK(scaled_error(cxmat::sigmoid(x), act_sigmoid) <= tolerance<TestType>);
  CHECK(scaled_error(cxmat::silu(x), act_silu) <= tolerance<TestType>);
  CHECK(scaled_error(cxmat::gelu_tanh(x), act_gelu_tanh) <= tolerance<TestType>);
}

TEMPLATE_TEST_CASE("norms and SwiGLU equal PyTorch's and LLaMA's formulas", "[transformer][pytorch]", double, float) {
  const auto x = at_run_time(ln_x<TestType>);
  CHECK(scaled_error(cxmat::layer_norm(x, ln_gamma<TestType>, ln_beta<TestType>, TestType(1e-5)), ln_y) <=
        tolerance<TestType>);
  CHECK(scaled_error(cxmat::layer_norm(x, ln_eps_gamma<TestType>, ln_eps_beta<TestType>, TestType(1e-3)), ln_eps_y) <=
        tolerance<TestType>);
  const cxmat::layer_norm_module<TestType, 8> norm{ln_gamma<TestType>, ln_beta<TestType>};
  CHECK(scaled_error(norm(x), ln_y) <= tolerance<TestType>);
  CHECK(scaled_error(cxmat::rms_norm(x, rms_gamma<TestType>, TestType(1e-6)), rms_y) <= tolerance<TestType>);
  CHECK(scaled_error(cxmat::swiglu(x, swiglu_w_gate<TestType>, swiglu_w_up<TestType>, swiglu_w_down<TestType>),
                     swiglu_y) <= tolerance<TestType>);
}

TEMPLATE_TEST_CASE("encoder layers equal nn.TransformerEncoderLayer", "[transformer][pytorch]", double, float) {
  SECTION("relu, post-norm, H = 2") {
    CHECK(scaled_error(enc_relu_post<TestType>(at_run_time(enc_relu_post_x<TestType>)), enc_relu_post_y) <=
          tolerance<TestType>);
  }
  SECTION("relu, pre-norm, causal, H = 4") {
    CHECK(scaled_error(enc_relu_pre_causal<TestType>(at_run_time(enc_relu_pre_causal_x<TestType>), cxmat::causal),
                       enc_relu_pre_causal_y) <= tolerance<TestType>);
  }
  SECTION("a batch of 2 with a key padding per item") {
    const auto y =
        enc_batch<TestType>(batch_at_run_time(enc_batch_x<TestType>), cxmat::batch_key_padding(enc_batch_keep));
    CHECK(scaled_error(y.items[0], enc_batch_y.items[0]) <= tolerance<TestType>);
    CHECK(scaled_error(y.items[1], enc_batch_y.items[1]) <= tolerance<TestType>);
  }
  SECTION("a stack of 2 pre-norm layers with a final norm, causal") {
    CHECK(scaled_error(enc_stack<TestType>(at_run_time(enc_stack_x<TestType>), cxmat::causal), enc_stack_y) <=
          tolerance<TestType>);
  }
}

TEMPLATE_TEST_CASE("decoder layers equal nn.TransformerDecoderLayer", "[transformer][pytorch]", double, float) {
  SECTION("relu, post-norm, H = 2, causal, memory key padding") {
    CHECK(scaled_error(dec_relu_post<TestType>(at_run_time(dec_relu_post_x<TestType>),
                                               at_run_time(dec_relu_post_memory<TestType>), cxmat::causal,
                                               cxmat::on_memory(cxmat::key_padding(dec_relu_post_memory_keep))),
                       dec_relu_post_y) <= tolerance<TestType>);
  }
  SECTION("a stack of 2 pre-norm layers with a final norm, causal") {
    CHECK(scaled_error(dec_stack<TestType>(at_run_time(dec_stack_x<TestType>), at_run_time(dec_stack_memory<TestType>),
                                           cxmat::causal),
                       dec_stack_y) <= tolerance<TestType>);
  }
}
