// What the trained digit sorter attends to: the weights of each head of its two encoder layers for
// one sequence, drawn as plain-text heatmaps (docs/learn.md shows this program's output, checked
// by a test). The weights come from traces of the imported layers (cxmat/io/layer_trace.hpp); the
// program checks that the traced layers give the model's output and its sorted prediction.
//   sort_attention [heads.svg]   (with a path, also the second layer's heads and their mean as an SVG)
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <cxmat/io.hpp>
#include <cxmat/transformer.hpp>

#include "sort_embed.hpp"    // embed.weight: 10 x 32
#include "sort_encoder.hpp"  // encoder.layers.0. and .1.: 2 x nn.TransformerEncoderLayer(32, 4, 64)
#include "sort_head.hpp"     // head: nn.Linear(32, 10)
#include "sort_pos.hpp"      // pos: 8 x 32 learned positions

int main(int argc, char** argv) {
  const char* const sequence = "31415926";
  cxmat::matrix<int, 1, 8> tokens{};
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < 8; ++i) {
    tokens(0, i) = sequence[i] - '0';
    labels.push_back(std::string(1, sequence[i]));
  }
  const auto x = sort_embed(tokens) + sort_pos_weights::pos;
  const auto t0 = cxmat::trace_encoder_layer(sort_encoder.layers[0], x);
  const auto t1 = cxmat::trace_encoder_layer(sort_encoder.layers[1], t0.output);
  // The traced layers are the model: their output is the encoder's, and the head sorts it.
  const auto prediction = cxmat::argmax_rows(sort_head(t1.output));
  std::string sorted;
  for (std::size_t i = 0; i < 8; ++i) sorted += static_cast<char>('0' + prediction(0, i));
  if (!(t1.output == sort_encoder(x)) || sorted != "11234569") {
    std::printf("FAILED: the traced layers do not give the model's output (%s)\n", sorted.c_str());
    return 1;
  }
  // Over 500 pseudo-random sequences: how peaked each head is (the mean of each row's largest
  // weight) and how often a row's largest weight is on a key holding the digit that the model
  // outputs at that row's position.
  constexpr std::size_t count = 500;
  double peak[2][4]{}, on_output[2][4]{}, chance = 0;
  unsigned state = 20261126U;
  for (std::size_t s = 0; s < count; ++s) {
    cxmat::matrix<int, 1, 8> seq{};
    for (std::size_t i = 0; i < 8; ++i) {
      state = state * 1103515245U + 12345U;
      seq(0, i) = static_cast<int>((state >> 16) % 10U);
    }
    const auto s0 = cxmat::trace_encoder_layer(sort_encoder.layers[0], sort_embed(seq) + sort_pos_weights::pos);
    const auto s1 = cxmat::trace_encoder_layer(sort_encoder.layers[1], s0.output);
    const auto out = cxmat::argmax_rows(sort_head(s1.output));
    for (std::size_t i = 0; i < 8; ++i) {  // a key chosen at random holds the row's output digit
      for (std::size_t j = 0; j < 8; ++j) chance += static_cast<std::size_t>(seq(0, j)) == out(0, i) ? 1.0 / 8 : 0.0;
    }
    for (std::size_t h = 0; h < 4; ++h) {
      for (std::size_t layer = 0; layer < 2; ++layer) {
        const auto& w = layer == 0 ? s0.attention.weights[h] : s1.attention.weights[h];
        for (std::size_t i = 0; i < 8; ++i) {
          std::size_t best = 0;
          for (std::size_t j = 1; j < 8; ++j) best = w(i, j) > w(i, best) ? j : best;
          peak[layer][h] += static_cast<double>(w(i, best));
          on_output[layer][h] += static_cast<std::size_t>(seq(0, best)) == out(0, i) ? 1.0 : 0.0;
        }
      }
    }
  }
  std::printf(
      "over %zu pseudo-random sequences, per head: the mean of each row's largest weight, and the share\n"
      "of rows whose largest weight is on a key holding the digit the model outputs at that row\n",
      count);
  for (std::size_t layer = 0; layer < 2; ++layer) {
    for (std::size_t h = 0; h < 4; ++h) {
      std::printf("  layer %zu, head %zu: largest weight %.2f, on the output digit %3.0f %%\n", layer, h,
                  peak[layer][h] / (8.0 * count), 100.0 * on_output[layer][h] / (8.0 * count));
    }
  }
  std::printf("  (a key chosen at random holds that digit in %.0f %% of rows)\n\n", 100.0 * chance / (8.0 * count));
  cxmat::heatmap_options plain;
  plain.style = cxmat::heatmap_style::plain;
  // The first layer's weights are all near 1/8: on the fixed scale they would be one shade, so
  // each of its heatmaps spans its own smallest to largest weight (the legends say so).
  cxmat::heatmap_options relative = plain;
  relative.scale = cxmat::heatmap_scale::relative;
  std::cout << "input " << sequence << ", prediction " << sorted << "; rows: queries, columns: keys\n\n";
  cxmat::print_heatmap(std::cout, "layer 0", t0.attention.weights, labels, labels, relative);
  std::cout << '\n';
  cxmat::print_heatmap(std::cout, "layer 1", t1.attention.weights, labels, labels, plain);
  if (argc > 1) {
    std::ofstream svg(argv[1]);
    cxmat::svg_heatmap_options opt;
    opt.title = std::string("Digit sorter, layer 1: attention weights for ") + sequence;
    cxmat::write_svg_heatmap(svg, t1.attention.weights, labels, labels, opt);
    svg.close();
    if (!svg) {
      std::cerr << "could not write " << argv[1] << '\n';
      return 1;
    }
    std::cerr << "wrote " << argv[1] << '\n';
  }
  return 0;
}
