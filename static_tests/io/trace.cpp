// Traces at compile time: each equals the call it traces (with and without options and W_o, in
// block, per-head and Q/K/V form), its scores are the scaled dot products of its own q and k,
// its types name the head axis H and the dimensions, and it is rejected where the call is.
#include <type_traits>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/per_head.hpp>
#include <cxmat/io/trace.hpp>

#include "test_support/checks.hpp"
#include "test_support/rejection.hpp"
#include "test_support/trace_checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace io_trace {

namespace ws4 = worksheet_data::ws004;
namespace ws1 = worksheet_data::ws001;
using cxmat::matrix;

// Block form, with and without options, with and without W_o.
static_assert(io_checks::trace_matches_library<1>(ws4::X, ws4::Wq, ws4::Wk, ws4::Wv));
static_assert(io_checks::trace_matches_library<3>(ws4::X, ws4::Wq, ws4::Wk, ws4::Wv));
static_assert(io_checks::trace_matches_library<3>(ws4::X, ws4::Wq, ws4::Wk, ws4::Wv, cxmat::causal));
constexpr matrix<double, 1, 6> bias{{{0.5, -1, 0.25, 2, 0, -0.75}}};
constexpr matrix<bool, 5, 5> allowed{{{true, false, true, false, true},
                                      {true, true, false, false, false},
                                      {false, false, false, false, false},  // a fully masked query
                                      {true, true, true, true, true},
                                      {false, true, false, true, false}}};
static_assert(io_checks::trace_matches_library<2>(ws4::X, ws4::Wq, ws4::Wk, ws4::Wv, cxmat::query_bias(bias),
                                                  cxmat::mask(allowed), cxmat::value_bias(bias), cxmat::scale(0.5)));
static_assert(io_checks::trace_with_wo_matches_library<3>(ws4::X, ws4::Wq, ws4::Wk, ws4::Wv, ws4::Wk,
                                                          cxmat::output_bias(bias), cxmat::key_bias(bias)));

// The scores are Q_h K_h^T / sqrt(d_k), recomputed by plain loops (d_k = 2, sqrt(2) rounded to
// double by hand: 1.4142135623730951).
constexpr auto t3 = cxmat::trace_multi_head_attention<3>(ws4::X, ws4::Wq, ws4::Wk, ws4::Wv);
static_assert(io_checks::scores_are_scaled_dot_products(t3, 1.4142135623730951, 1e-15));
static_assert(decltype(t3)::heads == 3 && decltype(t3)::head_key_width == 2);
static_assert(decltype(t3)::has_input_projections && !decltype(t3)::has_output_projection);
// Each head's weights are worksheet 004's numpy weights.
static_assert(cxmat_test::matches_reference(t3.weights[1], ws4::ref::weights_h3_1));
// The fully masked query of the options above gets zero weights and a zero output row.
constexpr auto masked = cxmat::trace_multi_head_attention<2>(ws4::X, ws4::Wq, ws4::Wk, ws4::Wv, cxmat::mask(allowed));
static_assert(masked.weights[0](2, 0) == 0.0 && masked.head_outputs[1](2, 2) == 0.0 && masked.output(2, 5) == 0.0);

// Per-head form (worksheet 001) and Q/K/V form (worksheet 003 part 5).
constexpr auto heads = cxmat::make_heads(cxmat::attention_head{ws1::W1q, ws1::W1k, ws1::W1v},
                                         cxmat::attention_head{ws1::W2q, ws1::W2k, ws1::W2v});
static_assert(cxmat::trace_multi_head_attention(ws1::X, heads).output == cxmat::multi_head_attention(ws1::X, heads));
static_assert(cxmat::trace_multi_head_attention(ws1::X, heads, ws1::Wo).output ==
              cxmat::multi_head_attention(ws1::X, heads, ws1::Wo));
