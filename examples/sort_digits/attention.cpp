// What the digit sorter's heads look at: each layer's attention weights per head for 31415926,
// drawn as heatmaps (cxmat/io/heatmap.hpp), and, where the build made them, compared with
// PyTorch's (within 1e-5: both compute in float, in different orders).
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <cxmat/io/heatmap.hpp>
#include <cxmat/transformer.hpp>

#include "sort_embed.hpp"
#include "sort_encoder.hpp"
#include "sort_pos.hpp"
#if CXMAT_SORT_DIGITS_REFERENCE
#include "held_out.hpp"  // pytorch_attention
#endif

// Head h's softmax(Q_h·K_hᵀ/√d_k) of one layer's self-attention, with its projection biases.
template <class Layer, class X>
constexpr auto weights_of_heads(const Layer& layer, const X& x) {
  const auto& a = layer.self_attn;
  return cxmat::multi_head_attention_weights<Layer::heads>(x, a.w_q, a.w_k, cxmat::query_bias(a.b_q),
                                                           cxmat::key_bias(a.b_k));
}

int main() {
  constexpr cxmat::matrix<int, 1, 8> digits{{{3, 1, 4, 1, 5, 9, 2, 6}}};
  constexpr auto x = sort_embed(digits) + sort_pos_weights::pos;
  // The weights of layer 0 on x and of layer 1 on layer 0's output, computed by the compiler.
  constexpr auto weights0 = weights_of_heads(sort_encoder.layers[0], x);
  constexpr auto weights1 = weights_of_heads(sort_encoder.layers[1], sort_encoder.layers[0](x));
  const std::vector<std::string> labels = {"3", "1", "4", "1", "5", "9", "2", "6"};
  cxmat::heatmap_options plain;
  plain.style = cxmat::heatmap_style::plain;
  cxmat::print_heatmap(std::cout, "layer 0", weights0, labels, labels, plain);
  cxmat::print_heatmap(std::cout, "layer 1", weights1, labels, labels, plain);
#if CXMAT_SORT_DIGITS_REFERENCE
  double worst = 0;
  for (std::size_t l = 0; l < 2; ++l) {
    for (std::size_t h = 0; h < 4; ++h) {
      for (std::size_t i = 0; i < 8; ++i) {
        for (std::size_t j = 0; j < 8; ++j) {
          const float w = (l == 0 ? weights0 : weights1).items[h](i, j);
          const double d = static_cast<double>(w) - static_cast<double>(pytorch_attention[l][h][i][j]);
          worst = d < 0 ? (-d > worst ? -d : worst) : (d > worst ? d : worst);
        }
      }
    }
  }
  std::printf("attention weights against PyTorch's: largest difference %.2g\n", worst);
  return worst <= 1e-5 ? 0 : 1;
#else
  return 0;
#endif
}
