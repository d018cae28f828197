// One whole transformer encoder layer (nn.TransformerEncoderLayer: post-norm, relu, H = 2 heads,
// n = 4 tokens, d_model = 8, d_ff = 16) computed by the compiler, printed with the shape of every
// step. The layer is a value holding its weights; the compiler checks that it equals the same
// layer assembled from the pieces (attention, residual, layer norm, feed-forward) and that each
// output row is normalised (mean 0, variance 1 before γ and β).
#include <cstdio>
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>
#include <cxmat/transformer.hpp>

CXMAT_DIM(n, 4);
CXMAT_DIM(d_model, 8);
CXMAT_DIM(d_ff, 16);

namespace {

using layer_type = cxmat::encoder_layer<double, d_model, 2, d_ff>;

// Small weights: a shifted identity and a few ±1/2 entries, so the numbers stay readable.
constexpr auto shifted(int shift, double value) {
  cxmat::matrix<double, d_model, d_model> w{};
  for (std::size_t i = 0; i < 8; ++i) w(i, (i + static_cast<std::size_t>(shift)) % 8) = value;
  return w;
}
constexpr auto ramp_row(double step) {
  cxmat::matrix<double, 1, d_model> b{};
  for (std::size_t j = 0; j < 8; ++j) b(0, j) = step * static_cast<double>(j) - 0.5;
  return b;
}
constexpr auto up_weight() {
  cxmat::matrix<double, d_model, d_ff> w{};
  for (std::size_t i = 0; i < 8; ++i) {
    w(i, i) = 1.0;
    w(i, i + 8) = -0.5;
  }
  return w;
}
constexpr auto down_weight() {
  cxmat::matrix<double, d_ff, d_model> w{};
  for (std::size_t i = 0; i < 8; ++i) {
    w(i, (i + 1) % 8) = 0.5;
    w(i + 8, i) = 1.0;
  }
  return w;
}

constexpr auto ones = cxmat::filled<double, 1, d_model>(1.0);
constexpr cxmat::matrix<double, 1, d_model> zeros{};

constexpr layer_type layer{
    {shifted(0, 1.0), shifted(1, 1.0), shifted(2, 0.5), ramp_row(0.125), zeros, ramp_row(0.25), shifted(3, 1.0), zeros},
    {up_weight(), cxmat::filled<double, 1, d_ff>(0.125)},
    {down_weight(), zeros},
    {ones, zeros, 1e-5},
    {ones, zeros, 1e-5}};

constexpr cxmat::matrix<double, n, d_model> x{{{1, 0, 0.5, 0, -1, 0, 0.25, 0},
                                               {0, 1, 0, -0.5, 0, 2, 0, 0.5},
                                               {0.5, 0.5, -1, 0, 0, 0, 1, 0},
                                               {0, 0, 0, 1, 1, 1, -1, -1}}};

// The layer, evaluated by the compiler, with causal self-attention.
constexpr auto y = layer(x, cxmat::causal);

// The same layer from the pieces: post-norm, x = norm1(x + attention(x)), x = norm2(x + ff(x)).
constexpr auto attention = cxmat::multi_head_attention<2>(
    x, layer.self_attn.w_q, layer.self_attn.w_k, layer.self_attn.w_v, layer.self_attn.w_o,
    cxmat::query_bias(layer.self_attn.b_q), cxmat::key_bias(layer.self_attn.b_k),
    cxmat::value_bias(layer.self_attn.b_v), cxmat::output_bias(layer.self_attn.b_o), cxmat::causal);
constexpr auto h1 = cxmat::layer_norm(x + attention, ones, zeros, 1e-5);
constexpr auto ff = cxmat::feed_forward<cxmat::activation::relu>(h1, layer.linear1.weight, layer.linear1.bias,
                                                                 layer.linear2.weight, layer.linear2.bias);
constexpr auto h2 = cxmat::layer_norm(h1 + ff, ones, zeros, 1e-5);
static_assert(y == h2, "the layer is its pieces, bit for bit");

// γ = 1, β = 0: every output row has mean 0 and (biased) variance 1 / (1 + eps / var).
constexpr bool rows_normalised() {
  for (std::size_t i = 0; i < 4; ++i) {
    double sum = 0, squares = 0;
    for (std::size_t j = 0; j < 8; ++j) sum += y(i, j);
    for (std::size_t j = 0; j < 8; ++j) squares += y(i, j) * y(i, j);
    const double mean = sum / 8, var = squares / 8;
    if (mean > 1e-15 || mean < -1e-15 || var > 1.0 || var < 1.0 - 1e-4) return false;
  }
  return true;
}
static_assert(rows_normalised());

template <class M>
void show(const char* label, const M& m) {
  std::printf("%-40s %s\n", label, cxmat::shape_of(m).c_str());
}

}  // namespace

int main() {
  show("x", x);
  show("self_attn.w_q, w_k, w_v, w_o", layer.self_attn.w_q);
  show("attention(x), causal, H = 2", attention);
  show("h = norm1(x + attention(x))", h1);
  show("linear1.weight", layer.linear1.weight);
  show("relu(h W1 + b1)", cxmat::relu(cxmat::linear(h1, layer.linear1.weight, layer.linear1.bias)));
  show("linear2.weight", layer.linear2.weight);
  show("ff(h)", ff);
  show("y = norm2(h + ff(h))", y);
  std::printf("\ny = layer(x, causal), computed by the compiler:\n");
  cxmat::print_values(std::cout, y);
  // At run time the same layer computes with the run-time kernels (blocked and vectorised, so
  // sums may be ordered differently): equal to the compiler's result up to rounding.
  volatile double first = x(0, 0);
  auto x_run = x;
  x_run(0, 0) = first;
  const auto y_run = layer(x_run, cxmat::causal);
  double worst = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 8; ++j) {
      const double d = y_run(i, j) - y(i, j);
      worst = d > worst ? d : (-d > worst ? -d : worst);
    }
  }
  std::printf("largest difference between run time and compile time: %.3g\n", worst);
  return worst <= 1e-14 ? 0 : 1;
}
