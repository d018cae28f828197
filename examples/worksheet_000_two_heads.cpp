// Worksheet 000 / 002: "Thinking Machine" through two attention heads and W_o, step by step.
// The trace holds every intermediate, computed by the compiler (constexpr) and checked below
// against the float64 numpy solution; the program prints the steps as worksheet 002 does.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

namespace ws = worksheet_data::ws000;
namespace ref = worksheet_data::ws000::ref;
using cxmat_test::matches_reference;

// The worksheet's heads, each with its own W^Q, W^K, W^V (per-head form), and W_o.
constexpr auto heads = cxmat::make_heads(cxmat::attention_head{ws::W0q, ws::W0k, ws::W0v},
                                         cxmat::attention_head{ws::W1q, ws::W1k, ws::W1v});
constexpr auto trace = cxmat::trace_multi_head_attention(ws::X, heads, ws::Wo);

// (a) projections per head
static_assert(matches_reference(trace.q_heads[0], ref::Q0) && matches_reference(trace.q_heads[1], ref::Q1));
static_assert(matches_reference(trace.k_heads[0], ref::K0) && matches_reference(trace.k_heads[1], ref::K1));
static_assert(matches_reference(trace.v_heads[0], ref::V0) && matches_reference(trace.v_heads[1], ref::V1));
// (b) scores, weights (the worksheet's [[0, 1], [0, 1]] to three decimals) and Z per head
static_assert(matches_reference(trace.scores[0], ref::scores0) && matches_reference(trace.scores[1], ref::scores1));
static_assert(matches_reference(trace.weights[0], ref::weights0) && matches_reference(trace.weights[1], ref::weights1));
static_assert(matches_reference(trace.head_outputs[0], ref::Z0) && matches_reference(trace.head_outputs[1], ref::Z1));
// (c) concatenation and (d) the output projection
static_assert(matches_reference(trace.concat, ref::Z));
static_assert(matches_reference(trace.output, ref::output));
// The trace's output is the library's answer, bit for bit.
static_assert(trace.output == cxmat::multi_head_attention(ws::X, heads, ws::Wo));

}  // namespace

int main() {
  // Heads numbered from 1, as the worksheet numbers them (cxmat numbers them from 0 otherwise:
  // the trace's Head 1 is trace.weights[0]).
  cxmat::print(std::cout, trace, {{.first_head_number = 1}});
}
