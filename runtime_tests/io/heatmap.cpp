// Heatmaps: the style decision, the colour scale at points worked out by hand, the terminal
// drawing and the SVG's cells, as exact strings.
#include <array>
#include <sstream>
#include <string>
#include <vector>

#include <cxmat/io/heatmap.hpp>

#include "test_support/catch.hpp"

namespace {
using cxmat::heatmap_style;
using cxmat::matrix;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("the terminal style follows the option, then TERM, NO_COLOR and COLORTERM", "[io][heatmap]") {
  using cxmat::resolve_heatmap_style;
  const auto automatic = heatmap_style::automatic;
  CHECK(resolve_heatmap_style(heatmap_style::ansi256, nullptr, "1", nullptr) == heatmap_style::ansi256);
  CHECK(resolve_heatmap_style(heatmap_style::plain, "xterm-256color", nullptr, nullptr) == heatmap_style::plain);
  CHECK(resolve_heatmap_style(automatic, nullptr, nullptr, nullptr) == heatmap_style::plain);
  CHECK(resolve_heatmap_style(automatic, "", nullptr, nullptr) == heatmap_style::plain);
  CHECK(resolve_heatmap_style(automatic, "dumb", nullptr, "truecolor") == heatmap_style::plain);
  CHECK(resolve_heatmap_style(automatic, "xterm-256color", nullptr, nullptr) == heatmap_style::ansi256);
  CHECK(resolve_heatmap_style(automatic, "xterm-256color", "1", nullptr) == heatmap_style::unicode);
  CHECK(resolve_heatmap_style(automatic, "xterm-256color", "", nullptr) == heatmap_style::ansi256);  // empty NO_COLOR
  CHECK(resolve_heatmap_style(automatic, "xterm", nullptr, "24bit") == heatmap_style::ansi256);
  CHECK(resolve_heatmap_style(automatic, "xterm", nullptr, nullptr) == heatmap_style::unicode);
  CHECK(resolve_heatmap_style(automatic, "linux", nullptr, nullptr) == heatmap_style::unicode);
}

TEST_CASE("viridis: the anchors, and halfway between two of them", "[io][heatmap]") {
  CHECK(cxmat::hex_color(cxmat::viridis(0.0)) == "#440154");
  CHECK(cxmat::hex_color(cxmat::viridis(0.5)) == "#26828e");
  CHECK(cxmat::hex_color(cxmat::viridis(1.0)) == "#fde725");
  CHECK(cxmat::hex_color(cxmat::viridis(-3.0)) == "#440154");  // clamped
  CHECK(cxmat::hex_color(cxmat::viridis(7.0)) == "#fde725");
  // t = 1/16: halfway from #440154 to #482878: (68+72)/2 = 70, (1+40)/2 = 20.5 -> 21, (84+120)/2 = 102.
  CHECK(cxmat::viridis(1.0 / 16) == cxmat::rgb{70, 21, 102});
  // t = 15/16: halfway from #6ece58 to #fde725: (110+253)/2 = 181.5 -> 182, (206+231)/2 = 218.5 -> 219, (88+37)/2
  // = 62.5 -> 63.
  CHECK(cxmat::viridis(15.0 / 16) == cxmat::rgb{182, 219, 63});
  static_assert(cxmat::viridis(0.125) == cxmat::rgb{0x48, 0x28, 0x78});
}

TEST_CASE("terminal heatmaps, plain and Unicode", "[io][heatmap]") {
  const matrix<double, 2, 2> w{{{1.0, 0.0}, {0.45, 0.55}}};
  cxmat::heatmap_options opt;
  opt.style = heatmap_style::plain;
  std::ostringstream plain;
  cxmat::print_heatmap(plain, "w", w, {"a", "bc"}, {"k", "key1"}, opt);
  CHECK(plain.str() ==
        "w (2 x 2):\n"
        "       k key1\n"
        "a   @@@@     \n"
        "bc  ==== ++++\n"
        "    scale 0 to 1 (fixed): [ ]>=0 [.]>=0.1 [:]>=0.2 [-]>=0.3 [=]>=0.4 [+]>=0.5 [*]>=0.6 [#]>=0.7 [%]>=0.8 "
        "[@]>=0.9\n");
  opt.style = heatmap_style::unicode;
  opt.cell_width = 2;
  std::ostringstream blocks;
  cxmat::print_heatmap(blocks, "w", w, {}, {}, opt);
  // 9 levels of eighth blocks: level floor(9 t), so 0.45 and 0.55 are both level 4 (4.05, 4.95).
  CHECK(
      blocks.str() ==
      "w (2 x 2):\n"
      "    0  1\n"
      "0  \u2588\u2588   \n"
      "1  \u2584\u2584 \u2584\u2584\n"
      "   scale 0 to 1 (fixed): [ ]>=0 [\u2581]>=0.111 [\u2582]>=0.222 [\u2583]>=0.333 [\u2584]>=0.444 [\u2585]>=0.556"
      " [\u2586]>=0.667 [\u2587]>=0.778 [\u2588]>=0.889\n");
  // 3 labels for 2 rows: said, and the rows numbered (not "a", "bc" and a silent index).
  std::ostringstream wrong_count;
  cxmat::print_heatmap(wrong_count, "w", w, {"a", "bc", "d"}, {}, opt);
  CHECK(wrong_count.str().rfind("w: error: 3 row labels for 2 rows; one label per row (or none): the rows are "
                                "numbered instead\nw (2 x 2):\n    0  1\n0  ",
                                0) == 0);
  // Labels whose count is in their type (checked at compile time) draw as a vector's.
  const std::array<const char*, 2> rows{"a", "bc"};
  const char* const cols[] = {"k", "key1"};
  std::ostringstream fixed;
  opt.style = heatmap_style::plain;
  opt.cell_width = 0;
  cxmat::print_heatmap(fixed, "w", w, rows, cols, opt);
  CHECK(fixed.str() == plain.str());
  opt.style = heatmap_style::unicode;
  opt.cell_width = 2;
  // Weights 0.08 apart get different shades (levels 1 and 2: 9 x 0.20 = 1.8, 9 x 0.28 = 2.52).
  std::ostringstream close_weights;
  cxmat::print_heatmap(close_weights, "v", matrix<double, 1, 2>{{{0.20, 0.28}}}, {}, {}, opt);
  CHECK(close_weights.str().find("0  \u2581\u2581 \u2582\u2582\n") != std::string::npos);
  opt.style = heatmap_style::ansi256;
  std::ostringstream colours;
  cxmat::print_heatmap(colours, "w", w, {}, {}, opt);
  // Nearest cube levels (0, 95, 135, 175, 215, 255): viridis(1) = #fde725 = (253, 231, 37) -> (5, 4, 0),
  // 16 + 36*5 + 6*4 = 220; viridis(0) = #440154 = (68, 1, 84) -> (1, 0, 1), 16 + 36 + 1 = 53.
  CHECK(colours.str().find("0  \x1b[48;5;220m  \x1b[0m \x1b[48;5;53m  \x1b[0m\n") != std::string::npos);
}

TEST_CASE("a relative scale spreads the shades over the heatmap's own values", "[io][heatmap]") {
  // Weights between 0.30 and 0.36: one shade on the fixed scale (levels floor(10 t) = 3 for all),
  // the first, middle and last shade on the relative one (t = 0, 0.5, 1: levels 0, 5 and 9).
  const matrix<double, 1, 3> w{{{0.30, 0.33, 0.36}}};
  cxmat::heatmap_options opt;
  opt.style = heatmap_style::plain;
  std::ostringstream fixed;
  cxmat::print_heatmap(fixed, "w", w, {}, {}, opt);
  CHECK(fixed.str().find("0  -- -- --\n   scale 0 to 1 (fixed): ") != std::string::npos);
  opt.scale = cxmat::heatmap_scale::relative;
  std::ostringstream relative;
  cxmat::print_heatmap(relative, "w", w, {}, {}, opt);
  CHECK(relative.str() ==
        "w (1 x 3):\n"
        "    0  1  2\n"
        "0     ++ @@\n"
        "   scale 0.3 to 0.36 (relative: this heatmap's smallest to largest): [ ]>=0.3 [.]>=0.306 [:]>=0.312 "
        "[-]>=0.318 [=]>=0.324 [+]>=0.33 [*]>=0.336 [#]>=0.342 [%]>=0.348 [@]>=0.354\n");
  // Each head of a batch on its own scale, said in each legend.
  const cxmat::batch<double, 2, 1, 2> heads{{{{{0.4, 0.6}}}, {{{0.1, 0.9}}}}};
  std::ostringstream both;
  cxmat::print_heatmap(both, "w", heads, {}, {}, opt);
  CHECK(both.str().find("scale 0.4 to 0.6 (relative") != std::string::npos);
  CHECK(both.str().find("scale 0.1 to 0.9 (relative") != std::string::npos);
  CHECK(count(both.str(), "0     @@\n") == 3);
}

TEST_CASE("a batch draws one heatmap per head and their mean", "[io][heatmap]") {
  const cxmat::batch<double, 2, 1, 2> w{{{{{1, 0}}}, {{{0, 1}}}}};
  cxmat::heatmap_options opt;
  opt.style = heatmap_style::plain;
  std::ostringstream os;
  cxmat::print_heatmap(os, "w", w, {}, {}, opt);
  CHECK(os.str().find("w [H=0] (1 x 2):\n") != std::string::npos);
  CHECK(os.str().find("w [H=1] (1 x 2):\n") != std::string::npos);
  CHECK(os.str().find("w, mean over heads (1 x 2):\n    0  1\n0  ++ ++\n") != std::string::npos);
  // A wrong count of labels in a vector: said once, above the first head, and every picture numbered.
  std::ostringstream wrong;
  cxmat::print_heatmap(wrong, "w", w, {"q"}, {"k0", "k1", "k2"}, opt);
  CHECK(wrong.str().rfind("w: error: 3 column labels for 2 columns; one label per column (or none): the columns are "
                          "numbered instead\nw [H=0] (1 x 2):\n    0  1\nq  @@   \n",
                          0) == 0);
  CHECK(count(wrong.str(), "error") == 1);
  CHECK(wrong.str().find("w, mean over heads (1 x 2):\n    0  1\n") != std::string::npos);
  // Heads numbered from 1 (a worksheet's head 1, head 2): the same pictures under those numbers.
  opt.first_head_number = 1;
  std::ostringstream one;
  cxmat::print_heatmap(one, "w", w, {}, {}, opt);
  CHECK(one.str().find("w [H=1] (1 x 2):\n    0  1\n0  @@   \n") != std::string::npos);
  CHECK(one.str().find("w [H=2] (1 x 2):\n    0  1\n0     @@\n") != std::string::npos);
  CHECK(one.str().find("w [H=0]") == std::string::npos);
}

TEST_CASE("SVG: one rect per cell with its value and colour, panels, labels, scale", "[io][heatmap][svg]") {
  const cxmat::batch<double, 2, 2, 2> w{{{{{1, 0}, {0.25, 0.75}}}, {{{0.5, 0.5}, {0.1, 0.9}}}}};
  std::ostringstream os;
  cxmat::svg_heatmap_options opt;
  opt.title = "a < b & c";
  cxmat::write_svg_heatmap(os, w, {"x0", "x1"}, {"y0", "y1"}, opt);
  const std::string svg = os.str();
  CHECK(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("<title>a &lt; b &amp; c</title>") != std::string::npos);
  CHECK(count(svg, "<g class=\"panel\"") == 3);  // two heads and the mean
  CHECK(count(svg, "<rect class=\"cell\"") == 12);
  CHECK(svg.find("data-panel=\"mean\"") != std::string::npos);
  CHECK(svg.find("data-panel=\"H=1\"") != std::string::npos);
  CHECK(svg.find("font-weight=\"bold\">head 1</text>") != std::string::npos);
  CHECK(svg.find(">head 2</text>") == std::string::npos);
  // Titled from 1 (a worksheet's numbering); data-panel stays the index.
  std::ostringstream one;
  cxmat::svg_heatmap_options from_one;
  from_one.first_head_number = 1;
  cxmat::write_svg_heatmap(one, w, {}, {}, from_one);
  CHECK(one.str().find("data-panel=\"H=0\"") != std::string::npos);
  CHECK(one.str().find("font-weight=\"bold\">head 1</text>") != std::string::npos);
  CHECK(one.str().find("font-weight=\"bold\">head 2</text>") != std::string::npos);
  CHECK(one.str().find(">head 0</text>") == std::string::npos);
  // head 1, cell (1, 0): 0.1 at t = 0.1 -> segment 0, f = 0.8: 68+4*0.8 = 71.2 -> 71, 1+39*0.8 = 32.2 -> 32,
  // 84+36*0.8 = 112.8 -> 113: #47 20 71.
  CHECK(svg.find("data-row=\"1\" data-col=\"0\" data-value=\"0.1\"") != std::string::npos);
  CHECK(svg.find("fill=\"#472071\"") != std::string::npos);
  // mean of (0, 0.5) at (0, 1) is 0.25 = the anchor #3e4989.
  CHECK(svg.find("data-value=\"0.25\" x=") != std::string::npos);
  CHECK(count(svg, "fill=\"#3e4989\"") >= 2);  // head 0's 0.25 and the mean's 0.25
  CHECK(count(svg, "class=\"row-label\"") == 6);
  CHECK(count(svg, ">y1</text>") == 3);
  CHECK(count(svg, "<stop ") == 9);
  CHECK(svg.size() > 100);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  CHECK(svg.find("class=\"error\"") == std::string::npos);
  // One row label for two rows: said in the picture, under it, and the rows numbered.
  std::ostringstream wrong;
  cxmat::write_svg_heatmap(wrong, w[0], {"x0"}, {"y0", "y1"});
  const std::string bad = wrong.str();
  CHECK(bad.find("<text class=\"error\" x=\"20\" y=\"") != std::string::npos);
  CHECK(bad.find("fill=\"#c00000\">write_svg_heatmap: error: 1 row label for 2 rows; one label per row (or none): the "
                 "rows are numbered instead</text>\n</svg>\n") != std::string::npos);
  CHECK(bad.find("data-row=\"1\" x=\"") != std::string::npos);
  CHECK(bad.find(">x0</text>") == std::string::npos);
  CHECK(bad.find("text-anchor=\"end\">1</text>") != std::string::npos);
  CHECK(bad.find(">y1</text>") != std::string::npos);
}

namespace {
// The number in attribute `name` of the first element that contains `anchor`, from its start.
double attribute(const std::string& svg, const std::string& anchor, const std::string& name) {
  const auto at = svg.find(anchor);
  const auto start = svg.rfind('<', at);
  const auto value = svg.find(" " + name + "=\"", start);
  return at == std::string::npos || value == std::string::npos ? -1.0 : std::stod(svg.substr(value + name.size() + 3));
}
}  // namespace

TEST_CASE("SVG: panels wrap into rows that fit a slide, the row axis clear of the labels", "[io][heatmap][svg]") {
  // Four heads of 8 x 8 and their mean, as the digit sorter's: one row of five panels was about
  // 1950 wide. By default the panels wrap so that the picture is at most 1000 wide.
  cxmat::batch<double, 4, 8, 8> w{};
  for (std::size_t h = 0; h < 4; ++h) {
    for (std::size_t i = 0; i < 8; ++i) w.items[h](i, (i + h) % 8) = 1.0;
  }
  const std::vector<std::string> digits{"3", "1", "4", "1", "5", "9", "2", "6"};
  std::ostringstream os;
  cxmat::write_svg_heatmap(os, w, digits, digits);
  const std::string svg = os.str();
  const double width = attribute(svg, "<svg ", "width");
  CHECK(width > 500.0);
  CHECK(width <= 1000.0);
  CHECK(count(svg, "<g class=\"panel\"") == 5);
  // Panel H=2 starts a row of its own (two a row): its first cell is below H=0's, at the same x.
  const double x0 = attribute(svg, "data-panel=\"H=0\"", "data-x");
  CHECK(attribute(svg, "data-panel=\"H=1\"", "data-x") > x0);
  const auto first_cell = [&](const std::string& panel, const std::string& name) {
    return attribute(svg.substr(svg.find("data-panel=\"" + panel + "\"")), "<rect class=\"cell\"", name);
  };
  CHECK(first_cell("H=2", "x") == first_cell("H=0", "x"));
  CHECK(first_cell("H=2", "y") > first_cell("H=0", "y") + 8 * 40);
  CHECK(first_cell("mean", "y") > first_cell("H=2", "y") + 8 * 40);
  CHECK(attribute(svg, "<svg ", "height") > first_cell("mean", "y") + 8 * 40);
  // Asked for: all five in one row.
  cxmat::svg_heatmap_options one_row;
  one_row.panels_per_row = 5;
  std::ostringstream wide;
  cxmat::write_svg_heatmap(wide, w, digits, digits, one_row);
  CHECK(attribute(wide.str(), "<svg ", "width") > 1900.0);
  // The row axis title ("query") is turned along the rows, left of the row labels: its text
  // (12 high, drawn to the left of its x after the turn) ends before the widest label (one digit,
  // about 7.5 wide, ending 6 left of the grid) begins.
  const auto title = svg.find(">query</text>");
  REQUIRE(title != std::string::npos);
  const auto title_start = svg.rfind('<', title);
  CHECK(svg.substr(title_start, title - title_start).find("rotate(-90") != std::string::npos);
  const double title_x = attribute(svg.substr(title_start), "class=\"axis-title\"", "x");
  const double label_right = attribute(svg, "class=\"row-label\" data-row=\"0\"", "x");
  CHECK(title_x + 2.0 < label_right - 7.5);
}
