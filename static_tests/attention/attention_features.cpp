// Masks, causal attention, score bias and scale, projection biases, grouped-query and
// cross-attention, weights out — at compile time. Hand-checkable cases are checked exactly;
// the others against float64 references (static_tests/reference/attention_features.py) within 1e-9.
#include <type_traits>

#include <limits>

#include <cxmat/cxmat.hpp>

#include "test_support/checks.hpp"
#include "test_support/rejection.hpp"

namespace attention_features {

using cxmat::matrix;
using cxmat_test::matches_reference;
using m22 = matrix<double, 2, 2>;
using m32 = matrix<double, 3, 2>;
using m33 = matrix<double, 3, 3>;
using b33 = matrix<bool, 3, 3>;

// ---- Causal, 3 tokens: with all-zero scores the weights are running averages (by hand).
constexpr m32 zeros{};
constexpr m32 V{{{1, 2}, {3, 4}, {5, 6}}};
static_assert(cxmat::attention_weights(zeros, zeros, cxmat::causal) ==
              m33{{{1, 0, 0}, {0.5, 0.5, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}}});
static_assert(cxmat_test::matches_reference(cxmat::scaled_dot_product_attention(zeros, zeros, V, cxmat::causal),
                                            m32{{{1, 2}, {2, 3}, {3, 4}}}));

// A causal case with real scores, against the reference.
constexpr m32 Q{{{1, 0}, {0, 1}, {1, 1}}};
constexpr m32 K{{{1, 0}, {0, 1}, {1, -1}}};
static_assert(matches_reference(cxmat::attention_weights(Q, K, cxmat::causal),
                                m33{{{1.0, 0.0, 0.0},
                                     {0.3302384506733431, 0.6697615493266569, 0.0},
                                     {0.4011120926797859, 0.4011120926797859, 0.1977758146404282}}}));
static_assert(matches_reference(
    cxmat::scaled_dot_product_attention(Q, K, V, cxmat::causal),
    m32{{{1.0, 2.0}, {2.3395230986533138, 3.3395230986533138}, {2.593327443921285, 3.5933274439212846}}}));

// The causal option equals the explicit lower-triangular boolean mask (true = may attend).
constexpr b33 lower{{{true, false, false}, {true, true, false}, {true, true, true}}};
static_assert(cxmat::scaled_dot_product_attention(Q, K, V, cxmat::causal) ==
              cxmat::scaled_dot_product_attention(Q, K, V, cxmat::mask(lower)));
// A mask of all true is no mask.
static_assert(cxmat::scaled_dot_product_attention(Q, K, V, cxmat::mask(cxmat::filled<bool, 3, 3>(true))) ==
              cxmat::scaled_dot_product_attention(Q, K, V));

// Lower-right alignment: one new query attending to a cache of 3 keys sees all of them; with
// L = 2, S = 3 the first query sees keys 0..1 and the second all three.
constexpr matrix<double, 1, 2> one_query{{{1, 1}}};
static_assert(cxmat::scaled_dot_product_attention(one_query, K, V, cxmat::causal_lower_right) ==
              cxmat::scaled_dot_product_attention(one_query, K, V));
constexpr matrix<double, 2, 2> two_queries{{{0, 0}, {0, 0}}};
static_assert(cxmat::attention_weights(two_queries, K, cxmat::causal_lower_right) ==
              matrix<double, 2, 3>{{{0.5, 0.5, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}}});
// ... and upper-left alignment with L = 2 < S = 3: query i sees keys 0..i.
static_assert(cxmat::attention_weights(two_queries, K, cxmat::causal) ==
              matrix<double, 2, 3>{{{1, 0, 0}, {0.5, 0.5, 0}}});

// ---- Key padding: masking key 2 equals removing it (bit for bit: a zero weight adds +0).
constexpr matrix<bool, 1, 3> keep_first_two{{{true, true, false}}};
static_assert(cxmat::scaled_dot_product_attention(Q, K, V, cxmat::key_padding(keep_first_two)) ==
              cxmat::scaled_dot_product_attention(Q, cxmat::select_rows<0, 1>(K), cxmat::select_rows<0, 1>(V)));

// ---- A fully masked row attends to nothing: zero weights and a zero output row, never NaN.
constexpr b33 second_row_blind{{{true, true, true}, {false, false, false}, {true, false, true}}};
constexpr auto blind = cxmat::scaled_dot_product_attention(Q, K, V, cxmat::mask(second_row_blind));
static_assert(blind(1, 0) == 0.0 && blind(1, 1) == 0.0);
static_assert(cxmat::attention_weights(Q, K, cxmat::mask(second_row_blind))(1, 2) == 0.0);
// Masks combine: causal plus a padding of key 0 leaves query 0 no key at all (zero row),
// query 1 only key 1, and query 2 keys 1 and 2 (as if key 0 were removed).
constexpr matrix<bool, 1, 3> drop_key0{{{false, true, true}}};
constexpr auto combined = cxmat::attention_weights(Q, K, cxmat::causal, cxmat::key_padding(drop_key0));
constexpr auto last_row = cxmat::attention_weights(cxmat::select_rows<2>(Q), cxmat::select_rows<1, 2>(K));
static_assert(combined == m33{{{0, 0, 0}, {0, 1, 0}, {0, last_row(0, 0), last_row(0, 1)}}});

// ---- Score bias and explicit scale.
constexpr m33 b{{{0, -1, 2}, {0.5, 0, 0}, {-3, 1, 0}}};
static_assert(cxmat::attention_weights(Q, K, cxmat::bias(b)) == cxmat::softmax_rows(cxmat::attention_scores(Q, K) + b));
// With d_k = 4, √d_k = 2 is exact, so scale(0.5) (multiply) equals the default (divide).
constexpr matrix<double, 2, 4> q4{{{1, 2, 3, 4}, {0.5, -1, 0, 2}}};
static_assert(cxmat::attention_scores(q4, q4, cxmat::scale(0.5)) == cxmat::attention_scores(q4, q4));
static_assert(cxmat::attention_scores(q4, q4, cxmat::scale(1.0)) == q4 * cxmat::transpose(q4));

// ---- Projection biases: X·W + b on each row, then the same attention.
constexpr matrix<double, 2, 3> X{{{1, 0, 2}, {0, 1, -1}}};
constexpr matrix<double, 3, 2> Wq{{{1, 0}, {0, 1}, {1, 1}}}, Wk{{{0, 1}, {1, 0}, {1, -1}}},
    Wv{{{1, 2}, {3, 4}, {5, 6}}};
constexpr matrix<double, 1, 2> bq{{{0.5, -1}}}, bk{{{1, 0}}}, bv{{{-2, 2}}};
constexpr matrix<double, 2, 1> ones{{{1}, {1}}};
static_assert(cxmat::self_attention(X, Wq, Wk, Wv, cxmat::query_bias(bq), cxmat::key_bias(bk), cxmat::value_bias(bv)) ==
              cxmat::scaled_dot_product_attention(X * Wq + ones * bq, X* Wk + ones * bk, X* Wv + ones * bv));
constexpr matrix<double, 2, 3> Wo{{{1, 0, 1}, {0, 1, 1}}};
constexpr matrix<double, 1, 3> bo{{{1, 2, 3}}};
static_assert(cxmat::multi_head_attention<1>(X, Wq, Wk, Wv, Wo, cxmat::output_bias(bo)) ==
              cxmat::multi_head_attention<1>(X, Wq, Wk, Wv, Wo) + ones * bo);

// ---- Grouped-query cross-attention: L = 2 queries (width 3), S = 3 keys (width 2),
// H = 4 query heads sharing H_kv = 2 key/value heads (d_k = d_v = 1), W_o 4 x 3.
constexpr matrix<double, 2, 3> Xq{{{1, 0, 2}, {0, 1, -1}}};
constexpr matrix<double, 3, 2> Xkv{{{1, 1}, {2, -1}, {0, 3}}};
constexpr matrix<double, 3, 4> Gq{{{1, 0, 2, -1}, {0, 1, 1, 0}, {1, 1, 0, 1}}};
constexpr m22 Gk{{{1, 0}, {0, 1}}}, Gv{{{1, 2}, {-1, 1}}};
constexpr matrix<double, 4, 3> Go{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}};
constexpr auto gqa = cxmat::grouped_query_attention_with_weights<4, 2>(Xq, Xkv, Gq, Gk, Gv, Go);
static_assert(std::is_same_v<std::remove_cv_t<decltype(gqa.weights)>, cxmat::batch<double, 4, 2, 3>>);
static_assert(matches_reference(cxmat::grouped_query_attention<4, 2>(Xq, Xkv, Gq, Gk, Gv),
                                matrix<double, 2, 4>{{{2.8439237358497484, 2.5528112766626045, 3.0000000000000004, 3.0},
                                                      {-1.7256311478133242, 0.0, 3.0, 3.0}}}));
