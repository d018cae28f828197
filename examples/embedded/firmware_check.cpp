// Checks what a firmware image printed when it ran in an emulator: the layer's result, as the
// bits of each float, against the same layer computed here on the host with the same cxmat code
// and the same input. Also reads the image's measurements and prints the instruction count and
// stack in one line, which the report collects.
//
//   embedded_firmware_check <layer> <file with the firmware's output>
//
// Floating point: the host's result (SIMD kernels, another summation order) and the firmware's
// (plain loops, soft float on ARMv6-M) are two float evaluations of the same formula, each with
// its own rounding. How far apart such evaluations can be is sampled, not guessed: the formula
// is written out again below, independent of cxmat, and evaluated in float64 (the reference)
// and 64 times in float with every sum in a random order and exp off by up to one ulp. For each
// output, tolerance = 2 x (largest |sample - float64|) + 1 ulp; the firmware must be within it
// of both the host's value and the float64 value, and the host's value within it of float64
// (otherwise the samples do not model this layer). Anything else (a missing or extra value, a
// wrong layer name, no "end" line) fails.
//
// The digit sorter (layers_sort.hpp) prints each of its sequences with the digits the model
// predicted: they must be the sequences of the list, each sorted as the host's run of the same
// model sorts it, and each the true sorted sequence (its digits in ascending order). The int8
// sorter (layers_sort_q8.hpp) prints its int8 logits too: each byte must be the host's. The int8
// adder (layers_lm.hpp) prints each prompt with the text it generated: the host's generation with
// the same model, token for token, and the true sum followed by the stop token.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "layers.hpp"
#include "layers_q8.hpp"
#if CXMAT_EMBEDDED_LM_ADDER
#include "layers_lm.hpp"
#endif
#if CXMAT_EMBEDDED_SORT_DIGITS
#include "layers_sort.hpp"
#include "layers_sort_q8.hpp"
#endif

namespace {

constexpr int samples = 64;  // sampled float evaluations per layer

// ---- the layers' formula, written out from its definition (independent of cxmat) ----
// Evaluated in float64 (the reference: exact to ~1e-15 here) and, many times, in float with a
// random summation order in every sum and exp off by up to 1 ulp (cxmat's run-time exp kernel
// is within 1.5 ulp): a sample of the float evaluations this formula can have.

/// float64, natural order: the reference.
struct exact_arithmetic {
  using type = double;
  std::vector<std::size_t> order(std::size_t n) {
    std::vector<std::size_t> o(n);
    std::iota(o.begin(), o.end(), std::size_t{0});
    return o;
  }
  double exp(double x) { return std::exp(x); }
};

/// float, every sum in a random order, exp rounded and moved by -1, 0 or +1 ulp.
struct sampled_float_arithmetic {
  using type = float;
  std::mt19937 rng;
  std::vector<std::size_t> order(std::size_t n) {
    std::vector<std::size_t> o(n);
    std::iota(o.begin(), o.end(), std::size_t{0});
    std::shuffle(o.begin(), o.end(), rng);
    return o;
  }
  float exp(float x) {
    const float e = std::exp(x);
    switch (rng() % 3) {
      case 0:
        return std::nextafter(e, 0.0f);
      case 1:
        return std::nextafter(e, 2.0f);
      default:
        return e;
    }
  }
};

template <class T>
using table = std::vector<std::vector<T>>;

template <class T, class M>
table<T> to_table(const M& m) {
  table<T> t(M::rows, std::vector<T>(M::cols));
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) t[i][j] = static_cast<T>(m(i, j));
  }
  return t;
}

template <class A, class T = typename A::type>
table<T> product(const table<T>& a, const table<T>& b, A& arith) {
  table<T> c(a.size(), std::vector<T>(b[0].size(), T{0}));
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < b[0].size(); ++j) {
      for (const std::size_t k : arith.order(b.size())) c[i][j] += a[i][k] * b[k][j];
    }
  }
  return c;
}

