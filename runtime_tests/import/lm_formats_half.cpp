// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Language models stored in 16 bits by the importer (--module llama --type f16 / bf16): a file's
// own float16 or bfloat16 weights keep their bits, so the model computes the float import's
// logits bit for bit, in the compiler and at run time; float32 weights are rounded to the
// nearest bfloat16, ties to even (checked against each stored value's neighbours).
#include <cstddef>
#include <cstdint>

#include <cxmat/generation.hpp>

#include "lm_a_f16.hpp"
#include "lm_a_f16_stored.hpp"
#include "lm_a_hf.hpp"
#include "lm_a_hf_bf16.hpp"
#include "lm_b_hf.hpp"
#include "lm_b_hf_stored.hpp"
#include "test_support/catch.hpp"
#include "test_support/runtime_value.hpp"

namespace {

using cxmat::half_format;
using cxmat::widen_half;

static_assert(sizeof(lm_a_f16_stored.blocks[0].w_up) == sizeof(lm_a_f16.blocks[0].w_up) / 2);

constexpr cxmat::matrix<int, 1, 5> tokens{{{1, 5, 9, 2, 30}}};
constexpr cxmat::matrix<int, 1, 4> tokens_b{{{1, 7, 60, 3}}};
static_assert(cxmat::forward(lm_a_f16_stored, tokens) == cxmat::forward(lm_a_f16, tokens));
static_assert(cxmat::forward(lm_b_hf_stored, tokens_b) == cxmat::forward(lm_b_hf, tokens_b));

// Stored value b of weight w is bfloat16's nearest: neither neighbour (the encodings one step
// larger and one step smaller in magnitude, past zero to the other sign) is nearer, and a tie
// goes to the even encoding.
constexpr float distance(float a, float b) { return a > b ? a - b : b - a; }
constexpr bool nearest(float w, std::uint16_t b) {
  const auto sign = static_cast<std::uint16_t>(b & 0x8000U), magnitude = static_cast<std::uint16_t>(b & 0x7FFFU);
  const std::uint16_t larger = static_cast<std::uint16_t>(sign | (magnitude + 1U));
  const std::uint16_t smaller = magnitude > 0 ? static_cast<std::uint16_t>(sign | (magnitude - 1U))
                                              : static_cast<std::uint16_t>((sign ^ 0x8000U) | 1U);
  const float d = distance(widen_half<half_format::bfloat16>(b), w);
  for (const std::uint16_t n : {larger, smaller}) {
    const float dn = distance(widen_half<half_format::bfloat16>(n), w);
    if (dn < d || (dn == d && (b & 1U) != 0)) return false;
  }
  return true;
}
template <class H, class M>
constexpr bool rounded_to_nearest(const H& stored, const M& w) {
  for (std::size_t i = 0; i < M::rows; ++i) {
    for (std::size_t j = 0; j < M::cols; ++j) {
      if (!nearest(w(i, j), stored.bits(i, j))) return false;
    }
  }
  return true;
}
static_assert(rounded_to_nearest(lm_a_hf_bf16.token_embedding, lm_a_hf.token_embedding));
static_assert(rounded_to_nearest(lm_a_hf_bf16.blocks[1].w_down, lm_a_hf.blocks[1].w_down));
static_assert(rounded_to_nearest(lm_a_hf_bf16.output, lm_a_hf.output));

TEST_CASE("16-bit imports compute the float import's logits at run time", "[import][lm][half]") {
  CHECK(cxmat::forward(lm_a_f16_stored, cxmat_test::at_run_time(tokens)) == cxmat::forward(lm_a_f16, tokens));
  CHECK(cxmat::forward(lm_b_hf_stored, cxmat_test::at_run_time(tokens_b)) == cxmat::forward(lm_b_hf, tokens_b));
  constexpr cxmat::matrix<int, 1, 2> prompt{{{1, 5}}};
  CHECK(cxmat::generate<4>(lm_a_hf_bf16, cxmat_test::at_run_time(prompt)) == cxmat::generate<4>(lm_a_hf_bf16, prompt));
}

}  // namespace
