// The per-head (Hana) form takes the options of self-attention: masks, causal, score bias,
// scale, query/key/value biases per head, and output_bias with W_o. Checked against the block
// form (tested against the reference in attention_features.cpp) with the same weights cut into column
// blocks, and against hand-computed values.
#include <cxmat/cxmat.hpp>

#include "test_support/rejection.hpp"

namespace {

using cxmat::matrix;

constexpr matrix<double, 3, 4> X{{{1, 0, 2, -1}, {0, 1, -1, 2}, {1, 1, 0, 0.5}}};
constexpr matrix<double, 4, 4> Wq{{{1, 0, 0.5, 0}, {0, 1, 0, -1}, {1, 1, 0, 0}, {0, 0.5, 1, 1}}};
constexpr matrix<double, 4, 4> Wk{{{0, 1, 1, 0}, {1, 0, 0, 1}, {0.5, 0, 1, 0}, {0, 1, 0, 0.5}}};
constexpr matrix<double, 4, 4> Wv{{{1, 2, 0, 1}, {0, 1, 1, 0}, {2, 0, 1, 1}, {1, 1, 0, 2}}};
constexpr matrix<double, 4, 3> Wo{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}};
constexpr auto heads = cxmat::make_heads(
    cxmat::attention_head{cxmat::column_block<0, 2>(Wq), cxmat::column_block<0, 2>(Wk), cxmat::column_block<0, 2>(Wv)},
    cxmat::attention_head{cxmat::column_block<1, 2>(Wq), cxmat::column_block<1, 2>(Wk), cxmat::column_block<1, 2>(Wv)});
constexpr matrix<bool, 3, 3> allowed{{{true, false, true}, {true, true, false}, {false, true, true}}};
constexpr matrix<double, 3, 3> score_bias{{{0.5, 0, -1}, {0, 0.25, 0}, {1, 0, 0}}};
constexpr matrix<double, 1, 2> head_bias{{{0.5, -0.5}}};
constexpr matrix<double, 1, 3> out_bias{{{1, 2, 3}}};

// Every option, with and without W_o: the per-head form equals the block form.
static_assert(cxmat::multi_head_attention(X, heads, cxmat::causal) ==
              cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, cxmat::causal));
static_assert(cxmat::multi_head_attention(X, heads, cxmat::mask(allowed), cxmat::bias(score_bias)) ==
              cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, cxmat::mask(allowed), cxmat::bias(score_bias)));
static_assert(cxmat::multi_head_attention(X, heads, Wo, cxmat::scale(0.25), cxmat::output_bias(out_bias)) ==
              cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, Wo, cxmat::scale(0.25), cxmat::output_bias(out_bias)));
static_assert(cxmat::multi_head_attention(X, heads, Wo, cxmat::causal_lower_right,
                                          cxmat::key_padding(matrix<bool, 1, 3>{{{true, true, false}}})) ==
              cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, Wo, cxmat::causal_lower_right,
                                             cxmat::key_padding(matrix<bool, 1, 3>{{{true, true, false}}})));
// A per-head projection bias is added to each head's projection (both heads here are 2 wide).
static_assert(boost::hana::at_c<1>(cxmat::head_outputs(X, heads, cxmat::value_bias(head_bias))) ==
              cxmat::self_attention(X, cxmat::column_block<1, 2>(Wq), cxmat::column_block<1, 2>(Wk),
                                    cxmat::column_block<1, 2>(Wv), cxmat::value_bias(head_bias)));
// Weights: under the causal mask, token 0 attends to itself only (by hand: weight 1).
constexpr auto causal_weights = cxmat::head_weights(X, heads, cxmat::causal);
static_assert(boost::hana::at_c<0>(causal_weights)(0, 0) == 1.0 && boost::hana::at_c<0>(causal_weights)(0, 1) == 0.0);
static_assert(boost::hana::at_c<1>(causal_weights) ==
              cxmat::multi_head_attention_weights<2>(X, Wq, Wk, cxmat::causal)[1]);

// Rejected with a name: an output bias with no W_o, a mask of the wrong shape.
template <class... A>
constexpr bool per_head_accepts = requires(const A&... a) {
  cxmat::multi_head_attention(a...);
};
using heads_type = std::remove_cvref_t<decltype(heads)>;
CXMAT_ASSERT_REJECTED(!per_head_accepts<decltype(X), heads_type, decltype(cxmat::output_bias(out_bias))>);
CXMAT_ASSERT_REJECTED(!per_head_accepts<decltype(X), heads_type, decltype(cxmat::mask(matrix<bool, 2, 3>{}))>);
static_assert(per_head_accepts<decltype(X), heads_type, decltype(Wo), decltype(cxmat::output_bias(out_bias))>);

}  // namespace