// head_weights stacked into a batch over H are the trace's weights.
constexpr auto stacked = cxmat::stack_heads(cxmat::head_weights(ws1::X, heads));
static_assert(std::is_same_v<decltype(stacked), const cxmat::batch<double, cxmat::heads_v<2>, 2, 2>>);
static_assert(stacked == cxmat::trace_multi_head_attention(ws1::X, heads).weights);
namespace ws3 = worksheet_data::ws003;
constexpr auto tq = cxmat::trace_multi_head_attention_qkv<2>(ws3::Q, ws3::K, ws3::V);
static_assert(tq.output == cxmat::multi_head_attention_qkv<2>(ws3::Q, ws3::K, ws3::V));
static_assert(!decltype(tq)::has_input_projections);
// Single head: trace_self_attention is self_attention, with W_o too.
static_assert(cxmat::trace_self_attention(ws3::X, ws3::Wq, ws3::Wk, ws3::Wv).output ==
              cxmat::self_attention(ws3::X, ws3::Wq, ws3::Wk, ws3::Wv));
static_assert(cxmat::trace_self_attention(ws3::X, ws3::Wq, ws3::Wk, ws3::Wv, ws3::Wo).output ==
              cxmat::self_attention(ws3::X, ws3::Wq, ws3::Wk, ws3::Wv) * ws3::Wo);

// Types: the head axis is named H, blocks are named after the width they divide.
CXMAT_DIM(n, 5);
CXMAT_DIM(d_model, 6);
constexpr auto X = cxmat::with_dims<n, d_model>(ws4::X);
constexpr auto W = cxmat::with_dims<d_model, d_model>(ws4::Wq);
using named_trace = decltype(cxmat::trace_multi_head_attention<3>(X, W, W, W));
static_assert(std::is_same_v<decltype(named_trace::weights), cxmat::batch<double, cxmat::heads_v<3>, n, n>>);
static_assert(cxmat::shape_text<decltype(named_trace::weights)>() == "3 x 5 x 5 (H x n x n)");
static_assert(cxmat::shape_text<decltype(named_trace::q_heads)>() == "3 x 5 x 2 (H x n x d_model/3)");
static_assert(cxmat::shape_text<decltype(named_trace::concat)>() == "5 x 6 (n x d_model)");
static_assert(cxmat::shape_text<decltype(named_trace::output)>() == "5 x 6 (n x d_model)");

// A trace is rejected exactly where the traced call is: 4 heads do not divide 6 columns, W_o
// must have as many rows as the heads' concatenated width.
template <std::size_t H, class... A>
concept traceable = requires(const A&... a) {
  cxmat::trace_multi_head_attention<H>(a...);
};
static_assert(traceable<3, decltype(X), decltype(W), decltype(W), decltype(W)>);
CXMAT_ASSERT_REJECTED(!traceable<4, decltype(X), decltype(W), decltype(W), decltype(W)>);
CXMAT_ASSERT_REJECTED(!traceable<3, decltype(X), decltype(W), decltype(W), decltype(W), matrix<double, 5, 6>>);
static_assert(traceable<3, decltype(X), decltype(W), decltype(W), decltype(W), matrix<double, 6, 2>>);

// and reports the traced call's shape error (the same type, so the same message in both error
// modes): the trace checks its arguments with the call's rule list before computing anything.
static_assert(std::is_same_v<decltype(cxmat::trace_multi_head_attention<4>(X, W, W, W)),
                             decltype(cxmat::multi_head_attention<4>(X, W, W, W))>);
static_assert(std::is_same_v<decltype(cxmat::trace_multi_head_attention<3>(X, W, W, W, matrix<double, 5, 6>{})),
                             decltype(cxmat::multi_head_attention<3>(X, W, W, W, matrix<double, 5, 6>{}))>);
static_assert(std::is_same_v<decltype(cxmat::trace_self_attention(X, matrix<double, 5, 6>{}, W, W)),
                             decltype(cxmat::multi_head_attention<1>(X, matrix<double, 5, 6>{}, W, W))>);
static_assert(std::is_same_v<decltype(cxmat::trace_multi_head_attention_qkv<4>(X, X, X)),
                             decltype(cxmat::multi_head_attention_qkv<4>(X, X, X))>);

}  // namespace io_trace
