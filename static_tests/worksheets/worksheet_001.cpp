// Worksheet 001: two heads on X (2 x 2), 2 x 2 weights, concatenation, W^O (4 x 2).
// References: static_tests/reference/worksheets.py (float64, exact arithmetic rounded once), and by hand where exact.
#include <cxmat/cxmat.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace ws001 {

using cxmat::matrix;
using m22 = matrix<double, 2, 2>;

using namespace worksheet_data::ws001;

// Projections are exact in binary: checked with ==, values by hand.
constexpr auto Q1 = X * W1q, K1 = X * W1k, V1 = X * W1v;
constexpr auto Q2 = X * W2q, K2 = X * W2k, V2 = X * W2v;
static_assert(Q1 == m22{{{1, 2}, {3, 4}}} && K1 == m22{{{2, 1}, {4, 3}}} && V1 == m22{{{1, -2}, {3, -4}}});
static_assert(Q2 == m22{{{2, 1}, {4, 3}}} && K2 == m22{{{1, 2}, {3, 4}}} && V2 == m22{{{-2, 1}, {-4, 3}}});

// Scores Q·Kᵀ/√2: by hand Q1·K1ᵀ = [[4, 10], [10, 24]].
static_assert(cxmat::transpose(K1) == m22{{{2, 4}, {1, 3}}});
static_assert(Q1 * cxmat::transpose(K1) == m22{{{4, 10}, {10, 24}}});
static_assert(cxmat_test::matches_reference(cxmat::attention_scores(Q1, K1), ref::scores));
static_assert(cxmat_test::matches_reference(cxmat::attention_scores(Q2, K2), ref::scores));

static_assert(cxmat_test::matches_reference(cxmat::attention_weights(Q1, K1), ref::weights));
static_assert(cxmat_test::matches_reference(cxmat::attention_weights(Q2, K2), ref::weights));

constexpr auto head1 = cxmat::scaled_dot_product_attention(Q1, K1, V1);
constexpr auto head2 = cxmat::scaled_dot_product_attention(Q2, K2, V2);
static_assert(cxmat_test::matches_reference(head1, ref::head1));
static_assert(cxmat_test::matches_reference(head2, ref::head2));

// The worksheet's own concatenation example, exact.
static_assert(cxmat::hconcat(m22{{{1, 2}, {3, 4}}}, m22{{{5, 6}, {7, 8}}}) ==
              matrix<double, 2, 4>{{{1, 2, 5, 6}, {3, 4, 7, 8}}});

constexpr auto concat = cxmat::hconcat(head1, head2);
static_assert(std::is_same_v<std::remove_cv_t<decltype(concat)>, matrix<double, 2, 4>>);
static_assert(cxmat_test::matches_reference(concat, ref::concat));

// M = (head1 ⊕ head2)·W^O, computed three ways: by parts, per-head form, block form.
constexpr auto M = concat * Wo;
static_assert(cxmat_test::matches_reference(M, ref::M));

constexpr auto heads = cxmat::make_heads(cxmat::attention_head{W1q, W1k, W1v}, cxmat::attention_head{W2q, W2k, W2v});
static_assert(cxmat::multi_head_attention(X, heads, Wo) == M);

constexpr auto M_block =
    cxmat::multi_head_attention<2>(X, cxmat::hconcat(W1q, W2q), cxmat::hconcat(W1k, W2k), cxmat::hconcat(W1v, W2v), Wo);
static_assert(M_block == M);

}  // namespace ws001
