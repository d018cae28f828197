#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <cxmat/generation.hpp>
#include <cxmat/text.hpp>

#include "test_support/catch.hpp"
#include "test_support/half_models.hpp"
#include "test_support/plain_language_models.hpp"
#include "test_support/runtime_value.hpp"
#include "test_support/tiny_language_models.hpp"

namespace {

using cxmat::matrix;
using namespace cxmat_test;

constexpr auto llama_interleaved = make_tiny_llama<tiny_llama<double>>(1);
constexpr auto llama_half =
    make_tiny_llama<tiny_llama<double, cxmat::rotary_layout::rotate_half, matrix<double, tiny_vocab, 16>>>(2);
constexpr auto llama_float = make_tiny_llama<tiny_llama<float>>(3);
constexpr auto gpt2 = make_tiny_gpt2<tiny_gpt2<double>>(4);
constexpr auto gpt2_float = make_tiny_gpt2<tiny_gpt2<float>>(4);

// A copy the optimiser cannot see through.
template <class T>
T opaque(const T& value) {
  T copy = value;
  asm volatile("" : : "r"(&copy) : "memory");
  return copy;
}

const std::vector<int> sequence{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

template <class M>
matrix<int, 1, tiny_context> as_matrix(const std::vector<int>& tokens) {
  matrix<int, 1, tiny_context> out{};
  for (std::size_t i = 0; i < tiny_context; ++i) out(0, i) = tokens[i];
  return out;
}

// The largest |library - plain| over all logits, relative to the largest |plain| logit.
template <class M, class Plain>
double logits_error(const M& model, const Plain& plain_logits) {
  const auto tokens = cxmat_test::at_run_time(as_matrix<M>(sequence));
  const auto all = cxmat::forward(model, tokens);
  const auto expected = plain_logits(model, sequence);
  long double scale = 0;
  long double worst = 0;
  for (std::size_t i = 0; i < tiny_context; ++i) {
    for (std::size_t j = 0; j < tiny_vocab; ++j) {
      scale = std::fmax(scale, std::fabs(expected[i][j]));
      worst = std::fmax(worst, std::fabs(static_cast<long double>(all(i, j)) - expected[i][j]));
    }
  }
  return static_cast<double>(worst / scale);
}

const auto llama_plain = [](const auto& m, const std::vector<int>& t) { return plain::llama_logits(m, t); };
const auto gpt2_plain = [](const auto& m, const std::vector<int>& t) { return plain::gpt2_logits(m, t); };

TEST_CASE("a model's logits equal the plain formulas' over 16 positions", "[generation]") {
  // double: the formulas in long double, so the difference is the library's double rounding
  CHECK(logits_error(llama_interleaved, llama_plain) < 1e-13);
  CHECK(logits_error(llama_half, llama_plain) < 1e-13);
  CHECK(logits_error(gpt2, gpt2_plain) < 1e-13);
  // float: rounding of 2 blocks of float arithmetic
  CHECK(logits_error(llama_float, llama_plain) < 1e-5);
  CHECK(logits_error(gpt2_float, gpt2_plain) < 1e-5);
}

// Greedy tokens by the plain formulas: argmax of the last position, appended, recomputed.
template <class M, class Plain>
std::vector<int> plain_greedy(const M& model, std::vector<int> tokens, std::size_t n, const Plain& plain_logits) {
  std::vector<int> out;
  for (std::size_t k = 0; k < n; ++k) {
    const auto all = plain_logits(model, tokens);
    const auto& last = all.back();
    std::size_t best = 0;
    for (std::size_t j = 1; j < last.size(); ++j) best = last[j] > last[best] ? j : best;
    out.push_back(static_cast<int>(best));
    tokens.push_back(static_cast<int>(best));
  }
  return out;
}

template <class M, class Plain>
void check_generation(const M& model, const Plain& plain_logits) {
  constexpr matrix<int, 1, 3> prompt{{{3, 1, 4}}};
  const auto tokens = cxmat::generate<12>(model, cxmat_test::at_run_time(prompt));
  const auto expected = plain_greedy(model, {3, 1, 4}, 12, plain_logits);
  for (std::size_t i = 0; i < 12; ++i) CHECK(tokens(0, i) == expected[i]);
}

TEST_CASE("greedy generation at run time gives the plain formulas' tokens", "[generation]") {
  check_generation(llama_interleaved, llama_plain);
  check_generation(llama_half, llama_plain);
  check_generation(llama_float, llama_plain);
  check_generation(gpt2, gpt2_plain);
  check_generation(gpt2_float, gpt2_plain);
}

TEST_CASE("the same tokens at compile time and at run time, greedy and sampled", "[generation]") {
  constexpr matrix<int, 1, 2> prompt{{{7, 2}}};
  constexpr auto sampler = cxmat::sampling(1.2, 2024).with_top_k(6).with_top_p(0.9);
  constexpr auto greedy_ct = cxmat::generate<10>(llama_float, prompt);
  constexpr auto sampled_ct = cxmat::generate<10>(llama_float, prompt, sampler);
  constexpr auto gpt2_ct = cxmat::generate<10>(gpt2_float, prompt, cxmat::sampling(0.8, 5));
  CHECK(cxmat::generate<10>(llama_float, cxmat_test::at_run_time(prompt)) == greedy_ct);
  CHECK(cxmat::generate<10>(llama_float, cxmat_test::at_run_time(prompt), opaque(sampler)) == sampled_ct);
  CHECK(cxmat::generate<10>(gpt2_float, cxmat_test::at_run_time(prompt), cxmat::sampling(0.8, 5)) == gpt2_ct);
}

// generate_recording: the same tokens as generate, and every head's weights those of the plain
// reference's causal attention over the positions the model computed (the prompt and every
// generated token but the last), 0 elsewhere.
TEST_CASE("a recorded generation's attention weights are the plain formulas'", "[generation]") {
  constexpr matrix<int, 1, 3> prompt{{{3, 1, 4}}};
  constexpr std::size_t n = 12;  // generate<12> after 3 tokens, as check_generation
  const auto recorded = cxmat::generate_recording<n>(opaque(llama_interleaved), cxmat_test::at_run_time(prompt));
  CHECK(recorded.tokens == cxmat::generate<n>(llama_interleaved, prompt));
  std::vector<int> tokens{3, 1, 4};
  for (std::size_t i = 0; i + 1 < n; ++i) tokens.push_back(recorded.tokens(0, i));
  std::vector<std::vector<cxmat_test::plain::rows>> attention;
  static_cast<void>(cxmat_test::plain::llama_logits(llama_interleaved, tokens, &attention));
  REQUIRE(attention.size() == decltype(llama_interleaved)::layers);
  double largest_error = 0.0;
  for (std::size_t l = 0; l < attention.size(); ++l) {
    for (std::size_t h = 0; h < decltype(llama_interleaved)::heads; ++h) {
      const auto& got = recorded.attention[l].items[h];
      for (std::size_t i = 0; i < 3 + n; ++i) {
        for (std::size_t j = 0; j < 3 + n; ++j) {
          const bool computed = i < tokens.size() && j < tokens.size();
          const double want = computed ? static_cast<double>(attention[l][h][i][j]) : 0.0;
          if (want == 0.0) {
            CHECK(got(i, j) == 0.0);
          } else {
            largest_error = std::fmax(largest_error, std::fabs(got(i, j) - want));
          }
        }
      }
    }
  }
  CHECK(largest_error < 1e-12);
}

// complete<N, "prompt">: at run time the text of the same tokens as in the compiler; a prompt
// with a char the tokenizer lacks gives an empty text (the compiler refuses it).
TEST_CASE("complete writes the text of the generated tokens, and nothing for a prompt it cannot encode",
          "[generation][text]") {
  constexpr cxmat::char_tokenizer letters{"abcdefghijklm"};  // id i is 'a' + i
  constexpr auto at_compile_time = cxmat::complete<6, "hc">(llama_float, letters);
  const auto at_run_time = cxmat::complete<6, "hc">(opaque(llama_float), opaque(letters));
  CHECK(at_run_time == at_compile_time);
  const auto tokens = cxmat::generate<6>(llama_float, matrix<int, 1, 2>{{{7, 2}}});
  for (std::size_t i = 0; i < 6; ++i) CHECK(at_run_time[i] == static_cast<char>('a' + tokens(0, i)));
  CHECK(cxmat::complete<6, "hz">(opaque(llama_float), opaque(letters)).size() == 0);
}

// choose_token over fixed probabilities: the frequencies of 40,000 draws (positions 0 ..) against
// the probabilities, within 5 standard deviations; the kept sets of top-k and top-p.
TEST_CASE("sampling draws in proportion to the probabilities it keeps", "[generation][sampling]") {
  // logits ln(p) for p = 0.4, 0.3, 0.15, 0.1, 0.05 (and one token that can never be drawn)
  const matrix<double, 1, 6> logits{{{std::log(0.4), std::log(0.3), std::log(0.15), std::log(0.1), std::log(0.05),
                                      -std::numeric_limits<double>::infinity()}}};
  const auto frequencies = [&](const cxmat::sampler& s) {
    std::vector<double> count(6, 0.0);
    for (std::size_t i = 0; i < 40000; ++i) count[static_cast<std::size_t>(cxmat::choose_token(logits, s, i))] += 1;
    for (double& c : count) c /= 40000;
    return count;
  };
  const auto close = [](double f, double p) { return std::fabs(f - p) <= 5 * std::sqrt(p * (1 - p) / 40000) + 1e-12; };
  const auto all = frequencies(cxmat::sampling(1.0, 11));
  const double p[6] = {0.4, 0.3, 0.15, 0.1, 0.05, 0.0};
  for (std::size_t j = 0; j < 6; ++j) CHECK(close(all[j], p[j]));
  // top-k 2: 0.4 and 0.3 renormalised
  const auto top2 = frequencies(cxmat::sampling(1.0, 12).with_top_k(2));
  CHECK(close(top2[0], 0.4 / 0.7));
  CHECK(close(top2[1], 0.3 / 0.7));
  CHECK(top2[2] + top2[3] + top2[4] + top2[5] == 0.0);
  // top-p 0.8: 0.4 + 0.3 + 0.15 = 0.85 is the smallest leading share >= 0.8
  const auto nucleus = frequencies(cxmat::sampling(1.0, 13).with_top_p(0.8));
  CHECK(close(nucleus[0], 0.4 / 0.85));
  CHECK(close(nucleus[2], 0.15 / 0.85));
  CHECK(nucleus[3] + nucleus[4] == 0.0);
  // temperature 2: p^(1/2), renormalised
  const auto warm = frequencies(cxmat::sampling(2.0, 14));
  double z = 0;
  for (std::size_t j = 0; j < 5; ++j) z += std::sqrt(p[j]);
  for (std::size_t j = 0; j < 5; ++j) CHECK(close(warm[j], std::sqrt(p[j]) / z));
}

TEST_CASE("bad input to generation has a defined result at run time", "[generation]") {
  constexpr matrix<int, 1, 2> prompt{{{7, 2}}};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  SECTION("NaN logits choose no token; every logit -inf too; +inf is the largest") {
    CHECK(cxmat::choose_token(matrix<double, 1, 3>{{{1.0, nan, 2.0}}}, cxmat::greedy, 0) == cxmat::no_token);
    CHECK(cxmat::choose_token(matrix<double, 1, 3>{{{1.0, nan, 2.0}}}, cxmat::sampling(1, 1), 0) == cxmat::no_token);
    CHECK(cxmat::choose_token(matrix<double, 1, 2>{{{-inf, -inf}}}, cxmat::greedy, 0) == cxmat::no_token);
    CHECK(cxmat::choose_token(matrix<double, 1, 2>{{{-inf, -inf}}}, cxmat::sampling(1, 1), 0) == cxmat::no_token);
    CHECK(cxmat::choose_token(matrix<double, 1, 3>{{{1.0, inf, inf}}}, cxmat::greedy, 0) == 1);
    for (std::size_t i = 0; i < 50; ++i) {
      const int t = cxmat::choose_token(matrix<double, 1, 3>{{{1.0, inf, inf}}}, cxmat::sampling(1, 3), i);
      CHECK((t == 1 || t == 2));
    }
    CHECK(cxmat::choose_token(matrix<double, 1, 3>{{{0.5, 2.0, 2.0}}}, cxmat::greedy, 0) == 1);  // first of ties
  }
  SECTION("refused sampler parameters generate nothing") {
    // generate<10> after 2 tokens, as above: the instantiations this file has already.
    const auto none = cxmat::generate<10>(llama_float, prompt, opaque(cxmat::sampling(1, 1).with_top_k(0)));
    for (std::size_t i = 0; i < 10; ++i) CHECK(none(0, i) == cxmat::no_token);
    const auto none_p = cxmat::generate<10>(llama_float, prompt, opaque(cxmat::sampling(1, 1).with_top_p(1.5)));
    CHECK(none_p(0, 0) == cxmat::no_token);
    const auto none_t = cxmat::generate<10>(llama_float, prompt, opaque(cxmat::sampling(std::nan(""), 1)));
    CHECK(none_t(0, 0) == cxmat::no_token);
  }
  SECTION("a token id outside the vocabulary: NaN logits, the cache unchanged, nothing generated") {
    tiny_llama<float>::cache_type<4> cache{};
    const auto logits = cxmat::prefill(llama_float, cache, cxmat_test::at_run_time(matrix<int, 1, 2>{{{7, 13}}}));
    CHECK(std::isnan(logits(0, 0)));
    CHECK(cache.filled == 0);
    const auto none = cxmat::generate<10>(llama_float, cxmat_test::at_run_time(matrix<int, 1, 2>{{{-1, 2}}}));
    CHECK(none(0, 0) == cxmat::no_token);
  }
  SECTION("a full cache: NaN logits and the cache unchanged") {
    tiny_llama<float>::cache_type<3> cache{};
    cxmat::prefill(llama_float, cache, prompt);
    CHECK(!std::isnan(cxmat::step(llama_float, cache, 1)(0, 0)));
    CHECK(cache.filled == 3);
    CHECK(std::isnan(cxmat::step(llama_float, cache, 1)(0, 0)));
    CHECK(cache.filled == 3);
  }
}

}  // namespace

namespace {

// llama2.c's int8 matmul, written from its description: per group, scale = max|v| / 127 and
// q = roundf(v / scale); y_o = Σ_g (Σ q_x q_w) · s_w · s_x. Input k is in group k / group (the
// last group of a row the rest, where group does not divide the width).
std::vector<float> plain_group_product(const std::vector<float>& x, const std::vector<std::vector<float>>& w_out_in,
                                       std::size_t group) {
  const auto quantize = [group](const std::vector<float>& v, std::vector<int>& q, std::vector<float>& s) {
    q.assign(v.size(), 0);
    s.assign((v.size() + group - 1) / group, 0.0f);
    for (std::size_t k = 0; k < v.size(); ++k) s[k / group] = std::fmax(s[k / group], std::fabs(v[k]));
    for (float& scale : s) scale /= 127.0f;
    for (std::size_t k = 0; k < v.size(); ++k)
      q[k] = s[k / group] == 0 ? 0 : static_cast<int>(std::round(v[k] / s[k / group]));
  };
  std::vector<int> qx;
  std::vector<float> sx;
  quantize(x, qx, sx);
  std::vector<float> y;
  for (const auto& row : w_out_in) {
    std::vector<int> qw;
    std::vector<float> sw;
    quantize(row, qw, sw);
    double sum = 0;
    for (std::size_t g = 0; g < sx.size(); ++g) {
      long dot = 0;
      for (std::size_t i = g * group; i < std::min((g + 1) * group, x.size()); ++i) dot += long{qx[i]} * long{qw[i]};
      sum += static_cast<double>(dot) * double{sw[g]} * double{sx[g]};
    }
    y.push_back(static_cast<float>(sum));
  }
  return y;
}

// x (3 x In) times W (In x 20) in groups of 16 against the plain formula.
template <std::size_t In>
void check_group_product(std::uint32_t seed) {
  cxmat_test::weight_source source{seed, 3.0};
  matrix<float, In, 20> w{};
  matrix<float, 3, In> x{};
  source.fill(w);
  source.fill(x);
  const auto qw = cxmat::q8::quantize_groups<16>(cxmat_test::at_run_time(w));
  const auto y = cxmat::q8::group_linear(cxmat_test::at_run_time(x), qw);
  std::vector<std::vector<float>> w_out_in(20, std::vector<float>(In));
  for (std::size_t o = 0; o < 20; ++o) {
    for (std::size_t k = 0; k < In; ++k) w_out_in[o][k] = w(k, o);
  }
  for (std::size_t r = 0; r < 3; ++r) {
    const auto expected = plain_group_product(std::vector<float>(x.elems[r], x.elems[r] + In), w_out_in, 16);
    for (std::size_t o = 0; o < 20; ++o) {
      // three float roundings per group against one in double: a few units in the last place
      CHECK(std::fabs(y(r, o) - expected[o]) <= 1e-5f * (1.0f + std::fabs(expected[o])));
    }
  }
}

TEST_CASE("int8 group products equal llama2.c's formula", "[generation][q8]") {
  check_group_product<48>(77);
  // 44 inputs: groups of 16, 16 and the last of 12
  check_group_product<44>(78);
}

TEST_CASE("a model quantized in groups keeps its logits within 5 % and its greedy tokens", "[generation][q8]") {
  constexpr auto model_q8 = cxmat::quantize_groups<8>(llama_float);
  const auto tokens = cxmat_test::at_run_time(as_matrix<decltype(llama_float)>(sequence));
  const auto f = cxmat::forward(llama_float, tokens);
  const auto q = cxmat::forward(model_q8, tokens);
  float scale = 0;
  float worst = 0;
  for (std::size_t i = 0; i < tiny_context; ++i) {
    for (std::size_t j = 0; j < tiny_vocab; ++j) {
      scale = std::fmax(scale, std::fabs(f(i, j)));
      worst = std::fmax(worst, std::fabs(f(i, j) - q(i, j)));
    }
  }
  CHECK(worst / scale < 0.05f);  // 3.3 % measured: random weights of 16 x 24, two blocks, 16 positions
  constexpr matrix<int, 1, 3> prompt{{{3, 1, 4}}};
  CHECK(cxmat::generate<12>(model_q8, cxmat_test::at_run_time(prompt)) ==
        cxmat::generate<12>(llama_float, cxmat_test::at_run_time(prompt)));
}

TEST_CASE("generate in the caller's storage gives generate's tokens, whatever the storage held", "[generation]") {
  static cxmat::generation<std::remove_cvref_t<decltype(llama_float)>, cxmat::extent{14}> storage;  // not on the stack
  constexpr matrix<int, 1, 3> prompt{{{3, 1, 4}}};
  const auto expected = cxmat::generate<10>(llama_float, cxmat_test::at_run_time(prompt));
  std::memset(static_cast<void*>(&storage), 0xff, sizeof storage);  // every float NaN, every count and token huge
  CHECK(cxmat::generate<10>(llama_float, cxmat_test::at_run_time(prompt), storage) == expected);
  constexpr matrix<int, 1, 1> other{{{9}}};
  CHECK(cxmat::generate<12>(llama_float, cxmat_test::at_run_time(other), storage, cxmat::sampling(1.2, 5))(0, 0) !=
        cxmat::no_token);
  CHECK(cxmat::generate<10>(llama_float, cxmat_test::at_run_time(prompt), storage) == expected);
  CHECK(storage.length == 13);
}

TEST_CASE("a model with 16-bit float weights computes the float model's logits at run time", "[generation][half]") {
  // The weights both formats hold exactly (test_support/half_models.hpp); each product widens
  // them and runs the float product, so the bits are the float model's here as in the compiler.
  static constexpr auto float_model = cxmat_test::make_half_exact_llama();
  static constexpr auto binary16_model = cxmat_test::make_half<cxmat::half_format::binary16>(float_model);
  static constexpr auto bfloat16_model = cxmat_test::make_half<cxmat::half_format::bfloat16>(float_model);
  constexpr matrix<int, 1, 6> tokens{{{1, 7, 3, 12, 0, 5}}};
  const auto f = cxmat::forward(float_model, cxmat_test::at_run_time(tokens));
  CHECK(cxmat::forward(binary16_model, cxmat_test::at_run_time(tokens)) == f);
  CHECK(cxmat::forward(bfloat16_model, cxmat_test::at_run_time(tokens)) == f);
  CHECK(f(5, 2) != f(5, 3));
  constexpr matrix<int, 1, 2> prompt{{{3, 1}}};
  CHECK(cxmat::generate<10>(bfloat16_model, cxmat_test::at_run_time(prompt)) ==
        cxmat::generate<10>(float_model, cxmat_test::at_run_time(prompt)));
}

}  // namespace
