// Checks what a firmware image printed when it ran in an emulator: the layer's result, as the
// bits of each float, against the same layer computed here on the host with the same cxmat code
// and the same input. Also reads the image's measurements and prints the instruction count and
// stack in one line, which the report collects.
//
//   embedded_firmware_check <layer> <file with the firmware's output>
//
// Floating point: the host's result (SIMD kernels, another summation order) and the firmware's
// (plain loops, soft float on ARMv6-M) are two evaluations of the same formula in float, each
// with its own rounding. How far a float evaluation of this layer on this input can be from the
// exact result is measured, not guessed: a plain float64 implementation of the documented
// formula (below, independent of cxmat) gives the exact result to ~1e-15, and E = max |host -
// float64| is the error of one float evaluation. The firmware must be within 4·E + 4 ulp of the
// host's value (two evaluations, each up to ~2·E at an element where the other errs the
// opposite way; the ulp term covers outputs whose error E rounds to nothing), and within 3·E +
// 4 ulp of the float64 value. Anything else (a missing or extra value, a wrong layer name, no
// "end" line) fails.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "layers.hpp"
#include "layers_q8.hpp"

namespace {

// ---- float64 reference: multi-head attention written out from its definition ----
using table = std::vector<std::vector<double>>;

template <class M>
table to_table(const M& m) {
  table t(M::rows, std::vector<double>(M::cols));
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) t[i][j] = static_cast<double>(m(i, j));
  }
  return t;
}

table product(const table& a, const table& b) {
  table c(a.size(), std::vector<double>(b[0].size(), 0.0));
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < b[0].size(); ++j) {
      for (std::size_t k = 0; k < b.size(); ++k) c[i][j] += a[i][k] * b[k][j];
    }
  }
  return c;
}

// softmax(Q_h K_hᵀ / sqrt(d_k)) V_h for each head h (column block h), heads side by side.
table heads(const table& q, const table& k, const table& v, std::size_t h_count) {
  const std::size_t dk = q[0].size() / h_count;
  const std::size_t dv = v[0].size() / h_count;
  table out(q.size(), std::vector<double>(v[0].size(), 0.0));
  for (std::size_t h = 0; h < h_count; ++h) {
    for (std::size_t i = 0; i < q.size(); ++i) {
      std::vector<double> s(k.size());
      double top = -INFINITY;
      for (std::size_t j = 0; j < k.size(); ++j) {
        double dot = 0.0;
        for (std::size_t c = 0; c < dk; ++c) dot += q[i][h * dk + c] * k[j][h * dk + c];
        s[j] = dot / std::sqrt(static_cast<double>(dk));
        top = std::fmax(top, s[j]);
      }
      double sum = 0.0;
      for (double& x : s) sum += (x = std::exp(x - top));
      for (std::size_t j = 0; j < k.size(); ++j) {
        for (std::size_t c = 0; c < dv; ++c) out[i][h * dv + c] += s[j] / sum * v[j][h * dv + c];
      }
    }
  }
  return out;
}

table reference(const std::string& name, const table& x) {
  if (name == "baseline") return x;
  if (name == "self_attention") {
    return product(heads(product(x, to_table(model::wq)), product(x, to_table(model::wk)),
                         product(x, to_table(model::wv)), model::heads),
                   to_table(model::wo));
  }
  if (name == "cross_attention" || name == "cross_attention_folded") {
    const table c = to_table(model::memory);
    return product(heads(product(x, to_table(model::wq)), product(c, to_table(model::wk)),
                         product(c, to_table(model::wv)), model::heads),
                   to_table(model::wo));
  }
  using w = layers::worksheet_004;
  return heads(product(x, to_table(w::wq)), product(x, to_table(w::wk)), product(x, to_table(w::wv)), 3);
}

// ---- the firmware's output ----
struct firmware_output {
  std::string layer;
  std::size_t rows = 0, cols = 0;
  std::vector<std::vector<std::uint32_t>> values;  // as printed: a float's bits, an int8's byte
  std::uint64_t ticks = 0, empty = 0, n_short = 0, t_short = 0, n_long = 0, t_long = 0, stack = 0;
  bool has_ticks = false, has_calibration = false, has_stack = false, ended = false;
};

