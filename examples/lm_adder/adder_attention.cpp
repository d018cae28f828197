// See a model generate: the adder writes the answer to 123+456= one token at a time over its
// cache of keys and values, and this program shows one step's tensors with their shapes, then
// what every head of both blocks attended to while it wrote (cxmat::generate_recording: the
// weights the model summed its values with), as plain-text heatmaps (docs/learn.md shows this
// output, checked by a test). It checks that the answer is the sum, that the recording wrote
// generate's tokens and that every computed row of weights sums to 1.
//   adder_attention [heads.svg]   (with a path, also the second block's heads and their mean as an SVG)
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <cxmat/io.hpp>

#include "adder.hpp"

namespace {

using model_type = lm_adder::model_type;
using T = model_type::value_type;
constexpr char prompt_text[] = "123+456=";
constexpr std::size_t P = sizeof(prompt_text) - 1;
constexpr std::size_t N = 4;  // "579$"
// The positions run through the model: the prompt's and every generated token's but the last,
// which is chosen, not run.
constexpr std::size_t computed = P + N - 1;
constexpr std::size_t heads = model_type::heads;

// One row of the step table: the tensor, its shape, what it is.
void row(const char* name, std::string_view shape, const char* what) {
  std::printf("  %-26s %-30s %s\n", name, std::string(shape).c_str(), what);
}

// The shapes of a step at position p (the token '5' after "123+456=", position 8), from the types
// the block computes with.
void print_step_shapes() {
  using x_type = cxmat::matrix<T, 1, model_type::d_model>;
  using kv_row = cxmat::matrix<T, 1, model_type::kv_width>;
  using cache_rows = cxmat::matrix<T, cxmat::extent{P + N}, model_type::kv_width>;
  using ffn_row = cxmat::matrix<T, 1, adder_dims::d_ff>;
  using logits_row = cxmat::matrix<T, 1, model_type::vocab>;
  std::printf("one generation step: the token '5' at position %zu, through each of the %zu blocks\n", P,
              model_type::layers);
  row("x", cxmat::shape_text<x_type>(), "the token's embedding row (then the previous block's output)");
  row("h = rms_norm(x)", cxmat::shape_text<x_type>(), "normalised, times the norm's weight");
  row("q = h W_q", cxmat::shape_text<x_type>(), "4 query heads of width 12, turned by rotary at position 8");
  row("k = h W_k, v = h W_v", cxmat::shape_text<kv_row>(), "2 key/value heads of width 12; k turned by rotary");
  row("cache K, V", cxmat::shape_text<cache_rows>(), "per block: k and v written to row 8; rows 0..8 filled");
  row("scores of head h", "1 x 9", "q_h . K[0..8, kv(h)]^T / sqrt(12), kv(h) = h / 2: positions 0..8 only");
  row("weights of head h", "1 x 9", "softmax of the scores: what head h attends to (the heatmaps below)");
  row("heads", cxmat::shape_text<x_type>(), "each head's weights times V[0..8, kv(h)], side by side");
  row("x1 = x + heads W_o", cxmat::shape_text<x_type>(), "the residual stream");
  row("silu(h2 W_gate) * h2 W_up", cxmat::shape_text<ffn_row>(), "SwiGLU, h2 = rms_norm(x1)");
  row("x + ... W_down", cxmat::shape_text<x_type>(), "the block's output");
  row("logits", cxmat::shape_text<logits_row>(), "rms_norm, then the head: the next token is the largest");
}

}  // namespace

int main(int argc, char** argv) {
  const auto prompt = lm_adder::tokens_of<P>(prompt_text);
  const cxmat::stop_token stop{lm_adder::stop};
  const auto run = cxmat::generate_recording<N>(lm_adder::adder, prompt, cxmat::greedy, stop);
  const auto answer = cxmat::decode(lm_adder::tokenizer, run.tokens);
  bool rows_sum_to_1 = true;
  for (const auto& layer : run.attention) {
    for (std::size_t h = 0; h < heads; ++h) {
      for (std::size_t i = 0; i < computed; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j <= i; ++j) sum += static_cast<double>(layer.items[h](i, j));
        rows_sum_to_1 = rows_sum_to_1 && std::fabs(sum - 1.0) < 1e-5;
      }
    }
  }
  if (answer != "579$" || !(run.tokens == cxmat::generate<N>(lm_adder::adder, prompt, cxmat::greedy, stop)) ||
      !rows_sum_to_1) {
    std::printf("FAILED: the answer is '%s', not 579$, or the recording differs from generate\n", answer.c_str());
    return 1;
  }
  std::printf("%s%s: the prompt's %zu tokens in one prefill, then one step per token over the cache\n\n", prompt_text,
              answer.c_str(), P);
  print_step_shapes();

  // The weights of the computed positions: row i is the query at position i (it chooses the token
  // at i + 1), column j the key at position j, both labelled with the character there.
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < computed; ++i)
    labels.push_back(std::string(1, lm_adder::characters[i < P ? prompt(0, i) : run.tokens(0, i - P)]));
  std::printf(
      "\nwhat each head attended to: row i is the query at position i, which chooses the character\n"
      "after it (rows '=', '5', '7' and '9' wrote 5, 7, 9 and $), column j the key at position j\n");
  cxmat::heatmap_options options{};
  options.style = cxmat::heatmap_style::plain;
  std::vector<cxmat::batch<T, heads, computed, computed>> blocks(model_type::layers);
  for (std::size_t l = 0; l < model_type::layers; ++l) {
    for (std::size_t h = 0; h < heads; ++h) {
      for (std::size_t i = 0; i < computed; ++i) {
        for (std::size_t j = 0; j < computed; ++j) blocks[l].items[h](i, j) = run.attention[l].items[h](i, j);
      }
    }
    std::cout << '\n';
    cxmat::print_heatmap(std::cout, "block " + std::to_string(l), blocks[l], labels, labels, options);
  }
  if (argc > 1) {
    cxmat::svg_heatmap_options svg{};
    svg.title = "The adder writing 579$ after 123+456=: block 1's heads";
    svg.cell_size = 28;
    std::ofstream out(argv[1]);
    cxmat::write_svg_heatmap(out, blocks[1], labels, labels, svg);
  }
  return 0;
}
