// The program behind docs/show.md: each section between "show:begin" and "show:end" is copied
// into the document with the output it prints (checked by a test, so neither can drift).
#include <array>
#include <cstddef>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <cxmat/cxmat.hpp>
#include <cxmat/io.hpp>
#include <cxmat/transformer.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_k, 3);
CXMAT_DIM(d_ff, 3);

namespace {

void section(const char* name) { std::cout << "=== " << name << " ===\n"; }

}  // namespace

int main() {
  using cxmat::matrix;
  constexpr double inf = std::numeric_limits<double>::infinity();

  section("numbers");
  // show:begin numbers
  // numpy's format: shortest digits, a bare point for integral values, one notation per array.
  std::cout << matrix<double, 2, 3>{{{7, 8, 9}, {15.8, 18.4, 21}}};
  std::cout << matrix<double, 1, 3>{{{1e300, 4e-14, -0.5}}};
  std::cout << matrix<double, 1, 4>{{{1.0 / 3, -inf, 100, std::numeric_limits<double>::quiet_NaN()}}};
  cxmat::print_options opt;
  opt.precision = 3;
  opt.suppress_small = true;  // numpy's suppress=True: tiny values print as 0.
  cxmat::print_values(std::cout, matrix<double, 1, 3>{{{1.6506504746845662e-62, 1.0, 0.25}}}, opt);
  // show:end
  static_assert(cxmat::float_notation{} == cxmat::float_notation::automatic);

  section("wrapping");
  // show:begin wrapping
  // A row is one line, however wide; line_width = 75 wraps it as numpy's default linewidth does.
  matrix<double, 2, 8> sevenths{};
  for (std::size_t j = 0; j < 16; ++j) sevenths(j / 8, j % 8) = static_cast<double>(j + 1) / 7;
  std::cout << sevenths;
  cxmat::print_values(std::cout, sevenths, {.line_width = 75});
  // show:end

  section("shapes");
  // show:begin shapes
  // Named dimensions print with the shape; a batch's head axis is named H by as_heads.
  constexpr matrix<double, n, d_model> X{{{1, 2, 3, 4}, {5, 6, 7, 8}}};
  constexpr matrix<double, d_model, d_k> W{{{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}, {0.7, 0.8, 0.9}, {1.0, 1.1, 1.2}}};
  cxmat::print(std::cout, "Q = X W", X * W);
  constexpr cxmat::batch<double, 2, n, n> weights{{{{{0.25, 0.75}, {0.5, 0.5}}}, {{{1, 0}, {0.125, 0.875}}}}};
  cxmat::print(std::cout, "weights", cxmat::as_heads(weights));
  // show:end
  static_assert(cxmat::shape_text(X * W) == "2 x 3 (n x d_k)");

  section("tables");
  // show:begin tables
  // Markdown and LaTeX for slides: no padding, no bare point, labels escaped for LaTeX.
  constexpr matrix<double, 2, 3> A{{{0.25, 0.75, 0}, {0.5, 0.125, 0.375}}};
  const cxmat::table_options labels{{}, {"x_0", "x_1"}, {"k_0", "k_1", "k_2"}};
  cxmat::print_markdown(std::cout, A, labels);
  cxmat::print_latex(std::cout, A, cxmat::latex_style::tabular, labels);
  cxmat::print_latex(std::cout, matrix<double, 2, 2>{{{1.5e-14, 1}, {0.5, 0.5}}});
  // show:end

  section("trace");
  // show:begin trace
  // Every step of an attention call, computed by the compiler; any step can be asserted.
  constexpr matrix<double, 2, 2> X1{{{1, 2}, {3, 4}}};
  constexpr matrix<double, 2, 2> Wq{{{1, 0}, {0, 1}}}, Wk{{{0, 1}, {1, 0}}}, Wv{{{1, 0}, {0, -1}}};
  constexpr auto trace = cxmat::trace_self_attention(X1, Wq, Wk, Wv);
  static_assert(trace.output == cxmat::self_attention(X1, Wq, Wk, Wv));
  static_assert(trace.scores[0](0, 1) > 7.0710 && trace.scores[0](0, 1) < 7.0711);  // 10 / sqrt(2)
  cxmat::print(std::cout, trace);
  // show:end

  section("encoder_trace");
  // show:begin encoder_trace
  // nn.TransformerEncoderLayer(4, 2, dim_feedforward=3) as a value, its dimensions named; the trace
  // of one call holds every intermediate, and its output is the layer's.
  constexpr cxmat::encoder_layer<double, d_model, 2, d_ff> layer{
      {{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}},           // W_q
       {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}, {0, 0, 1, 0}}},           // W_k
       {{{0.5, 0, 0, 0}, {0, 0.5, 0, 0}, {0, 0, 0.5, 0}, {0, 0, 0, 0.5}}},   // W_v
       {{{0, 0, 0, 0}}},                                                     // b_q
       {{{0, 0, 0, 0}}},                                                     // b_k
       {{{0, 0, 0, 0}}},                                                     // b_v
       {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}},           // W_o
       {{{0, 0, 0, 0}}}},                                                    // b_o
      {{{{1, 0, -1}, {0, 1, 0}, {-1, 0, 1}, {0, -1, 0}}}, {{{0, 0.5, 0}}}},  // linear1: W_1, b_1
      {{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}}, {{{0, 0, 0, 0}}}},      // linear2: W_2, b_2
      {{{{1, 1, 1, 1}}}, {{{0, 0, 0, 0}}}, 1e-5},                            // norm1: gamma, beta, eps
      {{{{1, 1, 1, 1}}}, {{{0, 0, 0, 0}}}, 1e-5}};                           // norm2
  constexpr matrix<double, n, d_model> x{{{1, 0, -1, 0.5}, {0, 1, 0.5, -1}}};
  constexpr auto t = cxmat::trace_encoder_layer(layer, x, cxmat::causal);
  static_assert(t.output == layer(x, cxmat::causal));
  static_assert(t.attention.weights[0](0, 1) == 0);  // causal: token 0 sees only itself
  static_assert(t.after_attention == x + t.attention.output);
  cxmat::print(std::cout, t, {{.precision = 4}});
  // show:end

  section("heatmap");
  // show:begin heatmap
  // A terminal heatmap in Unicode blocks (the automatic style picks from TERM and NO_COLOR).
  cxmat::heatmap_options shades;
  shades.style = cxmat::heatmap_style::unicode;
  const std::array tokens{"I", "saw", "it"};  // a length in the type: 2 or 4 labels do not compile
  constexpr matrix<double, 3, 3> attn{{{1, 0, 0}, {0.5, 0.5, 0}, {0.05, 0.15, 0.8}}};
  cxmat::print_heatmap(std::cout, "causal weights", attn, tokens, tokens, shades);
  // show:end

  section("relative");
  // show:begin relative
  // Weights close together (0.30 to 0.36) are one shade on the fixed scale; the relative scale
  // spans each heatmap's own smallest to largest value, and its legend says so.
  constexpr matrix<double, 2, 3> even{{{0.30, 0.36, 0.34}, {0.33, 0.31, 0.36}}};
  cxmat::print_heatmap(std::cout, "weights", even, {}, {}, shades);
  cxmat::heatmap_options relative = shades;
  relative.scale = cxmat::heatmap_scale::relative;
  cxmat::print_heatmap(std::cout, "weights", even, {}, {}, relative);
  // show:end

  section("labels");
  // show:begin labels
  // Labels in a std::vector are counted at run time: a wrong count is said, and the rows numbered.
  const std::vector<std::string> two{"I", "saw"};
  cxmat::print_heatmap(std::cout, "causal weights", attn, two, tokens, shades);
  // show:end
}
