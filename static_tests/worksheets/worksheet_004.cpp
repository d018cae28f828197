// Worksheet 004: 5 x 6 self-attention with H = 1 and H = 3 heads (no W_o), the printed weights
// and outputs, and permutation equivariance. References: the digits the worksheet printed
// (numpy precision=1) and float64 references (static_tests/reference/worksheets.py) within 1e-9.
#include <type_traits>

#include <cxmat/cxmat.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace ws004 {

using cxmat::matrix;
using cxmat_test::matches_printed;
using cxmat_test::matches_printed_2sig;
using cxmat_test::matches_reference;
using m56 = matrix<double, 5, 6>;
using m55 = matrix<double, 5, 5>;

using namespace worksheet_data::ws004;

// (a) Self-attention, H = 1: output 5 x 6 and one 5 x 5 weight matrix.
constexpr auto single = cxmat::multi_head_attention_with_weights<1>(X, Wq, Wk, Wv);
static_assert(std::is_same_v<std::remove_cv_t<decltype(single.output)>, m56>);
static_assert(single.output == cxmat::self_attention(X, Wq, Wk, Wv));
static_assert(single.weights[0] == cxmat::attention_weights(X * Wq, X* Wk));
static_assert(matches_printed(single.output,
                              m56{{{-0.7, -0.9, 0.5, 0.1, -5.5, -1.1},
                                   {-0.4, 0.6, 0.6, -0.6, 2., 0.5},
                                   {0.3, -0.1, -2.4, -1.9, 4.9, 1.8},
                                   {-0.7, -0.7, 0.4, -0.1, -4.5, -0.7},
                                   {-2., 3.3, 2.1, 1.6, -1.3, 2.8}}},
                              0.05));
static_assert(matches_printed_2sig(single.weights[0], m55{{{4.9e-07, 4.0e-14, 9.9e-01, 1.7e-05, 6.1e-03},
                                                           {4.8e-01, 3.6e-01, 1.5e-01, 2.1e-02, 4.0e-04},
                                                           {1.9e-02, 5.8e-01, 9.4e-02, 2.8e-01, 3.2e-02},
                                                           {3.0e-02, 1.2e-02, 8.5e-01, 9.9e-02, 1.1e-02},
                                                           {4.7e-04, 7.3e-03, 1.6e-02, 4.0e-02, 9.4e-01}}}));
static_assert(matches_reference(single.output, ref::output_h1));
static_assert(matches_reference(single.weights[0], ref::weights_h1));

// (b) Multi-head, H = 3 (d_k = d_v = 2 per head): output 5 x 6 and three 5 x 5 weight matrices.
constexpr auto three = cxmat::multi_head_attention_with_weights<3>(X, Wq, Wk, Wv);
static_assert(std::is_same_v<std::remove_cv_t<decltype(three.weights)>, cxmat::batch<double, 3, 5, 5>>);
static_assert(three.output == cxmat::multi_head_attention<3>(X, Wq, Wk, Wv));
static_assert(three.weights == cxmat::multi_head_attention_weights<3>(X, Wq, Wk));
static_assert(matches_printed(three.output,
                              m56{{{-0.7, -0.9, 0.7, 0.2, -1.5, 2.9},
                                   {-1.1, 0.9, -3.9, -2.9, -3., -0.5},
                                   {-0.7, -0.9, 1.6, 1.2, 5.8, 1.5},
                                   {-0.7, -0.7, -3.8, -2.8, -5.1, -0.9},
                                   {-0.2, 0.3, 1., 0.2, -1.3, 3.}}},
                              0.05));
static_assert(matches_printed_2sig(three.weights[0], m55{{{1.8e-04, 1.2e-03, 9.5e-01, 4.6e-02, 2.3e-05},
                                                          {5.1e-01, 1.7e-02, 3.6e-01, 1.0e-02, 1.0e-01},
                                                          {6.4e-04, 2.5e-03, 9.4e-01, 5.4e-02, 9.7e-05},
                                                          {3.8e-02, 2.6e-02, 8.4e-01, 8.8e-02, 1.0e-02},
                                                          {2.6e-02, 3.2e-01, 4.5e-02, 5.3e-01, 7.7e-02}}}));
