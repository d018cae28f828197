// The textbook per-head program (Vaswani et al. 2017, section 3.2.2): two heads of width
// d_k = d_v = d_model / h, concatenated to h·d_v = d_model columns and projected by a
// d_model x d_model W_o. The program states h·d_v = d_model once with CXMAT_DIM_EQUALS; without
// that statement the names 2*d_v and d_model are different dimensions and W_o is rejected.
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>
#include <type_traits>

#include "test_support/rejection.hpp"

namespace textbook_per_head {

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);
CXMAT_DIM(d_other, 4);  // a width of the same size that the program never equates with d_model

}  // namespace textbook_per_head

// At namespace scope, after both dimensions: the width of the two heads side by side is d_model.
CXMAT_DIM_EQUALS(textbook_per_head::d_model, cxmat::times_v<2, textbook_per_head::d_v>);

namespace textbook_per_head {
using cxmat::matrix;

// The statement is a fact about the two names, read in both orders and nowhere else.
static_assert(cxmat::compatible_extents<d_model, cxmat::times_v<2, d_v>>);
static_assert(cxmat::compatible_extents<cxmat::times_v<2, d_v>, d_model>);
static_assert(!cxmat::compatible_extents<d_other, cxmat::times_v<2, d_v>>);
static_assert(!cxmat::compatible_extents<d_other, d_model>);
static_assert(!cxmat::compatible_extents<d_k, d_v>);

// Both tokens are the same row, so every score of a row is equal, each softmax weight is 1/2 and
// each head's output row is its value row: Z_h = X·W^V_h. With W^V_0 taking columns 0, 1 of X and
// W^V_1 columns 2, 3, Concat(Z_0, Z_1) is X itself, and W_o = I leaves it: the answer is X (by
// hand, exact in binary floating point: 0.5·a + 0.5·a = a).
constexpr matrix<double, n, d_model> X{{{1, 2, 3, 4}, {1, 2, 3, 4}}};
constexpr matrix<double, d_model, d_k> Wq0{{{1, 0}, {0, 1}, {1, 1}, {0, 0}}}, Wk0{{{0, 1}, {1, 0}, {0, 0}, {1, 1}}};
constexpr matrix<double, d_model, d_k> Wq1{{{0, 0}, {1, 1}, {0, 1}, {1, 0}}}, Wk1{{{1, 1}, {0, 0}, {1, 0}, {0, 1}}};
constexpr matrix<double, d_model, d_v> Wv0{{{1, 0}, {0, 1}, {0, 0}, {0, 0}}}, Wv1{{{0, 0}, {0, 0}, {1, 0}, {0, 1}}};
constexpr auto Wo = cxmat::identity<double, d_model>();

constexpr auto heads = cxmat::make_heads(cxmat::attention_head{Wq0, Wk0, Wv0}, cxmat::attention_head{Wq1, Wk1, Wv1});
constexpr auto Y = cxmat::multi_head_attention(X, heads, Wo);
static_assert(cxmat::shape_text(Y) == "2 x 4 (n x d_model)");
static_assert(Y == X);

// A W_o of another 4-wide name is still rejected: the statement covers d_model only.
[[maybe_unused]] constexpr matrix<double, d_other, d_model> Wo_other{};  // used by the C++20 probe only
using head0 =
    cxmat::attention_head<matrix<double, d_model, d_k>, matrix<double, d_model, d_k>, matrix<double, d_model, d_v>>;
static_assert(
    !cxmat::rules_hold<cxmat::rules_of::per_head_attention_wo<
        matrix<double, n, d_model>, matrix<double, d_other, d_model>, cxmat::detail::option_list<>, head0, head0>>);
static_assert(
    cxmat::rules_hold<cxmat::rules_of::per_head_attention_wo<
        matrix<double, n, d_model>, matrix<double, d_model, d_model>, cxmat::detail::option_list<>, head0, head0>>);
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& h, const auto& w) {
  return !requires { cxmat::multi_head_attention(x, h, w); };
}(X, heads, Wo_other));

// The worksheet's one-line `constexpr auto Q0 = X*W0q, K0 = X*W0k, V0 = X*W0v;` cannot compile
// once d_k and d_v are named: one declaration with auto deduces one type, and n x d_k and
// n x d_v are two. The idiom is one declaration per matrix:
constexpr auto Q0 = X * Wq0;
constexpr auto K0 = X * Wk0;
constexpr auto V0 = X * Wv0;
static_assert(cxmat::shape_text(Q0) == "2 x 2 (n x d_k)" && cxmat::shape_text(K0) == "2 x 2 (n x d_k)");
static_assert(cxmat::shape_text(V0) == "2 x 2 (n x d_v)");
static_assert(V0 == matrix<double, n, d_v>{{{1, 2}, {1, 2}}});
// The two declarators' types really differ, which is what the one-line form trips on.
static_assert(!std::is_same_v<decltype(Q0), decltype(V0)>);

}  // namespace textbook_per_head
