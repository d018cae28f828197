// Exercise 13: grouped-query attention.          Check: bash scripts/exercise.sh 13
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

// n = 2 tokens, d_model = 4; every head has width d_k = d_v = 1.
constexpr cxmat::matrix<double, 2, 4> X{{{1, 0, 1, 0}, {0, 1, 0, 1}}};
// 4 query heads: column h of Wq is query head h.
constexpr cxmat::matrix<double, 4, 4> Wq{{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}}};
// 2 key/value heads: column g of Wk and of Wv is key/value head g.
constexpr cxmat::matrix<double, 4, 2> Wk{{{1, 0}, {0, 1}, {1, 1}, {0, 1}}};
constexpr cxmat::matrix<double, 4, 2> Wv{{{0.5, 1}, {1.5, 2}, {2.5, 3}, {3.5, 4}}};

// TODO: 4 query heads sharing 2 key/value heads.
constexpr auto Z = cxmat::grouped_query_attention<4>(X, X, Wq, Wk, Wv);

// ---- The checks. Leave them as they are. ----
static_assert(Z.rows == 2 && Z.cols == 4, "Z is n x (H*d_v) = 2 x 4: the 4 query heads side by side");
static_assert(answers::close(Z, answers::ex13::Z), "query heads 0, 1 read key/value head 0; heads 2, 3 read head 1");