bool parse(std::istream& in, firmware_output& out, std::string& error) {
  std::string text;
  while (std::getline(in, text)) {
    std::istringstream line(text);
    std::string key;
    line >> key;
    if (key == "layer") {
      line >> out.layer >> out.rows >> out.cols;
    } else if (key == "row") {
      std::vector<std::uint32_t> row;
      std::string word;
      while (line >> word) row.push_back(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
      out.values.push_back(row);
    } else if (key == "ticks") {
      std::string empty_word;
      out.has_ticks = static_cast<bool>(line >> out.ticks >> empty_word >> out.empty);
    } else if (key == "calibration") {
      out.has_calibration = static_cast<bool>(line >> out.n_short >> out.t_short >> out.n_long >> out.t_long);
    } else if (key == "stack") {
      out.has_stack = static_cast<bool>(line >> out.stack);
    } else if (key == "end") {
      out.ended = true;
    }
  }
  if (out.layer.empty()) error = "no 'layer' line: the firmware printed no result";
  else if (!out.ended) error = "no 'end' line: the firmware stopped before finishing its report";
  else if (!out.has_ticks || !out.has_calibration || !out.has_stack) error = "measurements missing";
  return error.empty();
}

// Instructions and stack: printed for the report; fails if the timer does not count instructions.
int measurements(const firmware_output& fw, const char* name) {
  int failures = 0;
  // Instructions: SysTick ticks under -icount, scaled by the calibration loop (a known number
  // of instructions), minus the two timer reads around an empty call.
  if (fw.t_long <= fw.t_short || fw.n_long <= fw.n_short) {
    std::printf("FAIL %s: the calibration loops were not timed\n", name);
    return 1;
  }
  const std::uint64_t per = fw.t_long - fw.t_short;
  const std::uint64_t n = fw.n_long - fw.n_short;
  const std::uint64_t instructions = ((fw.ticks - fw.empty) * n + per / 2) / per;
  // The timer must count instructions: the short loop, measured the same way, must come out at
  // its own length (its loop register set-up is the one instruction more that is allowed).
  const std::uint64_t short_loop = ((fw.t_short - fw.empty) * n + per / 2) / per;
  if (short_loop < fw.n_short || short_loop > fw.n_short + 2) {
    std::printf("FAIL %s: SysTick does not count instructions (short loop of %llu measured as %llu; is -icount on?)\n",
                name, static_cast<unsigned long long>(fw.n_short), static_cast<unsigned long long>(short_loop));
    ++failures;
  }
  std::printf("measured %s instructions %llu stack %llu\n", name, static_cast<unsigned long long>(instructions),
              static_cast<unsigned long long>(fw.stack));
  return failures;
}

template <class Layer>
int check(const firmware_output& fw) {
  using output = typename Layer::output;
  volatile std::uint32_t opaque = 0;  // the host computes at run time too, not the compiler
  typename Layer::input x = Layer::make_input();
  x(0, 0) += static_cast<float>(opaque);
  const output host = Layer::run(x);
  const table exact = reference(Layer::name, to_table(x));

  if (fw.rows != output::rows || fw.cols != output::cols || fw.values.size() != output::rows) {
    std::printf("FAIL %s: expected %zu x %zu values, the firmware printed %zu rows for %zu x %zu\n", Layer::name,
                output::rows, output::cols, fw.values.size(), fw.rows, fw.cols);
    return 1;
  }
  double host_error = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < output::rows; ++i) {
    for (std::size_t j = 0; j < output::cols; ++j) {
      host_error = std::fmax(host_error, std::fabs(static_cast<double>(host(i, j)) - exact[i][j]));
      largest = std::fmax(largest, std::fabs(exact[i][j]));
    }
  }
  int failures = 0;
  double worst_host = 0.0, worst_exact = 0.0;
  for (std::size_t i = 0; i < output::rows; ++i) {
    if (fw.values[i].size() != output::cols) {
      std::printf("FAIL %s: row %zu has %zu values, expected %zu\n", Layer::name, i, fw.values[i].size(), output::cols);
      return 1;
    }
    for (std::size_t j = 0; j < output::cols; ++j) {
      float y_float;
      std::memcpy(&y_float, &fw.values[i][j], sizeof y_float);
      const double y = static_cast<double>(y_float);
      const double ulp = std::ldexp(1.0, std::ilogb(std::fmax(std::fabs(exact[i][j]), 0x1p-126)) - 23);
      const double d_host = std::fabs(y - static_cast<double>(host(i, j)));
      const double d_exact = std::fabs(y - exact[i][j]);
      worst_host = std::fmax(worst_host, d_host);
      worst_exact = std::fmax(worst_exact, d_exact);
      if (!(d_host <= 4.0 * host_error + 4.0 * ulp) || !(d_exact <= 3.0 * host_error + 4.0 * ulp)) {
        std::printf("FAIL %s (%zu, %zu): firmware %.9g, host %.9g, float64 %.17g\n", Layer::name, i, j, y,
                    static_cast<double>(host(i, j)), exact[i][j]);
        ++failures;
      }
    }
  }
  std::printf("%s %s: max |firmware - host| %.3g, |firmware - float64| %.3g, host float error E %.3g (max |y| %.3g)\n",
              failures == 0 ? "ok" : "FAIL", Layer::name, worst_host, worst_exact, host_error, largest);
  return failures + measurements(fw, Layer::name) == 0 ? 0 : 1;
}

