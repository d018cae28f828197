// Worksheet 004: self-attention of 5 tokens of width 6 with one head and with three heads, and
// what happens when two tokens swap places. Traced by the compiler, checked against the float64
// numpy solution and against the digits the worksheet printed, printed step by step.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

namespace ws = worksheet_data::ws004;
namespace ref = worksheet_data::ws004::ref;
using cxmat_test::matches_reference;

constexpr auto one_head = cxmat::trace_multi_head_attention<1>(ws::X, ws::Wq, ws::Wk, ws::Wv);
constexpr auto three_heads = cxmat::trace_multi_head_attention<3>(ws::X, ws::Wq, ws::Wk, ws::Wv);
constexpr auto Xp = cxmat::permute_rows<1, 0, 2, 3, 4>(ws::X);
constexpr auto swapped = cxmat::trace_multi_head_attention<3>(Xp, ws::Wq, ws::Wk, ws::Wv);

static_assert(matches_reference(one_head.weights[0], ref::weights_h1));
static_assert(matches_reference(one_head.output, ref::output_h1));
static_assert(matches_reference(three_heads.weights[0], ref::weights_h3_0));
static_assert(matches_reference(three_heads.weights[1], ref::weights_h3_1));
static_assert(matches_reference(three_heads.weights[2], ref::weights_h3_2));
static_assert(matches_reference(three_heads.output, ref::output_h3));
// Permutation equivariance: swapping tokens 0 and 1 swaps output rows 0 and 1, exactly.
static_assert(swapped.output == cxmat::permute_rows<1, 0, 2, 3, 4>(three_heads.output));

}  // namespace

int main() {
  std::cout << "H = 1\n";
  cxmat::print(std::cout, one_head);
  std::cout << "\nH = 3\n";
  cxmat::print(std::cout, three_heads);
  std::cout << "\nThe first two tokens swapped, H = 3: the output rows swap too\n";
  cxmat::print(std::cout, "X after permutation", Xp);
  cxmat::print(std::cout, "Self-Attention Output", swapped.output);
  cxmat::print(std::cout, "Self-Attention Weights", swapped.weights);
}
