// Worksheet 004's three heads as heatmaps: in the terminal (shades or colours, from TERM and
// NO_COLOR) and as an SVG file, one panel per head plus their mean. The weights come from a
// trace computed by the compiler and checked here against the float64 numpy reference.
//   attention_heatmap [out.svg]     (default: worksheet_004_heads.svg)
#include <fstream>
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io.hpp>

#include "test_support/worksheet_data.hpp"

namespace {

namespace ws = worksheet_data::ws004;

constexpr auto trace = cxmat::trace_multi_head_attention<3>(ws::X, ws::Wq, ws::Wk, ws::Wv);

// The compiler's weights agree with numpy's (static_tests/reference/worksheets.py).
static_assert(cxmat::approx_equal(trace.weights[0], ws::ref::weights_h3_0, 1e-12, 1e-15));
static_assert(cxmat::approx_equal(trace.weights[1], ws::ref::weights_h3_1, 1e-12, 1e-15));
static_assert(cxmat::approx_equal(trace.weights[2], ws::ref::weights_h3_2, 1e-12, 1e-15));
static_assert(cxmat::approx_equal(trace.output, ws::ref::output_h3, 1e-12, 1e-15));

}  // namespace

int main(int argc, char** argv) {
  // The five rows of worksheet 004's X are its tokens.
  const std::vector<std::string> tokens{"x0", "x1", "x2", "x3", "x4"};
  cxmat::print_heatmap(std::cout, "worksheet 004 weights", trace.weights, tokens, tokens);

  const char* path = argc > 1 ? argv[1] : "worksheet_004_heads.svg";
  std::ofstream svg(path);
  cxmat::svg_heatmap_options opt;
  opt.title = "Worksheet 004: self-attention weights, H = 3";
  cxmat::write_svg_heatmap(svg, trace.weights, tokens, tokens, opt);
  svg.close();
  if (!svg) {
    std::cerr << "could not write " << path << '\n';
    return 1;
  }
  std::cout << "wrote " << path << '\n';
}