static_assert(matches_reference(gqa.output, matrix<double, 2, 3>{{{5.8439237358497484, 5.552811276662604, 6.0},
                                                                  {1.2743688521866758, 3.0, 6.0}}}));
static_assert(matches_reference(gqa.weights[1],
                                matrix<double, 2, 3>{{{0.11731042782619835, 0.8668133321973349, 0.015876239976466765},
                                                      {0.3333333333333333, 0.3333333333333333, 0.3333333333333333}}}));
// GQA equals multi-head attention with each key/value head repeated for its query heads.
constexpr auto Gk_repeated = cxmat::hconcat(cxmat::column_block<0, 2>(Gk), cxmat::column_block<0, 2>(Gk),
                                            cxmat::column_block<1, 2>(Gk), cxmat::column_block<1, 2>(Gk));
constexpr auto Gv_repeated = cxmat::hconcat(cxmat::column_block<0, 2>(Gv), cxmat::column_block<0, 2>(Gv),
                                            cxmat::column_block<1, 2>(Gv), cxmat::column_block<1, 2>(Gv));
static_assert(cxmat::cross_attention<4>(Xq, Xkv, Gq, Gk_repeated, Gv_repeated, Go) == gqa.output);
// Multi-query attention (H_kv = 1) is GQA with one key/value head.
constexpr matrix<double, 2, 1> Mk{{{1}, {-1}}}, Mv{{{2}, {1}}};
static_assert(cxmat::grouped_query_attention<4, 1>(Xq, Xkv, Gq, Mk, Mv) ==
              cxmat::cross_attention<4>(Xq, Xkv, Gq, cxmat::hconcat(Mk, Mk, Mk, Mk), cxmat::hconcat(Mv, Mv, Mv, Mv),
                                        cxmat::identity<double, 4>()));