// The int8 layers: the firmware's bytes must equal the host's, every one.
template <class Layer>
int check_q8(const firmware_output& fw) {
  using output = typename Layer::output;
  volatile std::int8_t opaque = 0;  // the host computes at run time too, not the compiler
  typename Layer::input x = Layer::make_input();
  x(0, 0) = static_cast<std::int8_t>(x(0, 0) + opaque);
  const output host = Layer::run(x);
  if (fw.rows != output::rows || fw.cols != output::cols || fw.values.size() != output::rows) {
    std::printf("FAIL %s: expected %zu x %zu values, the firmware printed %zu rows for %zu x %zu\n", Layer::name,
                output::rows, output::cols, fw.values.size(), fw.rows, fw.cols);
    return 1;
  }
  int failures = 0;
  for (std::size_t i = 0; i < output::rows; ++i) {
    if (fw.values[i].size() != output::cols) {
      std::printf("FAIL %s: row %zu has %zu values, expected %zu\n", Layer::name, i, fw.values[i].size(), output::cols);
      return 1;
    }
    for (std::size_t j = 0; j < output::cols; ++j) {
      const auto byte = static_cast<std::uint8_t>(host(i, j));
      if (fw.values[i][j] != byte) {
        std::printf("FAIL %s (%zu, %zu): firmware %d, host %d\n", Layer::name, i, j,
                    static_cast<int>(static_cast<std::int8_t>(fw.values[i][j] & 0xFFu)), static_cast<int>(host(i, j)));
        ++failures;
      }
    }
  }
  std::printf("%s %s: %d of %zu int8 values differ from the host's\n", failures == 0 ? "ok" : "FAIL", Layer::name,
              failures, output::rows * output::cols);
  return failures + measurements(fw, Layer::name) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <layer> <firmware output>\n", argv[0]);
    return 2;
  }
  const std::string wanted = argv[1];
  std::ifstream file(argv[2]);
  firmware_output fw;
  std::string error;
  if (!file) {
    std::printf("FAIL %s: cannot read the firmware's output\n", wanted.c_str());
    return 1;
  }
  if (!parse(file, fw, error)) {
    std::printf("FAIL %s: %s\n", wanted.c_str(), error.c_str());
    return 1;
  }
  if (fw.layer != wanted) {
    std::printf("FAIL: the firmware ran layer '%s', expected '%s'\n", fw.layer.c_str(), wanted.c_str());
    return 1;
  }
  if (wanted == layers::baseline::name) return check<layers::baseline>(fw);
  if (wanted == layers::self_attention::name) return check<layers::self_attention>(fw);
  if (wanted == layers::cross_attention::name) return check<layers::cross_attention>(fw);
  if (wanted == layers::cross_attention_folded::name) return check<layers::cross_attention_folded>(fw);
  if (wanted == layers::worksheet_004::name) return check<layers::worksheet_004>(fw);
  if (wanted == layers::q8_self_attention::name) return check_q8<layers::q8_self_attention>(fw);
  if (wanted == layers::q8_worksheet_004::name) return check_q8<layers::q8_worksheet_004>(fw);
  std::printf("FAIL: unknown layer '%s'\n", wanted.c_str());
  return 1;
}