// softmax(Q_h K_hᵀ / sqrt(d_k)) V_h for each head h (column block h), heads side by side.
template <class A, class T = typename A::type>
table<T> heads(const table<T>& q, const table<T>& k, const table<T>& v, std::size_t h_count, A& arith) {
  const std::size_t dk = q[0].size() / h_count;
  const std::size_t dv = v[0].size() / h_count;
  const T root = static_cast<T>(std::sqrt(static_cast<double>(dk)));
  table<T> out(q.size(), std::vector<T>(v[0].size(), T{0}));
  for (std::size_t h = 0; h < h_count; ++h) {
    for (std::size_t i = 0; i < q.size(); ++i) {
      std::vector<T> s(k.size());
      T top = -std::numeric_limits<T>::infinity();
      for (std::size_t j = 0; j < k.size(); ++j) {
        T dot = 0;
        for (const std::size_t c : arith.order(dk)) dot += q[i][h * dk + c] * k[j][h * dk + c];
        s[j] = dot / root;
        top = std::max(top, s[j]);
      }
      T sum = 0;
      for (T& x : s) x = arith.exp(x - top);
      for (const std::size_t j : arith.order(k.size())) sum += s[j];
      for (T& x : s) x /= sum;
      for (std::size_t c = 0; c < dv; ++c) {
        for (const std::size_t j : arith.order(k.size())) out[i][h * dv + c] += s[j] * v[j][h * dv + c];
      }
    }
  }
  return out;
}

// a + b, with b one row added to every row of a (a bias) or a matrix of a's shape (a residual).
template <class T>
table<T> plus(table<T> a, const table<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < a[i].size(); ++j) a[i][j] += b[b.size() == 1 ? 0 : i][j];
  }
  return a;
}

// LayerNorm of each row: (x - mean) / sqrt(biased variance + eps) * gamma + beta.
template <class A, class T = typename A::type>
table<T> layer_norm(table<T> a, const table<T>& gamma, const table<T>& beta, T eps, A& arith) {
  for (auto& r : a) {
    const T d = static_cast<T>(r.size());
    T sum = 0, squares = 0;
    for (const std::size_t j : arith.order(r.size())) sum += r[j];
    const T mean = sum / d;
    for (const std::size_t j : arith.order(r.size())) squares += (r[j] - mean) * (r[j] - mean);
    const T root = std::sqrt(squares / d + eps);
    for (std::size_t j = 0; j < r.size(); ++j) r[j] = (r[j] - mean) / root * gamma[0][j] + beta[0][j];
  }
  return a;
}

// nn.TransformerEncoderLayer, post-norm, ReLU: h = LN1(x + MHA(x)); y = LN2(h + W2 relu(W1 h + b1) + b2).
template <class A, class T = typename A::type>
table<T> encoder(const table<T>& x, A& arith) {
  const auto& L = layers::encoder_layer::layer;
  const auto& at = L.self_attn;
  const table<T> q = plus(product(x, to_table<T>(at.w_q), arith), to_table<T>(at.b_q));
  const table<T> k = plus(product(x, to_table<T>(at.w_k), arith), to_table<T>(at.b_k));
  const table<T> v = plus(product(x, to_table<T>(at.w_v), arith), to_table<T>(at.b_v));
  const table<T> attn =
      plus(product(heads(q, k, v, model::heads, arith), to_table<T>(at.w_o), arith), to_table<T>(at.b_o));
  const table<T> h = layer_norm(plus(x, attn), to_table<T>(L.norm1.weight), to_table<T>(L.norm1.bias),
                                static_cast<T>(L.norm1.eps), arith);
  table<T> f = plus(product(h, to_table<T>(L.linear1.weight), arith), to_table<T>(L.linear1.bias));
  for (auto& r : f) {
    for (T& e : r) e = e > T(0) ? e : T(0);
  }
  f = plus(product(f, to_table<T>(L.linear2.weight), arith), to_table<T>(L.linear2.bias));
  return layer_norm(plus(h, f), to_table<T>(L.norm2.weight), to_table<T>(L.norm2.bias), static_cast<T>(L.norm2.eps),
                    arith);
}

template <class A, class T = typename A::type>
table<T> formula(const std::string& name, const table<T>& x, A& arith) {
  if (name == "baseline") return x;
  if (name == "encoder_layer" || name == "encoder_layer_workspace") return encoder(x, arith);
  if (name == "self_attention") {
    return product(heads(product(x, to_table<T>(model::wq), arith), product(x, to_table<T>(model::wk), arith),
                         product(x, to_table<T>(model::wv), arith), model::heads, arith),
                   to_table<T>(model::wo), arith);
  }
  if (name == "cross_attention" || name == "cross_attention_folded") {
    const table<T> c = to_table<T>(model::memory);
    return product(heads(product(x, to_table<T>(model::wq), arith), product(c, to_table<T>(model::wk), arith),
                         product(c, to_table<T>(model::wv), arith), model::heads, arith),
                   to_table<T>(model::wo), arith);
  }
  using w = layers::worksheet_004;
  return heads(product(x, to_table<T>(w::wq), arith), product(x, to_table<T>(w::wk), arith),
               product(x, to_table<T>(w::wv), arith), 3, arith);
}

