// Worksheet 000 (solved step by step in worksheet 002): two heads on X (2 x 4), per-head
// W^Q/W^K/W^V (4 x 3), concatenation, W_o (6 x 4). Every part, (a) to (d), answered by the
// compiler. References: the digits worksheet 002 printed, and float64 references
// (static_tests/reference/worksheets.py) within 1e-9 relative.
#include <type_traits>

#include <cxmat/cxmat.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace ws000 {

using cxmat::matrix;
using cxmat_test::matches_printed;
using cxmat_test::matches_reference;

using namespace worksheet_data::ws000;

// (a) Q_i, K_i, V_i = X·W_i: 2 x 3 each.
constexpr auto Q0 = X * W0q, K0 = X * W0k, V0 = X * W0v;
constexpr auto Q1 = X * W1q, K1 = X * W1k, V1 = X * W1v;
static_assert(std::is_same_v<std::remove_cv_t<decltype(Q0)>, matrix<double, 2, 3>>);

using m23 = matrix<double, 2, 3>;
// As worksheet 002 printed them (exact to the printed digit).
static_assert(matches_printed(Q0, m23{{{7, 8, 9}, {15.8, 18.4, 21}}}, 1e-12));
static_assert(matches_printed(K0, m23{{{9, 8, 7}, {21, 18.4, 15.8}}}, 1e-12));
static_assert(matches_printed(V0, m23{{{7, 8, 9}, {17, 19.6, 22.2}}}, 1e-12));
static_assert(matches_printed(Q1, m23{{{8, 9, 10}, {18.4, 21, 23.6}}}, 1e-12));
static_assert(matches_printed(K1, m23{{{10, 9, 8}, {23.6, 21, 18.4}}}, 1e-12));
static_assert(matches_printed(V1, m23{{{8.6, 9.6, 10.6}, {21.4, 24, 26.6}}}, 1e-12));
// float64 references (exact arithmetic, rounded once).
static_assert(matches_reference(Q0, ref::Q0));
static_assert(matches_reference(K0, ref::K0));
static_assert(matches_reference(V0, ref::V0));
static_assert(matches_reference(Q1, ref::Q1));
static_assert(matches_reference(K1, ref::K1));
static_assert(matches_reference(V1, ref::V1));

// (b) scores Q_i·K_iᵀ/√3, weights, Z_i.
using m22 = matrix<double, 2, 2>;
constexpr auto S0 = cxmat::attention_scores(Q0, K0);
constexpr auto S1 = cxmat::attention_scores(Q1, K1);
static_assert(matches_printed(S0, m22{{{109.69655115, 251.95565747}, {251.95565747, 578.59734577}}}, 0.5e-8));
static_assert(matches_printed(S1, m22{{{139.14141487, 324.35538123}, {324.35538123, 756.0286305}}}, 0.5e-8));
static_assert(matches_reference(S0, ref::scores0));
static_assert(matches_reference(S1, ref::scores1));
// The scores are Q·Kᵀ divided by √d_k, d_k = 3 taken from the type.
static_assert(matches_reference(S0, (Q0 * cxmat::transpose(K0)) / cxmat::sqrt(3.0)));

// A plain softmax would compute exp(756.03), which overflows a double; the stable one does not.
constexpr auto A0 = cxmat::attention_weights(Q0, K0);
constexpr auto A1 = cxmat::attention_weights(Q1, K1);
static_assert(matches_printed(A0, m22{{{0, 1}, {0, 1}}}, 0.0005));
static_assert(matches_printed(A1, m22{{{0, 1}, {0, 1}}}, 0.0005));
static_assert(matches_reference(A0, ref::weights0));
static_assert(matches_reference(A1, ref::weights1));
static_assert(A0 == cxmat::softmax_rows(S0));

constexpr auto Z0 = cxmat::scaled_dot_product_attention(Q0, K0, V0);
constexpr auto Z1 = cxmat::scaled_dot_product_attention(Q1, K1, V1);
static_assert(matches_printed(Z0, m23{{{17, 19.6, 22.2}, {17, 19.6, 22.2}}}, 0.05));
static_assert(matches_printed(Z1, m23{{{21.4, 24, 26.6}, {21.4, 24, 26.6}}}, 0.05));
static_assert(matches_reference(Z0, ref::Z0));
static_assert(matches_reference(Z1, ref::Z1));
static_assert(Z0 == cxmat::self_attention(X, W0q, W0k, W0v));

// (c) Z = Z_0 ⊕ Z_1: 2 x 6.
constexpr auto Z = cxmat::hconcat(Z0, Z1);
static_assert(std::is_same_v<std::remove_cv_t<decltype(Z)>, matrix<double, 2, 6>>);
static_assert(matches_reference(Z, ref::Z));

// (d) Z·W_o: 2 x 4, passed on to the FFN.
using m24 = matrix<double, 2, 4>;
constexpr auto out = Z * Wo;
static_assert(std::is_same_v<std::remove_cv_t<decltype(out)>, m24>);
static_assert(matches_printed(out, m24{{{155.96, 169.04, 182.12, 195.2}, {155.96, 169.04, 182.12, 195.2}}}, 0.005));
static_assert(matches_reference(out, ref::output));

// The same layer in one call, per-head form (heads as a Hana tuple) and block form.
constexpr auto heads = cxmat::make_heads(cxmat::attention_head{W0q, W0k, W0v}, cxmat::attention_head{W1q, W1k, W1v});
static_assert(cxmat::multi_head_attention(X, heads, Wo) == out);
static_assert(cxmat::multi_head_attention(X, heads) == Z);
constexpr auto block_out =
    cxmat::multi_head_attention<2>(X, cxmat::hconcat(W0q, W1q), cxmat::hconcat(W0k, W1k), cxmat::hconcat(W0v, W1v), Wo);
static_assert(block_out == out);

// Each head's weights, as the worksheet prints them.
constexpr auto per_head_weights = cxmat::head_weights(X, heads);
static_assert(per_head_weights[boost::hana::size_c<0>] == A0 && per_head_weights[boost::hana::size_c<1>] == A1);
constexpr auto with_weights = cxmat::multi_head_attention_with_weights<2>(
    X, cxmat::hconcat(W0q, W1q), cxmat::hconcat(W0k, W1k), cxmat::hconcat(W0v, W1v), Wo);
static_assert(with_weights.output == out && with_weights.weights[0] == A0 && with_weights.weights[1] == A1);

}  // namespace ws000
