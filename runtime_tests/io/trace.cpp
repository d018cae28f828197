// Traces at run time: the same properties the static tests assert (trace_checks.hpp) on values
// the compiler cannot fold, the steps against an independent float64 reference, and the text.
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <sstream>
#include <string>

#include <cxmat/cxmat.hpp>
#include <cxmat/io.hpp>

#include "test_support/catch.hpp"
#include "test_support/checks.hpp"
#include "test_support/runtime_value.hpp"
#include "test_support/trace_checks.hpp"
#include "test_support/transformer_reference.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

namespace ws4 = worksheet_data::ws004;
namespace ws0 = worksheet_data::ws000;
using cxmat::matrix;
using cxmat_test::at_run_time;
using cxmat_test::matches_reference;

}  // namespace

TEST_CASE("a trace's output is the library's output, at run time", "[io][trace]") {
  const auto x = at_run_time(ws4::X);
  const auto wq = at_run_time(ws4::Wq), wk = at_run_time(ws4::Wk), wv = at_run_time(ws4::Wv);
  CHECK(io_checks::trace_matches_library<1>(x, wq, wk, wv));
  CHECK(io_checks::trace_matches_library<3>(x, wq, wk, wv));
  CHECK(io_checks::trace_matches_library<3>(x, wq, wk, wv, cxmat::causal));
  const auto bias = at_run_time(matrix<double, 1, 6>{{{0.5, -1, 0.25, 2, 0, -0.75}}});
  CHECK(io_checks::trace_matches_library<2>(x, wq, wk, wv, cxmat::query_bias(bias), cxmat::causal_lower_right,
                                            cxmat::value_bias(bias), cxmat::scale(0.5)));
  const auto wo = at_run_time(ws4::Wk);
  CHECK(
      io_checks::trace_with_wo_matches_library<3>(x, wq, wk, wv, wo, cxmat::output_bias(bias), cxmat::key_bias(bias)));
}

TEST_CASE("a trace's steps match the float64 references", "[io][trace]") {
  const auto x = at_run_time(ws4::X);
  const auto wq = at_run_time(ws4::Wq), wk = at_run_time(ws4::Wk), wv = at_run_time(ws4::Wv);
  const auto t = cxmat::trace_multi_head_attention<3>(x, wq, wk, wv);
  CHECK(io_checks::scores_are_scaled_dot_products(t, std::sqrt(2.0), 1e-14));
  CHECK(matches_reference(t.weights[0], ws4::ref::weights_h3_0));
  CHECK(matches_reference(t.weights[1], ws4::ref::weights_h3_1));
  CHECK(matches_reference(t.weights[2], ws4::ref::weights_h3_2));
  CHECK(matches_reference(t.output, ws4::ref::output_h3));
  // Per-head form (worksheet 000): the same steps as numpy's solution.
  const auto heads =
      cxmat::make_heads(cxmat::attention_head{at_run_time(ws0::W0q), at_run_time(ws0::W0k), at_run_time(ws0::W0v)},
                        cxmat::attention_head{at_run_time(ws0::W1q), at_run_time(ws0::W1k), at_run_time(ws0::W1v)});
  const auto t0 = cxmat::trace_multi_head_attention(at_run_time(ws0::X), heads, at_run_time(ws0::Wo));
  CHECK(matches_reference(t0.scores[0], ws0::ref::scores0));
  CHECK(matches_reference(t0.scores[1], ws0::ref::scores1));
  CHECK(matches_reference(t0.concat, ws0::ref::Z));
  CHECK(matches_reference(t0.output, ws0::ref::output));
  CHECK(cxmat::approx_equal(t0.output, cxmat::multi_head_attention(at_run_time(ws0::X), heads, at_run_time(ws0::Wo)),
                            1e-15));
}

TEST_CASE("a trace prints its steps in the worksheets' order", "[io][trace]") {
  const matrix<double, 2, 2> x{{{1, 2}, {3, 4}}}, id{{{1, 0}, {0, 1}}};
  const matrix<double, 2, 4> w{{{1, 0, 0, 1}, {0, 1, 1, 0}}};
  std::ostringstream os;
  cxmat::print(os, cxmat::trace_multi_head_attention<2>(x, w, w, w, cxmat::vconcat(id, id)));
  const std::string text = os.str();
  const char* steps[] = {"X (2 x 2):\n[[1. 2.]\n [3. 4.]]\n",
                         "Q = X W_q (2 x 4):\n",
                         "K = X W_k (2 x 4):\n",
                         "V = X W_v (2 x 4):\n",
                         "Head 0 - Q_0 = Q[:, 0:2] (2 x 2):\n[[1. 2.]\n [3. 4.]]\n",
                         "Head 1 - V_1 = V[:, 2:4] (2 x 2):\n[[2. 1.]\n [4. 3.]]\n",
                         "Head 0 - Attention Scores S_0 = Q_0 K_0^T / sqrt(2) (2 x 2):\n",
                         "Head 1 - Softmax Attention Weights A_1 = softmax(S_1) (2 x 2):\n",
                         "Head 1 - Weighted Sum Z_1 = A_1 V_1 (2 x 2):\n",
                         "Multi-Head Output Z = Concat(Z_0, Z_1) (2 x 4):\n",
                         "Output Y = Z W_o (2 x 2):\n"};
  std::size_t at = 0;
  for (const char* step : steps) {
    const auto found = text.find(step, at);
    INFO(step);
    REQUIRE(found != std::string::npos);
    at = found;
  }
  // Heads numbered from 1, as worksheets 000-002 do.
  std::ostringstream one;
  cxmat::print(one, cxmat::trace_multi_head_attention<2>(x, w, w, w), {{.first_head_number = 1}});
  CHECK(one.str().find("Head 2 - Weighted Sum Z_2 = A_2 V_2 (2 x 2):\n") != std::string::npos);
  CHECK(one.str().find("Multi-Head Output Z = Concat(Z_1, Z_2) (2 x 4):\n") != std::string::npos);
  CHECK(one.str().find("Head 0") == std::string::npos);
  CHECK(one.str().find("_0") == std::string::npos);
}

