// Exercise 10, solved: an L x S mask.
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

constexpr cxmat::matrix<double, 2, 2> Q{{{1, 0}, {0, 1}}};          // L = 2 queries
constexpr cxmat::matrix<double, 3, 2> K{{{1, 0}, {0, 1}, {1, 1}}};  // S = 3 keys
constexpr cxmat::matrix<double, 3, 2> V{{{1, 0}, {0, 1}, {2, 2}}};  // S = 3 values

// Query 0 may not look at key 2; everything else is allowed (true = may attend).
constexpr cxmat::matrix<bool, 2, 3> allowed{{{true, true, false}, {true, true, true}}};

constexpr auto weights = cxmat::attention_weights(Q, K, cxmat::mask(allowed));
constexpr auto Z = cxmat::scaled_dot_product_attention(Q, K, V, cxmat::mask(allowed));

// ---- The checks. Leave them as they are. ----
static_assert(weights(0, 2) == 0, "query 0 gives key 2 no weight at all");
static_assert(answers::close(weights, answers::ex10::weights), "weights = softmax of the scores, masked entries first set to -inf");
static_assert(answers::close(Z, answers::ex10::Z), "Z = weights.V with the mask");
