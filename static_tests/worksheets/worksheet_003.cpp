// Worksheet 003, parts 3, 4 and 5: a 2 x 2 single-head forward pass, the block-matrix view of
// multi-head attention, and a two-head forward pass from given Q/K/V and head outputs.
// (Part 1, the shapes of batched attention, is answered by types in static_tests/core/.)
// Exact arithmetic is checked with ==, by hand; the rest against float64 references within 1e-9.
#include <type_traits>

#include <cxmat/cxmat.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace ws003 {

using cxmat::matrix;
using cxmat_test::matches_printed;
using cxmat_test::matches_reference;
using m22 = matrix<double, 2, 2>;
using m24 = matrix<double, 2, 4>;

namespace part3 {
using worksheet_data::ws003::X, worksheet_data::ws003::Wq, worksheet_data::ws003::Wk, worksheet_data::ws003::Wv,
    worksheet_data::ws003::Wo;
namespace ref = worksheet_data::ws003::ref;

// (a) By hand: Q = [[4, 0], [1, 1]], K = [[3, 1], [1, 3]], V = [[2, 0], [0, 2]].
constexpr auto Q = X * Wq, K = X * Wk, V = X * Wv;
static_assert(Q == m22{{{4, 0}, {1, 1}}} && K == m22{{{3, 1}, {1, 3}}} && V == m22{{{2, 0}, {0, 2}}});

// The weights the worksheet states, [[1.00, 0.00], [0.50, 0.50]], to its two decimals.
constexpr auto A = cxmat::attention_weights(Q, K);
static_assert(matches_printed(A, m22{{{1.00, 0.00}, {0.50, 0.50}}}, 0.005));
static_assert(matches_reference(A, ref::weights));

// (b) With the given weights: H = A·V = [[2, 0], [1, 1]], Y = H·W^(o) = [[4, 0], [2, 1]] (by hand).
constexpr m22 A_given{{{1.0, 0.0}, {0.5, 0.5}}};
static_assert(A_given * V == m22{{{2, 0}, {1, 1}}});
static_assert(A_given * V * Wo == m22{{{4, 0}, {2, 1}}});
// With the exact weights, the full forward pass Y = Attention(Q, K, V)·W^(o).
constexpr auto Y = cxmat::self_attention(X, Wq, Wk, Wv) * Wo;
static_assert(matches_reference(Y, ref::Y));
static_assert(matches_printed(Y, m22{{{4, 0}, {2, 1}}}, 0.015));  // the approximation the worksheet intends
}  // namespace part3

namespace part4 {
// Q = X·[W0 | W1] split into column blocks equals [X·W0 | X·W1], bit for bit, because every
// element is the same sum in the same order. Data: worksheet 004's X and W^Q (d = 6, H = 3).
using worksheet_data::ws004::X;
constexpr auto W = worksheet_data::ws004::Wq;
constexpr auto blocks = cxmat::split_columns<3>(W);
constexpr auto Q = X * W;
static_assert(cxmat::column_block<0, 3>(Q) == X * blocks[0]);
static_assert(cxmat::column_block<1, 3>(Q) == X * blocks[1]);
static_assert(cxmat::column_block<2, 3>(Q) == X * blocks[2]);
static_assert(cxmat::hconcat(X * blocks[0], X* blocks[1], X* blocks[2]) == Q);

// (b) The same holds for K and V, so chunking after one large projection is the per-head form:
// block-form multi-head attention equals the per-head form with W_h = column block h.
constexpr auto Wk = cxmat::transpose(W), Wv = W * W;
constexpr auto kb = cxmat::split_columns<3>(Wk);
constexpr auto vb = cxmat::split_columns<3>(Wv);
constexpr auto heads =
    cxmat::make_heads(cxmat::attention_head{blocks[0], kb[0], vb[0]}, cxmat::attention_head{blocks[1], kb[1], vb[1]},
                      cxmat::attention_head{blocks[2], kb[2], vb[2]});
static_assert(cxmat::multi_head_attention<3>(X, W, Wk, Wv) == cxmat::multi_head_attention(X, heads));
}  // namespace part4

namespace part5 {
using worksheet_data::ws003::Q, worksheet_data::ws003::K, worksheet_data::ws003::V;
namespace ref = worksheet_data::ws003::ref;

// (a) Split along the feature dimension, by hand.
constexpr auto q = cxmat::split_columns<2>(Q);
constexpr auto k = cxmat::split_columns<2>(K);
constexpr auto v = cxmat::split_columns<2>(V);
static_assert(std::is_same_v<std::remove_cvref_t<decltype(q[0])>, m22>);
static_assert(q[0] == m22{{{1, 2}, {5, 6}}} && q[1] == m22{{{3, 4}, {7, 8}}});
static_assert(k[0] == m22{{{2, 0}, {1, 3}}} && k[1] == m22{{{1, 1}, {0, 2}}});
static_assert(v[0] == m22{{{1, 0}, {3, 1}}} && v[1] == m22{{{2, 1}, {0, 2}}});
static_assert(cxmat::column_block<1, 2>(Q) == q[1]);

// The heads these give, and the multi-head output from the projections.
static_assert(matches_reference(cxmat::attention_weights(q[0], k[0]), ref::head0_weights));
static_assert(matches_reference(cxmat::attention_weights(q[1], k[1]), ref::head1_weights));
static_assert(matches_reference(cxmat::multi_head_attention_qkv<2>(Q, K, V), ref::mha_concat));

// (b) H = Concat[H0, H1] and Y = H·W^(o), exact, by hand.
constexpr m22 H0{{{1, 0}, {0, 1}}}, H1{{{2, 1}, {1, 2}}};
constexpr matrix<double, 4, 4> Wo{{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}}};
constexpr auto H = cxmat::hconcat(H0, H1);
static_assert(H == m24{{{1, 0, 2, 1}, {0, 1, 1, 2}}});
static_assert(H * Wo == m24{{{3, 1, 2, 2}, {1, 3, 2, 2}}});
}  // namespace part5

}  // namespace ws003