static_assert(matches_printed_2sig(three.weights[1], m55{{{3.1e-05, 2.0e-18, 9.0e-01, 4.8e-07, 9.7e-02},
                                                          {6.1e-04, 1.0e+00, 9.6e-05, 8.1e-04, 9.0e-07},
                                                          {3.2e-03, 1.1e-01, 3.8e-04, 1.5e-02, 8.7e-01},
                                                          {1.0e-02, 9.7e-01, 2.3e-03, 1.8e-02, 2.0e-03},
                                                          {1.1e-01, 7.5e-04, 7.9e-01, 4.0e-02, 5.4e-02}}}));
static_assert(matches_printed_2sig(three.weights[2], m55{{{3.1e-05, 3.9e-05, 1.8e-02, 3.6e-03, 9.8e-01},
                                                          {4.3e-01, 4.7e-03, 4.9e-01, 7.1e-02, 6.8e-03},
                                                          {2.3e-01, 6.7e-01, 2.2e-02, 6.3e-02, 1.5e-02},
                                                          {1.4e-02, 4.5e-05, 9.1e-01, 2.7e-02, 4.4e-02},
                                                          {2.8e-06, 3.9e-03, 1.0e-04, 8.4e-04, 1.0e+00}}}));
static_assert(matches_reference(three.output, ref::output_h3));
static_assert(matches_reference(three.weights[0], ref::weights_h3_0));
static_assert(matches_reference(three.weights[1], ref::weights_h3_1));
static_assert(matches_reference(three.weights[2], ref::weights_h3_2));

// (c) The results differ: each head routes the values with its own 5 x 5 weights.
static_assert(!cxmat::approx_equal(single.output, three.output, 1e-3));

// (d) Swapping the first two tokens swaps the first two output rows (permutation equivariance),
// and the weights are permuted on both axes: W'(i, j) = W(p(i), p(j)).
constexpr auto Xp = cxmat::permute_rows<1, 0, 2, 3, 4>(X);
static_assert(Xp != X);
template <class M>
constexpr M permute_both(const M& w) {
  return cxmat::transpose(cxmat::permute_rows<1, 0, 2, 3, 4>(cxmat::transpose(cxmat::permute_rows<1, 0, 2, 3, 4>(w))));
}
constexpr auto single_p = cxmat::multi_head_attention_with_weights<1>(Xp, Wq, Wk, Wv);
constexpr auto three_p = cxmat::multi_head_attention_with_weights<3>(Xp, Wq, Wk, Wv);
static_assert(cxmat::approx_equal(single_p.output, cxmat::permute_rows<1, 0, 2, 3, 4>(single.output), 1e-12, 1e-15));
static_assert(cxmat::approx_equal(three_p.output, cxmat::permute_rows<1, 0, 2, 3, 4>(three.output), 1e-12, 1e-15));
static_assert(cxmat::approx_equal(single_p.weights[0], permute_both(single.weights[0]), 1e-12, 1e-300));
static_assert(cxmat::approx_equal(three_p.weights[0], permute_both(three.weights[0]), 1e-12, 1e-300));
static_assert(cxmat::approx_equal(three_p.weights[1], permute_both(three.weights[1]), 1e-12, 1e-300));
static_assert(cxmat::approx_equal(three_p.weights[2], permute_both(three.weights[2]), 1e-12, 1e-300));
// The worksheet's printed results after the permutation.
static_assert(matches_printed(three_p.output,
                              m56{{{-1.1, 0.9, -3.9, -2.9, -3., -0.5},
                                   {-0.7, -0.9, 0.7, 0.2, -1.5, 2.9},
                                   {-0.7, -0.9, 1.6, 1.2, 5.8, 1.5},
                                   {-0.7, -0.7, -3.8, -2.8, -5.1, -0.9},
                                   {-0.2, 0.3, 1., 0.2, -1.3, 3.}}},
                              0.05));
static_assert(matches_printed_2sig(single_p.weights[0], m55{{{3.6e-01, 4.8e-01, 1.5e-01, 2.1e-02, 4.0e-04},
                                                             {4.0e-14, 4.9e-07, 9.9e-01, 1.7e-05, 6.1e-03},
                                                             {5.8e-01, 1.9e-02, 9.4e-02, 2.8e-01, 3.2e-02},
                                                             {1.2e-02, 3.0e-02, 8.5e-01, 9.9e-02, 1.1e-02},
                                                             {7.3e-03, 4.7e-04, 1.6e-02, 4.0e-02, 9.4e-01}}}));

}  // namespace ws004
