// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// int8 language models from the importer (--module llama --type q8): weights quantized in groups
// by the importer equal, bit for bit, what cxmat::quantize_groups computes from the float import
// in the compiler; a llama2.c version-2 checkpoint keeps its own int8 groups, whose products
// q · s are the float import's weights; and both generate.
#include <cstddef>

#include <cxmat/generation.hpp>

#include "lm_a_groups12.hpp"
#include "lm_a_groups8.hpp"
#include "lm_a_v0.hpp"
#include "lm_a_v2.hpp"
#include "lm_a_v2_groups.hpp"
#include "test_support/catch.hpp"
#include "test_support/runtime_value.hpp"

namespace {

template <class G, class Q>
constexpr bool same_groups(const G& imported, const Q& computed) {
  for (std::size_t o = 0; o < decltype(G::values)::rows; ++o) {
    for (std::size_t k = 0; k < decltype(G::values)::cols; ++k) {
      if (imported.values(o, k) != computed.values(o, k)) return false;
    }
    for (std::size_t g = 0; g < decltype(G::scales)::cols; ++g) {
      if (imported.scales(o, g) != computed.scales(o, g)) return false;
    }
  }
  return true;
}

constexpr auto by_the_compiler = cxmat::quantize_groups<8>(lm_a_v0);
template <class Imported, class Computed>
constexpr bool importer_quantizes_as_the_library(const Imported& imported, const Computed& computed) {
  bool same =
      same_groups(imported.token_embedding, computed.token_embedding) && same_groups(imported.output, computed.output);
  for (std::size_t l = 0; l < 2; ++l) {
    const auto& a = imported.blocks[l];
    const auto& b = computed.blocks[l];
    same = same && same_groups(a.w_q, b.w_q) && same_groups(a.w_k, b.w_k) && same_groups(a.w_v, b.w_v) &&
           same_groups(a.w_o, b.w_o) && same_groups(a.w_gate, b.w_gate) && same_groups(a.w_up, b.w_up) &&
           same_groups(a.w_down, b.w_down);
  }
  return same;
}
static_assert(importer_quantizes_as_the_library(lm_a_groups8, by_the_compiler));
// Groups of 12, which divide neither d_model (32) nor d_ff (64): each row's last group the rest.
static_assert(decltype(lm_a_groups12.blocks[0].w_q)::groups == 3);
static_assert(importer_quantizes_as_the_library(lm_a_groups12, cxmat::quantize_groups<12>(lm_a_v0)));

// A d_in x d_out float weight against int8 groups stored out x in: w(k, o) = q(o, k) · s(o, k / G).
template <class G, class W>
constexpr bool products_are_the_weights(const G& groups, const W& w) {
  constexpr std::size_t size = G::group_size;
  for (std::size_t o = 0; o < W::cols; ++o) {
    for (std::size_t k = 0; k < W::rows; ++k) {
      if (static_cast<float>(groups.values(o, k)) * groups.scales(o, k / size) != w(k, o)) return false;
    }
  }
  return true;
}
static_assert(decltype(lm_a_v2_groups.blocks[0].w_q)::group_size == 32);  // the file's group size
static_assert(products_are_the_weights(lm_a_v2_groups.blocks[0].w_q, lm_a_v2.blocks[0].w_q));
static_assert(products_are_the_weights(lm_a_v2_groups.blocks[1].w_down, lm_a_v2.blocks[1].w_down));

constexpr cxmat::matrix<int, 1, 2> prompt{{{1, 5}}};
constexpr auto tokens = cxmat::generate<4>(lm_a_v2_groups, prompt);

TEST_CASE("int8 imports generate the same tokens at compile time and at run time", "[import][lm][q8]") {
  CHECK(cxmat::generate<4>(lm_a_v2_groups, cxmat_test::at_run_time(prompt)) == tokens);
  CHECK(cxmat::generate<4>(lm_a_groups8, cxmat_test::at_run_time(prompt)) ==
        cxmat::generate<4>(by_the_compiler, prompt));
}

}  // namespace
