// Exercise 12: cross-attention.          Check: bash scripts/exercise.sh 12
#include <cxmat/cxmat.hpp>

#include "answers.hpp"

CXMAT_DIM(L, 2);     // decoder tokens: the queries
CXMAT_DIM(S, 3);     // encoder tokens: the keys and values
CXMAT_DIM(d_q, 2);   // width of a decoder token
CXMAT_DIM(d_kv, 4);  // width of an encoder token
CXMAT_DIM(d_k, 2);   // width of queries and keys
CXMAT_DIM(d_v, 2);   // width of values

constexpr cxmat::matrix<double, L, d_q> Xq{{{1, 0}, {0, 1}}};
constexpr cxmat::matrix<double, S, d_kv> Xkv{{{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}};
constexpr cxmat::matrix<double, d_q, d_k> Wq{{{1, 0}, {0, 1}}};
constexpr cxmat::matrix<double, d_kv, d_k> Wk{{{0, 0.5}, {0.5, 0}, {0, 0.5}, {1, 0}}};
constexpr cxmat::matrix<double, d_kv, d_v> Wv{{{1, 0}, {0, 1}, {1, 0}, {0, 1}}};

// TODO: queries from the decoder (Xq); keys and values from the encoder (Xkv).
constexpr auto Q = Xq * Wq;
constexpr auto K = Xq * Wk;
constexpr auto V = Xkv * Wv;

constexpr auto weights = cxmat::attention_weights(Q, K);
constexpr auto Z = cxmat::scaled_dot_product_attention(Q, K, V);

// ---- The checks. Leave them as they are. ----
static_assert(cxmat::shape_text(weights) == "2 x 3 (L x S)", "weights is L x S: one row per query, one column per key");
static_assert(cxmat::shape_text(Z) == "2 x 2 (L x d_v)", "Z is L x d_v: one output per query");
static_assert(answers::close(weights, answers::ex12::weights), "weights = softmax(Q.K^T / sqrt(d_k))");
static_assert(answers::close(Z, answers::ex12::Z), "Z = weights.V");