// ---- the firmware's output ----
struct firmware_output {
  std::string layer;
  std::size_t rows = 0, cols = 0;
  std::vector<std::vector<std::uint32_t>> values;           // as printed: a float's bits, an int8's byte
  std::vector<std::pair<std::string, std::string>> sorted;  // a sequence model's input and result
  std::vector<std::vector<std::uint32_t>> logits;           // an int8 sequence model's logits, row by row
  std::uint64_t ticks = 0, empty = 0, n_short = 0, t_short = 0, n_long = 0, t_long = 0, stack = 0;
  bool has_ticks = false, has_calibration = false, has_stack = false, ended = false;
  std::string scratch;  // the layer's scratch memory, a compile-time constant of the target, if it states one
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
    } else if (key == "sorted") {
      std::string sequence, result;
      line >> sequence >> result;
      out.sorted.emplace_back(sequence, result);
    } else if (key == "logits") {
      std::vector<std::uint32_t> row;
      std::string word;
      while (line >> word) row.push_back(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
      out.logits.push_back(row);
    } else if (key == "ticks") {
      std::string empty_word;
      out.has_ticks = static_cast<bool>(line >> out.ticks >> empty_word >> out.empty);
    } else if (key == "calibration") {
      out.has_calibration = static_cast<bool>(line >> out.n_short >> out.t_short >> out.n_long >> out.t_long);
    } else if (key == "stack") {
      out.has_stack = static_cast<bool>(line >> out.stack);
    } else if (key == "scratch") {
      line >> out.scratch;
    } else if (key == "end") {
      out.ended = true;
    }
  }
  if (out.layer.empty())
    error = "no 'layer' line: the firmware printed no result";
  else if (!out.ended)
    error = "no 'end' line: the firmware stopped before finishing its report";
  else if (!out.has_ticks || !out.has_calibration || !out.has_stack)
    error = "measurements missing";
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
  std::printf("measured %s instructions %llu stack %llu%s%s\n", name, static_cast<unsigned long long>(instructions),
              static_cast<unsigned long long>(fw.stack), fw.scratch.empty() ? "" : " scratch ", fw.scratch.c_str());
  return failures;
}