// Averaged weights over heads, as PyTorch's average_attn_weights.
static_assert(cxmat::mean(gqa.weights) == (gqa.weights[0] + gqa.weights[1] + gqa.weights[2] + gqa.weights[3]) / 4.0);

// ---- Batches (B x L x d, batch first): options apply to every item; a batch key-padding mask
// gives each item its own padding, so sequences of different lengths share one batch.
constexpr cxmat::batch<double, 2, 3, 2> Qb{{Q, K}}, Kb{{K, Q}}, Vb{{V, V}};
constexpr matrix<bool, 2, 3> keep_per_item{{{true, true, false}, {true, true, true}}};
constexpr auto batched =
    cxmat::scaled_dot_product_attention(Qb, Kb, Vb, cxmat::causal, cxmat::batch_key_padding(keep_per_item));
static_assert(std::is_same_v<std::remove_cv_t<decltype(batched)>, cxmat::batch<double, 2, 3, 2>>);
static_assert(batched[0] ==
              cxmat::scaled_dot_product_attention(Q, K, V, cxmat::causal,
                                                  cxmat::key_padding(matrix<bool, 1, 3>{{{true, true, false}}})));
static_assert(batched[1] == cxmat::scaled_dot_product_attention(K, Q, V, cxmat::causal));
// The padding's B must be the batch's B.
template <class... A>
constexpr bool batched_sdpa_accepts = requires(const A&... a) {
  cxmat::scaled_dot_product_attention(a...);
};
CXMAT_ASSERT_REJECTED(!batched_sdpa_accepts<decltype(Qb), decltype(Kb), decltype(Vb),
                                            decltype(cxmat::batch_key_padding(matrix<bool, 3, 3>{}))>);

// Every batched form takes per-item key padding: item b equals the unbatched call with row b.
constexpr matrix<double, 3, 2> W32{{{1, 0}, {0, 1}, {1, -1}}};
constexpr matrix<double, 2, 2> Wmh{{{0.5, -1}, {1, 0.25}}};
constexpr cxmat::batch<double, 2, 3, 3> Xb{{matrix<double, 3, 3>{{{1, 0, 2}, {0, 1, -1}, {2, 2, 0}}},
                                            matrix<double, 3, 3>{{{0, 1, 1}, {1, -2, 0}, {0.5, 0, 1}}}}};
constexpr auto keep_row = [](std::size_t item) {
  return cxmat::key_padding(
      matrix<bool, 1, 3>{{{keep_per_item(item, 0), keep_per_item(item, 1), keep_per_item(item, 2)}}});
};
constexpr auto mha_b = cxmat::multi_head_attention<2>(Xb, W32, W32, W32, Wmh, cxmat::batch_key_padding(keep_per_item));
static_assert(mha_b[0] == cxmat::multi_head_attention<2>(Xb[0], W32, W32, W32, Wmh, keep_row(0)));
static_assert(mha_b[1] == cxmat::multi_head_attention<2>(Xb[1], W32, W32, W32, Wmh, keep_row(1)));
static_assert(!(mha_b[0] == cxmat::multi_head_attention<2>(Xb[0], W32, W32, W32, Wmh)));  // the padding acts
constexpr auto gqa_b = cxmat::grouped_query_attention<4, 2>(cxmat::batch<double, 2, 2, 3>{{Xq, Xq}},
                                                            cxmat::batch<double, 2, 3, 2>{{Xkv, Xkv}}, Gq, Gk, Gv, Go,
                                                            cxmat::batch_key_padding(keep_per_item));
