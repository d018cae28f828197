// Worksheet 001: multi-head self-attention M = (head_1 ⊕ head_2)·W^O on a 2 x 2 input, with the
// heads given one by one as a Boost.Hana tuple. Computed by the compiler, checked against the
// float64 numpy reference, printed step by step at run time.
#include <iostream>
#include <string>
#include <vector>

#include <cxmat/cxmat.hpp>
#include <cxmat/io.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

namespace ws = worksheet_data::ws001;
namespace ref = worksheet_data::ws001::ref;
using cxmat_test::matches_reference;

constexpr auto heads = cxmat::make_heads(cxmat::attention_head{ws::W1q, ws::W1k, ws::W1v},
                                         cxmat::attention_head{ws::W2q, ws::W2k, ws::W2v});
constexpr auto weights = cxmat::head_weights(ws::X, heads);
constexpr auto outputs = cxmat::head_outputs(ws::X, heads);
constexpr auto trace = cxmat::trace_multi_head_attention(ws::X, heads, ws::Wo);

using boost::hana::size_c;
// Both heads have the same scores and weights; their outputs differ.
static_assert(matches_reference(trace.scores[0], ref::scores) && matches_reference(trace.scores[1], ref::scores));
static_assert(matches_reference(weights[size_c<0>], ref::weights) &&
              matches_reference(weights[size_c<1>], ref::weights));
static_assert(trace.weights == cxmat::stack_heads(weights));
static_assert(matches_reference(outputs[size_c<0>], ref::head1) && matches_reference(outputs[size_c<1>], ref::head2));
static_assert(matches_reference(trace.concat, ref::concat));
static_assert(matches_reference(trace.output, ref::M));
static_assert(trace.output == cxmat::multi_head_attention(ws::X, heads, ws::Wo));

}  // namespace

int main() {
  // Every head below is numbered from 1, as the worksheet numbers them (head_1, head_2); cxmat
  // numbers them from 0 otherwise, as their indices: head 1 is weights[size_c<0>], trace.weights[0].
  const cxmat::print_options numbers{.first_head_number = 1};
  // The per-head results as the per-head functions return them (Hana tuples) ...
  cxmat::print(std::cout, "head_weights(X, heads)", weights, numbers);
  cxmat::print(std::cout, "head_outputs(X, heads)", outputs, numbers);
  // The weights as heatmaps, one per head and their mean (style from TERM and NO_COLOR).
  const std::vector<std::string> tokens{"x_1", "x_2"};
  cxmat::print_heatmap(std::cout, "head weights", cxmat::stack_heads(weights), tokens, tokens,
                       {.first_head_number = 1});
  // ... and every step of M = (head_1 (+) head_2) W^O.
  std::cout << '\n';
  cxmat::print(std::cout, trace, {numbers});
}