TEST_CASE("an encoder layer's trace: the layer's output, its pieces, and PyTorch's numbers", "[io][trace]") {
  namespace ref = transformer_ref;
  // Post-norm, relu, H = 8, causal and key padding (nn.TransformerEncoderLayer's output in ref).
  const auto& post = ref::enc_relu_post_causal_padding<double>;
  const auto x = at_run_time(ref::enc_relu_post_causal_padding_x<double>);
  const auto keep = cxmat::key_padding(ref::enc_relu_post_causal_padding_keep);
  const auto t = cxmat::trace_encoder_layer(post, x, cxmat::causal, keep);
  CHECK(t.output == post(x, cxmat::causal, keep));
  CHECK(cxmat::approx_equal(t.output, ref::enc_relu_post_causal_padding_y, 1e-12, 1e-12));
  CHECK(t.attention_input == x);
  CHECK(t.attention.output == post.self_attn(x, cxmat::causal, keep));
  CHECK(t.after_attention == x + t.attention.output);
  CHECK(t.h == post.norm1(t.after_attention));
  CHECK(t.ff_output == post.feed_forward(t.h));
  bool relu_of_preactivation = true;
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 16; ++j) {
      const double p = t.ff_preactivation(i, j);
      relu_of_preactivation = relu_of_preactivation && t.ff_hidden(i, j) == (p > 0 ? p : 0.0);
    }
  }
  CHECK(relu_of_preactivation);
  CHECK(t.attention.weights[0](0, 1) == 0);  // causal: token 0 sees only itself
  CHECK(t.attention.weights[7](3, 4) == 0);  // key 4 is padding
  // Pre-norm, gelu, H = 8, causal and key padding.
  const auto& pre = ref::enc_gelu_pre_causal_padding<double>;
  const auto xp = at_run_time(ref::enc_gelu_pre_causal_padding_x<double>);
  const auto keep_p = cxmat::key_padding(ref::enc_gelu_pre_causal_padding_keep);
  const auto tp = cxmat::trace_encoder_layer(pre, xp, cxmat::causal, keep_p);
  CHECK(tp.output == pre(xp, cxmat::causal, keep_p));
  CHECK(cxmat::approx_equal(tp.output, ref::enc_gelu_pre_causal_padding_y, 1e-12, 1e-12));
  CHECK(tp.attention_input == pre.norm1(xp));
  CHECK(tp.ff_input == pre.norm2(tp.h));
  CHECK(tp.output == tp.h + tp.ff_output);
}

TEST_CASE("an encoder layer's trace prints its steps in the layer's order", "[io][trace]") {
  namespace ref = transformer_ref;
  const auto order = [](const std::string& text, std::initializer_list<const char*> steps) {
    std::size_t at = 0;
    for (const char* step : steps) {
      const auto found = text.find(step, at);
      INFO(step);
      REQUIRE(found != std::string::npos);
      at = found;
    }
  };
  std::ostringstream post;
  cxmat::print(post,
               cxmat::trace_encoder_layer(ref::enc_gelu_post_padding<double>, ref::enc_gelu_post_padding_x<double>));
  order(post.str(),
        {"X (5 x 8):\n", "Q = X W_q + b_q (5 x 8):\n", "K = X W_k + b_k (5 x 8):\n", "V = X W_v + b_v (5 x 8):\n",
         "Attention Scores S = Q K^T / sqrt(8) (5 x 5):\n", "Softmax Attention Weights A = softmax(S) (5 x 5):\n",
         "Weighted Sum Z = A V (5 x 8):\n", "Attention Output O = Z W_o + b_o (5 x 8):\n", "R1 = X + O (5 x 8):\n",
         "H = norm1(R1) (5 x 8):\n", "F = H W_1 + b_1 (5 x 16):\n", "G = gelu(F) (5 x 16):\n",
         "FF = G W_2 + b_2 (5 x 8):\n", "R2 = H + FF (5 x 8):\n", "Output Y = norm2(R2) (5 x 8):\n"});
  std::ostringstream pre;
  cxmat::print(pre, cxmat::trace_encoder_layer(ref::enc_relu_pre_padding<double>, ref::enc_relu_pre_padding_x<double>));
  order(pre.str(), {"X (5 x 8):\n", "N1 = norm1(X) (5 x 8):\n", "Q = N1 W_q + b_q (5 x 8):\n",
                    "Attention Output O = Z W_o + b_o (5 x 8):\n", "H = X + O (5 x 8):\n", "N2 = norm2(H) (5 x 8):\n",
                    "F = N2 W_1 + b_1 (5 x 16):\n", "G = relu(F) (5 x 16):\n", "FF = G W_2 + b_2 (5 x 8):\n",
                    "Output Y = H + FF (5 x 8):\n"});
  CHECK(pre.str().find("norm2(R2)") == std::string::npos);
}
