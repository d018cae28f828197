// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Attention weights as heatmaps: in a terminal (ASCII, Unicode eighth blocks or 256 colours)
// and as an SVG picture (one panel per head, labelled axes, a colour scale). Hosted builds only.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/io/labels.hpp>
#include <cxmat/io/number_format.hpp>
#include <cxmat/io/print.hpp>
#include <cxmat/io/shape_text.hpp>

namespace cxmat {

/// How a terminal heatmap draws its cells.
enum class heatmap_style {
  /// Decided from the environment: see resolve_heatmap_style.
  automatic,
  /// ASCII shades " .:-=+*#%@" (10 levels): any terminal, any file.
  plain,
  /// Unicode eighth blocks " ▁▂▃▄▅▆▇█" (9 levels: bars of 0 to 8 eighths), no colour.
  unicode,
  /// Background colours of the 256-colour palette, following the viridis scale of the SVG.
  ansi256,
};

/// What a terminal heatmap's shades span.
enum class heatmap_scale {
  /// vmin to vmax (attention weights: 0 to 1), the same for every heatmap: comparable between
  /// heatmaps, but weights close together (0.30 to 0.36) get one shade.
  fixed,
  /// Each heatmap's own smallest to largest value (each head, and the mean, on its own): the
  /// pattern within one heatmap, not comparable with another's shades.
  relative,
};

/// Options of a terminal heatmap.
struct heatmap_options {
  heatmap_style style = heatmap_style::automatic;
  /// The values mapped to the ends of the scale (attention weights: 0 and 1); values outside
  /// are clamped. Used by the fixed scale.
  double vmin = 0.0;
  double vmax = 1.0;
  /// Fixed (vmin to vmax) or relative (each heatmap's smallest to largest value); the legend
  /// says which, and the two ends.
  heatmap_scale scale = heatmap_scale::fixed;
  /// Characters per cell; 0 chooses the widest column label (at least 2, at most 8).
  std::size_t cell_width = 0;
  /// The number of the first head in the labels of a batch's heatmaps ("label[H=0]"): 0, the
  /// head's index in code, by default; 1 as in the worksheets that number heads from 1.
  std::size_t first_head_number = 0;
};

/// The style to draw with: `requested` unless it is automatic. Automatic is plain when TERM is
/// unset, empty or "dumb"; otherwise Unicode blocks when NO_COLOR is set to a non-empty value
/// (no-color.org), 256 colours when TERM contains "256color" or COLORTERM is "truecolor" or
/// "24bit", and Unicode blocks for any other terminal. Null pointers stand for unset variables.
inline heatmap_style resolve_heatmap_style(heatmap_style requested, const char* term, const char* no_color,
                                           const char* colorterm) noexcept {
  if (requested != heatmap_style::automatic) return requested;
  const std::string_view t = term != nullptr ? term : "";
  if (t.empty() || t == "dumb") return heatmap_style::plain;
  if (no_color != nullptr && no_color[0] != '\0') return heatmap_style::unicode;
  const std::string_view ct = colorterm != nullptr ? colorterm : "";
  if (t.find("256color") != std::string_view::npos || ct == "truecolor" || ct == "24bit") {
    return heatmap_style::ansi256;
  }
  return heatmap_style::unicode;
}

/// resolve_heatmap_style with TERM, NO_COLOR and COLORTERM read from the environment.
inline heatmap_style resolve_heatmap_style(heatmap_style requested) noexcept {
  return resolve_heatmap_style(requested, std::getenv("TERM"), std::getenv("NO_COLOR"), std::getenv("COLORTERM"));
}

/// An sRGB colour.
struct rgb {
  int r, g, b;
  friend constexpr bool operator==(const rgb&, const rgb&) = default;
};

/// The colour of t in [0, 1] (clamped) on the viridis scale: linear interpolation in sRGB
/// between matplotlib's viridis at t = 0, 1/8, ..., 1 (#440154, #482878, #3e4989, #31688e,
/// #26828e, #1f9e89, #35b779, #6ece58, #fde725), each channel rounded half up.
constexpr rgb viridis(double t) noexcept {
  constexpr rgb anchors[9] = {{0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3e, 0x49, 0x89},
                              {0x31, 0x68, 0x8e}, {0x26, 0x82, 0x8e}, {0x1f, 0x9e, 0x89},
                              {0x35, 0xb7, 0x79}, {0x6e, 0xce, 0x58}, {0xfd, 0xe7, 0x25}};
  if (!(t > 0.0)) t = 0.0;  // also NaN
  if (t > 1.0) t = 1.0;
  const double x = t * 8.0;
  std::size_t k = static_cast<std::size_t>(x);
  if (k > 7) k = 7;
  const double f = x - static_cast<double>(k);
  const auto mix = [f](int a, int b) {
    // Channels are in [0, 255], so adding 0.5 and truncating rounds to nearest.
    const double channel = static_cast<double>(a) + (static_cast<double>(b) - static_cast<double>(a)) * f;
    return static_cast<int>(channel + 0.5);  // NOLINT(bugprone-incorrect-roundings): channel >= 0
  };
  return {mix(anchors[k].r, anchors[k + 1].r), mix(anchors[k].g, anchors[k + 1].g),
          mix(anchors[k].b, anchors[k + 1].b)};
}

/// "#rrggbb".
inline std::string hex_color(rgb c) {
  const char* digits = "0123456789abcdef";
  std::string out = "#";
  for (const int v : {c.r, c.g, c.b}) {
    out += digits[(v >> 4) & 15];
    out += digits[v & 15];
  }
  return out;
}

namespace detail {

// Position of v on the scale, in [0, 1].
inline double scale_position(double v, double vmin, double vmax) noexcept {
  if (is_nan(v)) return 0.0;
  const double t = vmax > vmin ? (v - vmin) / (vmax - vmin) : 0.0;
  return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

// Shade level of t in [0, 1] among `levels`: [0, 1/levels) is 0, ..., [1 - 1/levels, 1] the last.
inline std::size_t shade_level(double t, std::size_t levels) noexcept {
  const auto k = static_cast<std::size_t>(t * static_cast<double>(levels));
  return k >= levels ? levels - 1 : k;
}

inline constexpr const char* plain_shades[] = {" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"};
// The lower eighth blocks U+2581..U+2588: 9 levels, so that weights 0.1 apart differ (with the
// 5 shading blocks " ░▒▓█" 0.20 and 0.28 looked alike).
inline constexpr const char* unicode_shades[] = {" ",      "\u2581", "\u2582", "\u2583", "\u2584",
                                                 "\u2585", "\u2586", "\u2587", "\u2588"};

// The nearest colour of the 6 x 6 x 6 cube of the 256-colour palette (indices 16..231).
inline int ansi256_index(rgb c) noexcept {
  const auto level = [](int v) {
    // The cube's channel values are 0, 95, 135, 175, 215, 255.
    constexpr int values[6] = {0, 95, 135, 175, 215, 255};
    int best = 0;
    for (int i = 1; i < 6; ++i) {
      if ((v - values[i]) * (v - values[i]) < (v - values[best]) * (v - values[best])) best = i;
    }
    return best;
  };
  return 16 + 36 * level(c.r) + 6 * level(c.g) + level(c.b);
}

inline std::string fitted(const std::string& s, std::size_t width) {
  if (s.size() >= width) return s.substr(0, width);
  return std::string(width - s.size(), ' ') + s;
}

inline std::string fitted_left(const std::string& s, std::size_t width) {
  if (s.size() >= width) return s.substr(0, width);
  return s + std::string(width - s.size(), ' ');
}

// v with at most `digits` decimals, small values as 0 (numpy's suppress=True): fits in a cell.
inline std::string short_number(double v, int digits = 3) {
  print_options o;
  o.precision = digits;
  o.suppress_small = true;
  array_formatter<double> f(o);
  f.add(v);
  return f.format_compact(v);
}

// The heatmap of print_heatmap, labels checked against the axes.
template <class T, extent L, extent S>
std::ostream& draw_heatmap(std::ostream& os, std::string_view label, const matrix<T, L, S>& w,
                           const std::vector<std::string>& given_row_labels,
                           const std::vector<std::string>& given_col_labels, const heatmap_options& opt) {
  std::string error;
  const std::vector<std::string> row_labels = labels_for_axis(given_row_labels, L.size, label, "row", error);
  const std::vector<std::string> col_labels = labels_for_axis(given_col_labels, S.size, label, "column", error);
  os << error;
  const heatmap_style style = resolve_heatmap_style(opt.style);
  std::size_t cell = opt.cell_width;
  if (cell == 0) {
    cell = 2;
    for (std::size_t j = 0; j < S.size; ++j) cell = std::max(cell, detail::label_or_index(col_labels, j).size());
    cell = std::min<std::size_t>(cell, 8);
  }
  std::size_t label_width = 1;
  for (std::size_t i = 0; i < L.size; ++i) {
    label_width = std::max(label_width, detail::label_or_index(row_labels, i).size());
  }
  label_width = std::min<std::size_t>(label_width, 12);
  os << label << " (" << shape_of(w) << "):\n" << std::string(label_width + 1, ' ');
  for (std::size_t j = 0; j < S.size; ++j) os << ' ' << detail::fitted(detail::label_or_index(col_labels, j), cell);
  os << '\n';
  const std::size_t levels = style == heatmap_style::plain ? 10 : 9;
  double vmin = opt.vmin, vmax = opt.vmax;
  if (opt.scale == heatmap_scale::relative) {
    bool any = false;
    for (std::size_t i = 0; i < L.size; ++i) {
      for (std::size_t j = 0; j < S.size; ++j) {
        const auto v = static_cast<double>(w.elems[i][j]);
        if (is_nan(v)) continue;
        vmin = any && vmin <= v ? vmin : v;
        vmax = any && vmax >= v ? vmax : v;
        any = true;
      }
    }
  }
  for (std::size_t i = 0; i < L.size; ++i) {
    os << detail::fitted_left(detail::label_or_index(row_labels, i), label_width) << " ";
    for (std::size_t j = 0; j < S.size; ++j) {
      const double t = detail::scale_position(static_cast<double>(w.elems[i][j]), vmin, vmax);
      os << ' ';
      if (style == heatmap_style::ansi256) {
        os << "\x1b[48;5;" << detail::ansi256_index(viridis(t)) << 'm' << std::string(cell, ' ') << "\x1b[0m";
      } else {
        const char* shade = style == heatmap_style::plain ? detail::plain_shades[detail::shade_level(t, levels)]
                                                          : detail::unicode_shades[detail::shade_level(t, levels)];
        for (std::size_t c = 0; c < cell; ++c) os << shade;
      }
    }
    os << '\n';
  }
  // Legend: which scale, its ends, and each shade with the values it stands for.
  os << std::string(label_width + 1, ' ') << " scale " << detail::short_number(vmin) << " to "
     << detail::short_number(vmax)
     << (opt.scale == heatmap_scale::relative ? " (relative: this heatmap's smallest to largest):" : " (fixed):");
  const std::size_t legend_levels = style == heatmap_style::ansi256 ? 5 : levels;
  for (std::size_t k = 0; k < legend_levels; ++k) {
    const double lo = vmin + (vmax - vmin) * static_cast<double>(k) / static_cast<double>(legend_levels);
    os << ' ';
    if (style == heatmap_style::ansi256) {
      const double mid = (static_cast<double>(k) + 0.5) / static_cast<double>(legend_levels);
      os << "\x1b[48;5;" << detail::ansi256_index(viridis(mid)) << "m  \x1b[0m";
    } else {
      os << '[' << (style == heatmap_style::plain ? detail::plain_shades[k] : detail::unicode_shades[k]) << ']';
    }
    os << ">=" << detail::short_number(lo);
  }
  return os << '\n';
}

}  // namespace detail

/// Draws an L x S matrix of weights as a heatmap under "label (shape):", one text row per query
/// with its label on the left and the key labels above the columns (labels default to indices
/// and are cut to the cell width), then a legend: the scale (fixed, opt.vmin to opt.vmax, or
/// relative, the heatmap's smallest to largest value) and the values of each shade. Labels are one per row (column)
/// or none: a list whose length is known at compile time (std::array, a C array) with another
/// length is a compile error (shape_error::heatmap_row_labels_must_be_one_per_row, ..._column);
/// a std::vector of another length is reported on a line of its own ("label: error: 3 row labels
/// for 4 rows; ...") and the rows (columns) are numbered instead.
template <class T, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
requires rules_hold<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>> std::ostream& print_heatmap(
    std::ostream& os, std::string_view label, const matrix<T, L, S>& w, const RowLabels& row_labels = {},
    const ColLabels& col_labels = {}, const heatmap_options& opt = {}) {
  return detail::draw_heatmap(os, label, w, detail::label_strings(row_labels), detail::label_strings(col_labels), opt);
}

template <class T, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
decltype(detail::first_failure<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>>::error()) print_heatmap(
    std::ostream& os, std::string_view label, const matrix<T, L, S>& w, const RowLabels& row_labels = {},
    const ColLabels& col_labels = {}, const heatmap_options& opt = {});

/// Draws H x L x S attention weights as one heatmap per head ("label [H=h]", h from
/// opt.first_head_number) and one of their mean over heads ("label, mean over heads"); labels
/// as for a matrix (a wrong count in a std::vector is reported once, above the first heatmap).
template <class T, extent H, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
requires rules_hold<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>> std::ostream& print_heatmap(
    std::ostream& os, std::string_view label, const batch<T, H, L, S>& w, const RowLabels& given_row_labels = {},
    const ColLabels& given_col_labels = {}, const heatmap_options& opt = {}) {
  std::string error;
  const auto row_labels = detail::labels_for_axis(detail::label_strings(given_row_labels), L.size, label, "row", error);
  const auto col_labels =
      detail::labels_for_axis(detail::label_strings(given_col_labels), S.size, label, "column", error);
  os << error;
  for (std::size_t h = 0; h < H.size; ++h) {
    detail::draw_heatmap(os,
                         detail::cat(label, " ", detail::batch_index_text<heads_v<H.size>>(h, opt.first_head_number)),
                         w.items[h], row_labels, col_labels, opt);
  }
  return detail::draw_heatmap(os, detail::cat(label, ", mean over heads"), mean(w), row_labels, col_labels, opt);
}

template <class T, extent H, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
decltype(detail::first_failure<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>>::error()) print_heatmap(
    std::ostream& os, std::string_view label, const batch<T, H, L, S>& w, const RowLabels& row_labels = {},
    const ColLabels& col_labels = {}, const heatmap_options& opt = {});

// ---------------------------------------------------------------------------------------------
// SVG
// ---------------------------------------------------------------------------------------------

/// Options of an SVG heatmap.
struct svg_heatmap_options {
  /// Title above the panels (empty: none).
  std::string title{};
  /// Scale ends, as in heatmap_options.
  double vmin = 0.0;
  double vmax = 1.0;
  /// Side of one cell, in SVG user units (pixels).
  int cell_size = 40;
  /// Axis titles: rows are queries, columns are keys.
  std::string row_axis = "query";
  std::string col_axis = "key";
  /// Write each weight in its cell, with at most this many decimals (tiny values show as 0).
  bool show_values = true;
  int value_digits = 2;
  /// Add a panel of the mean over heads after the heads (batch overload only).
  bool mean_panel = true;
  /// Panels in a row before the next row starts; 0 (the default) puts as many in a row as keep
  /// the picture at most max_width wide (at least one).
  std::size_t panels_per_row = 0;
  /// The width the default panels_per_row keeps to: 1000, about a slide's.
  double max_width = 1000.0;
  /// The number of the first head in the panels' titles ("head 0"): 0, the head's index in code,
  /// by default; 1 as in the worksheets that number heads from 1. (The panels' data-panel
  /// attributes are always the index: "H=0" for the first.)
  std::size_t first_head_number = 0;
};

namespace detail {

inline std::string xml_escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The shortest text that reads back to v (17 significant digits at most).
inline std::string exact_number(double v) {
  if (is_nan(v)) return "nan";
  return chars_of(v);
}

struct svg_panel {
  std::string name;   // "H=0", "mean"
  std::string title;  // "head 0", "mean over heads"
  std::vector<std::vector<double>> values;
};

inline std::string svg_number(double v) { return chars_of(v, std::chars_format::fixed, 1); }

// One SVG for panels of equal shape side by side, then the colour scale. Labels of the wrong
// count are dropped (the axes numbered) and said in red text under the picture.
inline void write_svg(std::ostream& os, const std::vector<svg_panel>& panels, std::size_t rows, std::size_t cols,
                      const std::vector<std::string>& given_row_labels,
                      const std::vector<std::string>& given_col_labels, const svg_heatmap_options& opt) {
  std::string error;
  const auto row_labels = labels_for_axis(given_row_labels, rows, "write_svg_heatmap", "row", error);
  const auto col_labels = labels_for_axis(given_col_labels, cols, "write_svg_heatmap", "column", error);
  std::vector<std::string> error_lines;
  for (std::size_t at = 0, end = 0; (end = error.find('\n', at)) != std::string::npos; at = end + 1) {
    error_lines.push_back(error.substr(at, end - at));
  }
  const double cs = opt.cell_size;
  std::size_t longest = 1;
  for (std::size_t i = 0; i < rows; ++i) longest = std::max(longest, label_or_index(row_labels, i).size());
  for (std::size_t j = 0; j < cols; ++j) longest = std::max(longest, label_or_index(col_labels, j).size());
  // Row labels (about 7.5 wide a character), right-aligned 6 left of the grid, and left of them
  // the row axis title, turned along the rows (20 wide); column labels are rotated above the grid.
  const double label_space = 16.0 + 7.5 * static_cast<double>(longest);
  const double axis_space = 20.0;
  const double panel_w = axis_space + label_space + cs * static_cast<double>(cols) + 24.0;
  const double grid_h = cs * static_cast<double>(rows);
  const double legend_w = 90.0;
  // Panels in rows: as asked, or as many as fit in max_width.
  std::size_t per_row = opt.panels_per_row;
  if (per_row == 0) {
    per_row = 1;
    while (per_row < panels.size() && 20.0 + panel_w * static_cast<double>(per_row + 1) + legend_w <= opt.max_width) {
      ++per_row;
    }
  }
  per_row = std::min(per_row, std::max<std::size_t>(panels.size(), 1));
  const std::size_t panel_rows = (panels.size() + per_row - 1) / per_row;
  const double head_h = 24.0 + label_space;     // a panel's title and its column labels
  const double row_h = head_h + grid_h + 40.0;  // and its grid and column axis title below
  const double first = opt.title.empty() ? 10.0 : 36.0;
  const double top = first + head_h;  // the first row's grid
  const double width = 20.0 + panel_w * static_cast<double>(per_row) + legend_w;
  const double height =
      first + row_h * static_cast<double>(panel_rows) + 18.0 * static_cast<double>(error_lines.size());

  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << svg_number(width) << "\" height=\""
     << svg_number(height) << "\" viewBox=\"0 0 " << svg_number(width) << ' ' << svg_number(height)
     << "\" font-family=\"sans-serif\" font-size=\"12\" data-vmin=\"" << exact_number(opt.vmin) << "\" data-vmax=\""
     << exact_number(opt.vmax) << "\">\n";
  if (!opt.title.empty()) {
    os << "  <title>" << xml_escape(opt.title) << "</title>\n"
       << "  <text class=\"title\" x=\"20\" y=\"24\" font-size=\"16\">" << xml_escape(opt.title) << "</text>\n";
  }
  os << "  <defs>\n    <linearGradient id=\"cxmat-scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
  for (int k = 0; k <= 8; ++k) {
    os << "      <stop offset=\"" << chars_of(k / 8.0) << "\" stop-color=\"" << hex_color(viridis(k / 8.0)) << "\"/>\n";
  }
  os << "    </linearGradient>\n  </defs>\n";
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const double x0 = 20.0 + panel_w * static_cast<double>(p % per_row);
    const auto panel_row = static_cast<double>(p / per_row);  // NOLINT(bugprone-integer-division): a row index
    const double top_p = top + row_h * panel_row;             // this panel's grid
    const double gx = x0 + axis_space + label_space;          // left edge of the grid
    os << "  <g class=\"panel\" data-panel=\"" << xml_escape(panels[p].name) << "\" data-x=\"" << svg_number(x0)
       << "\" data-y=\"" << svg_number(top_p - head_h) << "\">\n";
    os << "    <text class=\"panel-title\" x=\"" << svg_number(gx + cs * static_cast<double>(cols) / 2) << "\" y=\""
       << svg_number(top_p - label_space - 12.0) << "\" text-anchor=\"middle\" font-weight=\"bold\">"
       << xml_escape(panels[p].title) << "</text>\n";
    os << "    <text class=\"axis-title\" x=\"" << svg_number(gx + cs * static_cast<double>(cols) / 2) << "\" y=\""
       << svg_number(top_p + grid_h + 28.0) << "\" text-anchor=\"middle\">" << xml_escape(opt.col_axis)
       << " (columns)</text>\n";
    const double ax = x0 + 14.0, ay = top_p + grid_h / 2;  // along the rows, left of their labels
    os << "    <text class=\"axis-title\" x=\"" << svg_number(ax) << "\" y=\"" << svg_number(ay)
       << "\" transform=\"rotate(-90 " << svg_number(ax) << ' ' << svg_number(ay)
       << ")\" text-anchor=\"middle\" font-style=\"italic\">" << xml_escape(opt.row_axis) << "</text>\n";
    for (std::size_t j = 0; j < cols; ++j) {
      const double cx = gx + cs * (static_cast<double>(j) + 0.5);
      os << "    <text class=\"col-label\" data-col=\"" << j << "\" x=\"" << svg_number(cx) << "\" y=\""
         << svg_number(top_p - 6.0) << "\" transform=\"rotate(-60 " << svg_number(cx) << ' ' << svg_number(top_p - 6.0)
         << ")\">" << xml_escape(label_or_index(col_labels, j)) << "</text>\n";
    }
    for (std::size_t i = 0; i < rows; ++i) {
      const double cy = top_p + cs * (static_cast<double>(i) + 0.5);
      os << "    <text class=\"row-label\" data-row=\"" << i << "\" x=\"" << svg_number(gx - 6.0) << "\" y=\""
         << svg_number(cy + 4.0) << "\" text-anchor=\"end\">" << xml_escape(label_or_index(row_labels, i))
         << "</text>\n";
      for (std::size_t j = 0; j < cols; ++j) {
        const double v = panels[p].values[i][j];
        const double t = scale_position(v, opt.vmin, opt.vmax);
        const rgb c = viridis(t);
        os << "    <rect class=\"cell\" data-row=\"" << i << "\" data-col=\"" << j << "\" data-value=\""
           << exact_number(v) << "\" x=\"" << svg_number(gx + cs * static_cast<double>(j)) << "\" y=\""
           << svg_number(top_p + cs * static_cast<double>(i)) << "\" width=\"" << svg_number(cs) << "\" height=\""
           << svg_number(cs) << "\" fill=\"" << hex_color(c) << "\"><title>"
           << xml_escape(label_or_index(row_labels, i)) << " \u2192 " << xml_escape(label_or_index(col_labels, j))
           << ": " << exact_number(v) << "</title></rect>\n";
        if (opt.show_values) {
          // Dark text on the light end of the scale, light text on the dark end.
          os << "    <text class=\"cell-value\" x=\"" << svg_number(gx + cs * (static_cast<double>(j) + 0.5))
             << "\" y=\"" << svg_number(top_p + cs * (static_cast<double>(i) + 0.5) + 4.0)
             << "\" text-anchor=\"middle\" font-size=\"10\" fill=\"" << (t > 0.6 ? "#000000" : "#ffffff") << "\">"
             << short_number(v, opt.value_digits) << "</text>\n";
        }
      }
    }
    os << "  </g>\n";
  }
  // The colour scale: a gradient bar with five ticks.
  const double lx = 20.0 + panel_w * static_cast<double>(per_row) + 10.0;
  os << "  <g class=\"legend\">\n    <rect class=\"scale\" x=\"" << svg_number(lx) << "\" y=\"" << svg_number(top)
     << "\" width=\"16\" height=\"" << svg_number(grid_h) << "\" fill=\"url(#cxmat-scale)\" stroke=\"#000000\"/>\n";
  for (int k = 0; k <= 4; ++k) {
    const double value = opt.vmin + (opt.vmax - opt.vmin) * k / 4.0;
    const double y = top + grid_h * (1.0 - k / 4.0);
    os << "    <text class=\"tick\" data-value=\"" << exact_number(value) << "\" x=\"" << svg_number(lx + 22.0)
       << "\" y=\"" << svg_number(y + 4.0) << "\">" << short_number(value) << "</text>\n";
  }
  os << "  </g>\n";
  for (std::size_t k = 0; k < error_lines.size(); ++k) {
    os << "  <text class=\"error\" x=\"20\" y=\""
       << svg_number(first + row_h * static_cast<double>(panel_rows) + 14.0 + 18.0 * static_cast<double>(k))
       << "\" fill=\"#c00000\">" << xml_escape(error_lines[k]) << "</text>\n";
  }
  os << "</svg>\n";
}

template <class T, extent L, extent S>
svg_panel make_panel(std::string name, std::string title, const matrix<T, L, S>& m) {
  svg_panel p{std::move(name), std::move(title), std::vector<std::vector<double>>(L.size, std::vector<double>(S.size))};
  for (std::size_t i = 0; i < L.size; ++i) {
    for (std::size_t j = 0; j < S.size; ++j) p.values[i][j] = static_cast<double>(m.elems[i][j]);
  }
  return p;
}

}  // namespace detail

/// Writes an L x S matrix of weights as an SVG heatmap: rows are queries, columns keys, each
/// cell a <rect> coloured on the viridis scale from vmin to vmax, carrying its value
/// (data-value, with every digit) and a tooltip; labelled axes and a colour scale. Labels as in
/// print_heatmap: a fixed-length list of the wrong length does not compile; a std::vector of the
/// wrong length is said in the picture (a <text class="error"> line under it, "write_svg_heatmap:
/// error: ...") and the axis is numbered.
template <class T, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
requires rules_hold<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>> std::ostream& write_svg_heatmap(
    std::ostream& os, const matrix<T, L, S>& w, const RowLabels& row_labels = {}, const ColLabels& col_labels = {},
    const svg_heatmap_options& opt = {}) {
  detail::write_svg(os, {detail::make_panel("0", "weights", w)}, L.size, S.size, detail::label_strings(row_labels),
                    detail::label_strings(col_labels), opt);
  return os;
}

template <class T, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
decltype(detail::first_failure<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>>::error()) write_svg_heatmap(
    std::ostream& os, const matrix<T, L, S>& w, const RowLabels& row_labels = {}, const ColLabels& col_labels = {},
    const svg_heatmap_options& opt = {});

/// Writes H x L x S attention weights as an SVG: one panel per head (titled "head h", h from
/// opt.first_head_number; data-panel "H=i", i the index from 0), then (unless opt.mean_panel is
/// false) the mean over heads (data-panel "mean"), and one colour scale for all. Labels as for a
/// matrix.
template <class T, extent H, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
requires rules_hold<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>> std::ostream& write_svg_heatmap(
    std::ostream& os, const batch<T, H, L, S>& w, const RowLabels& row_labels = {}, const ColLabels& col_labels = {},
    const svg_heatmap_options& opt = {}) {
  std::vector<detail::svg_panel> panels;
  for (std::size_t h = 0; h < H.size; ++h) {
    panels.push_back(detail::make_panel(detail::cat("H=", std::to_string(h)),
                                        detail::cat("head ", detail::head_number(h, opt.first_head_number)),
                                        w.items[h]));
  }
  if (opt.mean_panel) panels.push_back(detail::make_panel("mean", "mean over heads", mean(w)));
  detail::write_svg(os, panels, L.size, S.size, detail::label_strings(row_labels), detail::label_strings(col_labels),
                    opt);
  return os;
}

template <class T, extent H, extent L, extent S, LabelList RowLabels = std::vector<std::string>,
          LabelList ColLabels = std::vector<std::string>>
decltype(detail::first_failure<rules_of::heatmap_labels<RowLabels, L, ColLabels, S>>::error()) write_svg_heatmap(
    std::ostream& os, const batch<T, H, L, S>& w, const RowLabels& row_labels = {}, const ColLabels& col_labels = {},
    const svg_heatmap_options& opt = {});

}  // namespace cxmat
