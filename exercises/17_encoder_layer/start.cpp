// Exercise 17: one whole encoder layer.          Check: bash scripts/exercise.sh 17
#include <cxmat/cxmat.hpp>
#include <cxmat/transformer.hpp>

#include "answers.hpp"

// n = 3 tokens, d_model = 4, H = 2 heads (d_k = 2), d_ff = 6.
constexpr cxmat::matrix<double, 3, 4> X{{{1, 0, -1, 0.5}, {0, 2, 1, -1}, {0.5, 0.5, 0, 1}}};

// nn.TransformerEncoderLayer(4, 2, dim_feedforward=6) in evaluation mode: its weights, cxmat's way
// round (d_in x d_out), in the order of the members self_attn, linear1, linear2, norm1, norm2.
constexpr cxmat::encoder_layer<double, 4, 2, 6> layer{
    {{{{1, 0.5, 0.25, 0}, {0, 1, 0, -0.25}, {-0.5, 0, 0.5, 0}, {0, -1, 0, 0.5}}},  // W_q
     {{{0, 1, 0, 0.25}, {1, 0, -0.25, 0}, {0, 0.5, 0.5, 0}, {0.5, 0, 0, 0.5}}},     // W_k
     {{{1, 0, 0, 0.5}, {0, 1, 0.5, 0}, {0, 0.5, 1, 0}, {0.5, 0, 0, 1}}},               // W_v
     {{{0.1, 0, 0, -0.1}}},                                                            // b_q
     {{{0, 0.2, 0, 0}}},                                                               // b_k
     {{{0, 0, 0.5, 0}}},                                                               // b_v
     {{{0.5, 0, 0, 0.5}, {0, 0.5, 0.5, 0}, {0.5, -0.5, 0, 0}, {0, 0, 0.5, -0.5}}},     // W_o
     {{{0, 0.25, 0, -0.25}}}},                                                         // b_o
    {{{{1, 0, 0.5, 0, -1, 0.25}, {0, 1, 0, 0.5, 0.5, -0.5}, {0.5, 0, -1, 0, 0.25, 1}, {0, 0.5, 0, -1, 1, 0}}},
     {{{0, -0.5, 0.25, 0, 0, 0.5}}}},  // linear1: d_model x d_ff, 1 x d_ff
    {{{{0.5, 0, 0, 0.25}, {0, 0.5, 0.25, 0}, {0.25, 0, 0.5, 0}, {0, 0.25, 0, 0.5}, {-0.5, 0, 0.5, 0}, {0, -0.5, 0, 0.5}}},
     {{{0.25, 0, -0.25, 0}}}},                                // linear2: d_ff x d_model, 1 x d_model
    {{{{1, 0.5, 2, 1}}}, {{{0, 0.25, 0, -0.25}}}, 1e-5},     // norm1: gamma, beta, eps
    {{{{2, 1, 1, 0.5}}}, {{{0.5, 0, -0.5, 0}}}, 1e-5}};     // norm2

constexpr auto attended = layer.self_attn(X);  // n x d_model

// TODO: the post-norm layer (PyTorch's default): the norm comes after each residual addition.
constexpr auto h = X + layer.self_attn(layer.norm1(X));
constexpr auto Y = h + layer.linear2(cxmat::relu(layer.linear1(layer.norm2(h))));

// ---- The checks. Leave them as they are. ----
static_assert(answers::close(attended, answers::ex17::attended), "self_attn(X) = Concat(head 0, head 1).W_o + b_o (given)");
static_assert(answers::close(h, answers::ex17::h), "post-norm: h = norm1(X + self_attn(X)), the norm after the residual addition");
static_assert(answers::close(Y, answers::ex17::Y), "post-norm: Y = norm2(h + linear2(relu(linear1(h))))");
static_assert(answers::close(Y, layer(X)), "layer(X), cxmat::encoder_layer, computes the same");