template <class Layer>
int check(const firmware_output& fw) {
  using output = typename Layer::output;
  volatile std::uint32_t opaque = 0;  // the host computes at run time too, not the compiler
  typename Layer::input x = Layer::make_input();
  x(0, 0) += static_cast<float>(opaque);
  const output host = Layer::run(x);

  if (fw.rows != output::rows || fw.cols != output::cols || fw.values.size() != output::rows) {
    std::printf("FAIL %s: expected %zu x %zu values, the firmware printed %zu rows for %zu x %zu\n", Layer::name,
                output::rows, output::cols, fw.values.size(), fw.rows, fw.cols);
    return 1;
  }
  // The tolerance of each output: twice the largest error of the sampled float evaluations, plus
  // one ulp of the value.
  exact_arithmetic exact_arith;
  const table<double> exact = formula(Layer::name, to_table<double>(x), exact_arith);
  table<double> spread(output::rows, std::vector<double>(output::cols, 0.0));
  sampled_float_arithmetic sampled{std::mt19937(20261124u)};
  for (int sample = 0; sample < samples; ++sample) {
    const table<float> y = formula(Layer::name, to_table<float>(x), sampled);
    for (std::size_t i = 0; i < output::rows; ++i) {
      for (std::size_t j = 0; j < output::cols; ++j) {
        spread[i][j] = std::fmax(spread[i][j], std::fabs(static_cast<double>(y[i][j]) - exact[i][j]));
      }
    }
  }
  int failures = 0;
  double worst_host = 0.0, worst_share = 0.0, host_share = 0.0;  // share: of the tolerance used
  for (std::size_t i = 0; i < output::rows; ++i) {
    if (fw.values[i].size() != output::cols) {
      std::printf("FAIL %s: row %zu has %zu values, expected %zu\n", Layer::name, i, fw.values[i].size(), output::cols);
      return 1;
    }
    for (std::size_t j = 0; j < output::cols; ++j) {
      float y_float;
      std::memcpy(&y_float, &fw.values[i][j], sizeof y_float);
      const double y = static_cast<double>(y_float);
      const double h = static_cast<double>(host(i, j));
      const double ulp = std::ldexp(1.0, std::ilogb(std::fmax(std::fabs(exact[i][j]), 0x1p-126)) - 23);
      const double tolerance = 2.0 * spread[i][j] + ulp;
      const double d_host = std::fabs(y - h), d_exact = std::fabs(y - exact[i][j]);
      worst_host = std::fmax(worst_host, d_host);
      worst_share = std::fmax(worst_share, std::fmax(d_host, d_exact) / tolerance);
      host_share = std::fmax(host_share, std::fabs(h - exact[i][j]) / tolerance);
      if (!(d_host <= tolerance) || !(d_exact <= tolerance)) {
        std::printf("FAIL %s (%zu, %zu): firmware %.9g, host %.9g, float64 %.17g, tolerance %.3g\n", Layer::name, i, j,
                    y, h, exact[i][j], tolerance);
        ++failures;
      }
    }
  }
  // The host is a float evaluation too: if it falls outside the tolerance, the sampled model
  // of float evaluations does not describe this layer, and the comparison means nothing.
  if (!(host_share <= 1.0)) {
    std::printf("FAIL %s: the host's own result is outside the tolerance (%.0f %% of it)\n", Layer::name,
                100.0 * host_share);
    ++failures;
  }
  std::printf("%s %s: max |firmware - host| %.3g; at most %.0f %% of the tolerance used (host: %.0f %%)\n",
              failures == 0 ? "ok" : "FAIL", Layer::name, worst_host, 100.0 * worst_share, 100.0 * host_share);
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

#if CXMAT_EMBEDDED_SORT_DIGITS
// An int8 sequence model's logits: for each sequence, its rows in order, each byte the host's.
template <class Layer>
int check_logits(const firmware_output& fw, std::size_t k, const typename Layer::input& x) {
  using logits = typename Layer::logits_type;
  const logits host = Layer::logits(x);
  int differ = 0;
  for (std::size_t i = 0; i < logits::rows; ++i) {
    const std::size_t row = k * logits::rows + i;
    if (row >= fw.logits.size() || fw.logits[row].size() != logits::cols) {
      std::printf("FAIL %s: sequence %zu: logits row %zu missing or not %zu values\n", Layer::name, k, i, logits::cols);
      return 1;
    }
    for (std::size_t j = 0; j < logits::cols; ++j) {
      if (fw.logits[row][j] != static_cast<std::uint8_t>(host(i, j))) {
        std::printf("FAIL %s: sequence %zu, logit (%zu, %zu): firmware %d, host %d\n", Layer::name, k, i, j,
                    static_cast<int>(static_cast<std::int8_t>(fw.logits[row][j] & 0xFFu)),
                    static_cast<int>(host(i, j)));
        ++differ;
      }
    }
  }
  return differ;
}

// A sequence model's results: every sequence of the list, in order, with the host's result, which
// must also be the sequence's digits in ascending order (std::sort: independent of the model);
// for an int8 model, its logits the host's too.
template <class Layer>
int check_sequences(const firmware_output& fw) {
  constexpr std::size_t length = Layer::output::cols;
  constexpr bool has_logits = requires(const typename Layer::input& x) { Layer::logits(x); };
  if (fw.rows != Layer::sequences || fw.cols != length || fw.sorted.size() != Layer::sequences) {
    std::printf("FAIL %s: expected %zu sequences of %zu digits, the firmware printed %zu for %zu x %zu\n", Layer::name,
                Layer::sequences, length, fw.sorted.size(), fw.rows, fw.cols);
    return 1;
  }
  volatile int opaque = 0;  // the host computes at run time too, not the compiler
  int failures = 0, logits_differ = 0;
  for (std::size_t k = 0; k < Layer::sequences; ++k) {
    typename Layer::input x = Layer::make_input(k);
    x(0, 0) += opaque;
    const typename Layer::output host = Layer::run(x);
    std::string in, by_host;
    for (std::size_t i = 0; i < length; ++i) {
      in += static_cast<char>('0' + x(0, i));
      by_host += static_cast<char>('0' + host(0, i));
    }
    std::string ascending = in;
    std::sort(ascending.begin(), ascending.end());
    const auto& [fw_in, fw_out] = fw.sorted[k];
    int differ = 0;
    if constexpr (has_logits) differ = check_logits<Layer>(fw, k, x);
    logits_differ += differ;
    const bool ok = fw_in == in && fw_out == by_host && fw_out == ascending && differ == 0;
    std::printf("%s %s -> firmware %s, host %s, sorted %s\n", ok ? "ok" : "FAIL", fw_in.c_str(), fw_out.c_str(),
                by_host.c_str(), ascending.c_str());
    if (fw_in != in) std::printf("FAIL %s: sequence %zu should be %s\n", Layer::name, k, in.c_str());
    failures += ok ? 0 : 1;
  }
  if constexpr (has_logits) {
    using logits = typename Layer::logits_type;
    if (fw.logits.size() != Layer::sequences * logits::rows) {
      std::printf("FAIL %s: %zu rows of logits, expected %zu\n", Layer::name, fw.logits.size(),
                  Layer::sequences * logits::rows);
      ++failures;
    }
    std::printf("%s %s: %d of %zu int8 logits differ from the host's\n", logits_differ == 0 ? "ok" : "FAIL",
                Layer::name, logits_differ, Layer::sequences * logits::rows * logits::cols);
  }
  std::printf("%s %s: %zu of %zu sequences as the host sorts them, and sorted\n", failures == 0 ? "ok" : "FAIL",
              Layer::name, Layer::sequences - static_cast<std::size_t>(failures), Layer::sequences);
  return failures + measurements(fw, Layer::name) == 0 ? 0 : 1;
}
#endif

#if CXMAT_EMBEDDED_LM_ADDER
// A language model's generations: each prompt of the list, the host's tokens for it, and the sum
// its digits state (computed here from the prompt's characters, not by any model).
template <class Layer>
int check_generations(const firmware_output& fw) {
  if (fw.rows != Layer::sequences || fw.sorted.size() != Layer::sequences) {
    std::printf("FAIL %s: expected %zu generations, the firmware printed %zu\n", Layer::name, Layer::sequences,
                fw.sorted.size());
    return 1;
  }
  volatile int opaque = 0;  // the host computes at run time too, not the compiler
  int failures = 0;
  for (std::size_t k = 0; k < Layer::sequences; ++k) {
    typename Layer::input x = Layer::make_input(k);
    x(0, 0) += opaque;
    const typename Layer::output host = Layer::run(x);
    std::string prompt, by_host;
    for (std::size_t i = 0; i < Layer::input::cols; ++i) prompt += Layer::characters[x(0, i)];
    for (std::size_t i = 0; i < Layer::output::cols && host(0, i) >= 0; ++i) by_host += Layer::characters[host(0, i)];
    const int a = std::stoi(prompt.substr(0, 3));
    const int b = std::stoi(prompt.substr(4, 3));
    const std::string sum = std::to_string(a + b) + Layer::characters[lm_adder::stop];
    const auto& [fw_prompt, fw_text] = fw.sorted[k];
    const bool ok = fw_prompt == prompt && fw_text == by_host && fw_text == sum;
    std::printf("%s %s -> firmware %s, host %s, sum %s\n", ok ? "ok" : "FAIL", fw_prompt.c_str(), fw_text.c_str(),
                by_host.c_str(), sum.c_str());
    failures += ok ? 0 : 1;
  }
  std::printf("%s %s: %zu of %zu generations as the host's and the true sums\n", failures == 0 ? "ok" : "FAIL",
              Layer::name, Layer::sequences - static_cast<std::size_t>(failures), Layer::sequences);
  return failures + measurements(fw, Layer::name) == 0 ? 0 : 1;
}
#endif

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
  if (wanted == layers::encoder_layer::name) return check<layers::encoder_layer>(fw);
  if (wanted == layers::encoder_layer_workspace::name) return check<layers::encoder_layer_workspace>(fw);
  if (wanted == layers::q8_self_attention::name) return check_q8<layers::q8_self_attention>(fw);
  if (wanted == layers::q8_worksheet_004::name) return check_q8<layers::q8_worksheet_004>(fw);
  if (wanted == layers::q8_self_attention_workspace::name) return check_q8<layers::q8_self_attention_workspace>(fw);
  if (wanted == layers::q8_products::name) return check_q8<layers::q8_products>(fw);
#if CXMAT_EMBEDDED_LM_ADDER
  if (wanted == layers::lm_adder_q8::name) return check_generations<layers::lm_adder_q8>(fw);
  if (wanted == layers::lm_adder_q8_storage::name) return check_generations<layers::lm_adder_q8_storage>(fw);
#endif
#if CXMAT_EMBEDDED_SORT_DIGITS
  if (wanted == layers::sort_digits::name) return check_sequences<layers::sort_digits>(fw);
  if (wanted == layers::sort_digits_q8::name) return check_sequences<layers::sort_digits_q8>(fw);
  if (wanted == layers::sort_digits_q8_workspace::name) return check_sequences<layers::sort_digits_q8_workspace>(fw);
#endif
  std::printf("FAIL: unknown layer '%s'\n", wanted.c_str());
  return 1;
}
