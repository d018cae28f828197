// Exercise 19: the causal mask of a decoder, by hand.          Check: bash scripts/exercise.sh 19
#include <cstddef>
#include <limits>

#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// The scores Q·Kᵀ/√d_k of n = 4 tokens, already scaled: row i is query i, column j is key j.
constexpr cxmat::matrix<double, 4, 4> S{{{0.5, 1, -0.5, 2}, {1.5, -1, 0.5, 0}, {0, 2, 1, -1.5}, {-0.5, 0.5, 1.5, 1}}};

// Whether the query at position `query` may see the key at position `key`.
// TODO: the causal rule (this one lets every query see every key).
constexpr bool may_see(std::size_t /*query*/, std::size_t /*key*/) { return true; }

// The scores with every score a query may not see hidden.
constexpr cxmat::matrix<double, 4, 4> masked(const cxmat::matrix<double, 4, 4>& s) {
  cxmat::matrix<double, 4, 4> r{};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      r(i, j) = may_see(i, j) ? s(i, j) : -std::numeric_limits<double>::infinity();
    }
  }
  return r;
}

constexpr auto weights = cxmat::softmax_rows(masked(S));

// ---- The checks. Leave them as they are. ----
static_assert(may_see(0, 0) && may_see(2, 2), "the mask: a query sees its own position (the diagonal)");
static_assert(!may_see(0, 1) && !may_see(1, 2) && !may_see(2, 3) && !may_see(0, 3), "the mask: no query sees a later position");
static_assert(may_see(3, 0) && may_see(3, 2) && may_see(2, 0), "the mask: a query sees every earlier position");
constexpr double hidden = -std::numeric_limits<double>::infinity();
static_assert(masked(S)(0, 1) == hidden && masked(S)(1, 3) == hidden && masked(S)(2, 3) == hidden,
              "masked scores: a score the query may not see is -inf (query i, key j > i)");
static_assert(masked(S)(2, 1) == S(2, 1) && masked(S)(3, 3) == S(3, 3) && masked(S)(3, 0) == S(3, 0),
              "masked scores: the scores a query sees are unchanged");
static_assert(answers::close(weights * cxmat::filled<double, 4, 1>(1.0), cxmat::filled<double, 4, 1>(1.0)),
              "weights: each row (one query over its keys) sums to 1");
static_assert(weights(0, 0) == 1 && weights(1, 2) == 0 && weights(2, 3) == 0, "weights: a hidden key gets the weight 0");
static_assert(answers::close(weights, answers::ex19::weights), "weights: the softmax of each row over the keys it sees");