static_assert(gqa_b[0] == cxmat::grouped_query_attention<4, 2>(Xq, Xkv, Gq, Gk, Gv, Go, keep_row(0)));
static_assert(gqa_b[1] == gqa.output);  // row 1 keeps every key
constexpr auto cross_b =
    cxmat::cross_attention<4>(cxmat::batch<double, 2, 2, 3>{{Xq, Xq}}, cxmat::batch<double, 2, 3, 2>{{Xkv, Xkv}}, Gq,
                              Gk_repeated, Gv_repeated, Go);
static_assert(cross_b[0] == gqa.output && cross_b[1] == gqa.output);

// ---- The compile-time contract for values (docs/numerics.md): a score bias may hold -inf (a
// float mask: weight exactly 0), and inputs as large as 1e100 pass the overflow bound. Non-finite
// inputs and overflowing products are compile errors (static_tests/compile_fail/33, 34).
constexpr double minus_inf = -std::numeric_limits<double>::infinity();
constexpr auto float_mask = cxmat::bias(matrix<double, 2, 2>{{{0, minus_inf}, {0, 0}}});
constexpr auto w_float_mask = cxmat::attention_weights(matrix<double, 2, 2>{{{1, 0}, {0, 1}}},
                                                       matrix<double, 2, 2>{{{1, 0}, {0, 1}}}, float_mask);
static_assert(w_float_mask(0, 0) == 1.0 && w_float_mask(0, 1) == 0.0);
static_assert(w_float_mask(1, 0) == cxmat::attention_weights(matrix<double, 2, 2>{{{1, 0}, {0, 1}}},
                                                             matrix<double, 2, 2>{{{1, 0}, {0, 1}}})(1, 0));
constexpr matrix<double, 1, 2> huge_q{{{1e100, -1e100}}};
static_assert(cxmat::attention_weights(huge_q, huge_q)(0, 0) == 1.0);  // one key: weight 1

// ---- Rejected: each option's shape is checked in its type. (Variable templates make the
// requires-expressions dependent, so a rejected call is a false value on every compiler.)
template <class... A>
constexpr bool sdpa_accepts = requires(const A&... a) {
  cxmat::scaled_dot_product_attention(a...);
};
template <std::size_t H, std::size_t Hkv, class... A>
constexpr bool gqa_accepts = requires(const A&... a) {
  cxmat::grouped_query_attention<H, Hkv>(a...);
};

using q2 = matrix<double, 2, 2>;
using mask_2x3 = decltype(cxmat::mask(matrix<bool, 2, 3>{}));
using mask_3x2 = decltype(cxmat::mask(matrix<bool, 3, 2>{}));  // transposed: S x L instead of L x S
static_assert(sdpa_accepts<q2, m32, m32, mask_2x3>);
CXMAT_ASSERT_REJECTED(!sdpa_accepts<q2, m32, m32, mask_3x2>);
CXMAT_ASSERT_REJECTED(!sdpa_accepts<q2, m32, m32, decltype(cxmat::key_padding(matrix<bool, 1, 2>{}))>);
CXMAT_ASSERT_REJECTED(!sdpa_accepts<q2, m32, m32, decltype(cxmat::bias(matrix<double, 3, 2>{}))>);
CXMAT_ASSERT_REJECTED(!sdpa_accepts<q2, m32, m32, decltype(cxmat::bias(matrix<float, 2, 3>{}))>);
CXMAT_ASSERT_REJECTED(!sdpa_accepts<q2, m32, m32, cxmat::score_scale<double>, cxmat::score_scale<double>>);
CXMAT_ASSERT_REJECTED(
    !sdpa_accepts<q2, m32, m32, decltype(cxmat::query_bias(matrix<double, 1, 2>{}))>);  // no projection here
// H_kv must divide H; projection widths must divide into their heads.
using m23 = matrix<double, 2, 3>;
static_assert(gqa_accepts<4, 2, decltype(Xq), decltype(Xkv), decltype(Gq), decltype(Gk), decltype(Gv)>);
CXMAT_ASSERT_REJECTED(!gqa_accepts<4, 3, decltype(Xq), decltype(Xkv), decltype(Gq), m23, m23>);
CXMAT_ASSERT_REJECTED(!gqa_accepts<3, 3, decltype(Xq), decltype(Xkv), decltype(Gq), m23, m23>);
// X_kv's width must match W_k's rows (kdim).
CXMAT_ASSERT_REJECTED(!gqa_accepts<4, 2, decltype(Xq), decltype(Xkv), decltype(Gq), m32, decltype(Gv)>);

}  // namespace attention_features
