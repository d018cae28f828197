// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// A language model imported by scripts/cxmat_import.py against the numpy float64 reference
// (make_lm_files.py writes both): the reference's greedy tokens after the prompt, in the compiler
// (LM_CHECK's static_assert) and at run time, and its logits for the whole sequence at run time,
// within a tolerance relative to the largest logit.
#pragma once

#include <cstddef>
#include <cstdio>
#include <type_traits>

#include <cxmat/generation.hpp>

#include "lm_expected.hpp"
#include "test_support/catch.hpp"
#include "test_support/runtime_value.hpp"

namespace lm_check {

template <class Model, class Tokens, class Sequence, class Logits>
void at_run_time(const char* name, const Model& model, const Tokens& tokens, const Sequence& sequence,
                 const Logits& logits) {
  const auto prompt = cxmat_test::at_run_time(lm_expected::prompt);
  const auto generated = cxmat::generate<Tokens::cols>(model, prompt);
  CHECK(generated == tokens);
  const auto got = cxmat::forward(model, cxmat_test::at_run_time(sequence));
  const auto magnitude = [](double x) { return x < 0 ? -x : x; };
  double scale = 1;  // the largest |logit| of the reference, at least 1
  double worst = 0;
  for (std::size_t i = 0; i < Logits::rows; ++i) {
    for (std::size_t j = 0; j < Logits::cols; ++j) {
      scale = magnitude(logits(i, j)) > scale ? magnitude(logits(i, j)) : scale;
      const double d = magnitude(static_cast<double>(got(i, j)) - logits(i, j));
      worst = d > worst ? d : worst;
    }
  }
  constexpr bool is_double = std::is_same_v<typename Model::value_type, double>;
  const double tolerance = is_double ? lm_expected::double_tolerance : lm_expected::float_tolerance;
  std::printf("%s: largest logit error %.3g of the largest |logit| %.3g (tolerance %.0e)\n", name, worst / scale, scale,
              tolerance);
  CHECK(worst <= tolerance * scale);
}

}  // namespace lm_check

// The tokens in the compiler and at run time, and the logits at run time, of an imported model.
#define LM_CHECK(model, reference)                                                                         \
  static_assert(cxmat::generate<lm_expected::reference::tokens.cols>(model, lm_expected::prompt) ==        \
                lm_expected::reference::tokens);                                                           \
  TEST_CASE(#model ": the reference's tokens and logits at run time", "[import][lm]") {                    \
    lm_check::at_run_time(#model, model, lm_expected::reference::tokens, lm_expected::reference::sequence, \
                          lm_expected::reference::logits);                                                 \
  }
