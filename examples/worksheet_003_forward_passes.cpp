// Worksheet 003: a single-head forward pass (part 3), the block view of multi-head attention
// (part 4, asserted in static_tests/worksheet_003.cpp) and a two-head forward pass from given
// Q, K, V and head outputs (part 5). Traced by the compiler, checked, printed step by step.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

using cxmat::matrix;
using cxmat_test::matches_reference;
using m22 = matrix<double, 2, 2>;
namespace ws = worksheet_data::ws003;
namespace ref = worksheet_data::ws003::ref;

namespace part3 {
constexpr auto trace = cxmat::trace_self_attention(ws::X, ws::Wq, ws::Wk, ws::Wv, ws::Wo);
// (a) by hand: Q = [[4, 0], [1, 1]], K = [[3, 1], [1, 3]], V = [[2, 0], [0, 2]]
static_assert(trace.q == m22{{{4, 0}, {1, 1}}} && trace.k == m22{{{3, 1}, {1, 3}}} && trace.v == m22{{{2, 0}, {0, 2}}});
// (b) the weights (the worksheet's [[1, 0], [0.5, 0.5]]) and Y against numpy
static_assert(matches_reference(trace.weights[0], ref::weights));
static_assert(matches_reference(trace.output, ref::Y));
// With the worksheet's rounded weights, by hand: Y = [[4, 0], [2, 1]].
constexpr m22 A_given{{{1.0, 0.0}, {0.5, 0.5}}};
constexpr auto Y_given = A_given * trace.v * ws::Wo;
static_assert(Y_given == m22{{{4, 0}, {2, 1}}});
}  // namespace part3

namespace part5 {
constexpr auto trace = cxmat::trace_multi_head_attention_qkv<2>(ws::Q, ws::K, ws::V);
// (a) by hand: the column blocks of Q, K, V
static_assert(trace.q_heads[0] == m22{{{1, 2}, {5, 6}}} && trace.q_heads[1] == m22{{{3, 4}, {7, 8}}});
static_assert(trace.k_heads[0] == m22{{{2, 0}, {1, 3}}} && trace.k_heads[1] == m22{{{1, 1}, {0, 2}}});
static_assert(trace.v_heads[0] == m22{{{1, 0}, {3, 1}}} && trace.v_heads[1] == m22{{{2, 1}, {0, 2}}});
// the heads' weights and their concatenated outputs against numpy
static_assert(matches_reference(trace.weights[0], ref::head0_weights));
static_assert(matches_reference(trace.weights[1], ref::head1_weights));
static_assert(matches_reference(trace.concat, ref::mha_concat));
// (b) with the given head outputs H_0, H_1 (by hand): Y = [H_0 | H_1]·W^(o)
constexpr auto H = cxmat::hconcat(m22{{{1, 0}, {0, 1}}}, m22{{{2, 1}, {1, 2}}});
constexpr matrix<double, 4, 4> Wo{{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}}};
constexpr auto Y = H * Wo;
static_assert(Y == matrix<double, 2, 4>{{{3, 1, 2, 2}, {1, 3, 2, 2}}});
}  // namespace part5

}  // namespace

int main() {
  std::cout << "Part 3: one head, X W_q, X W_k, X W_v, then W_o\n";
  cxmat::print(std::cout, part3::trace);
  cxmat::print(std::cout, "Y with the worksheet's weights [[1, 0], [0.5, 0.5]]", part3::Y_given);
  std::cout << "\nPart 4: splitting Q = X[W0 | W1] equals [X W0 | X W1] (asserted in static_tests)\n";
  std::cout << "\nPart 5 (a): two heads from the given Q, K, V\n";
  cxmat::print(std::cout, part5::trace);
  std::cout << "Part 5 (b)\n";
  cxmat::print(std::cout, "H = Concat[H_0, H_1]", part5::H);
  cxmat::print(std::cout, "Y = H W(o)", part5::Y);
}
