// Named dimensions: every operation propagates names, a plain size agrees with a name of the same
// size, and the classic mistakes that sizes cannot see when they coincide no longer compile.
// Worksheet 001 (all 2 x 2) and worksheet 003 part 5 (d_model = H·d_v = 4), with names.
//
// Rejection is tested with `!requires { ... }` inside a generic lambda: only in a template is an
// invalid expression in a requires-expression a `false` rather than an error.
#include <type_traits>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

#include "test_support/checks.hpp"
#include "test_support/rejection.hpp"
#include "test_support/worksheet_data.hpp"

namespace named001 {

// Dimensions are declared in a namespace, as a program would (at global scope works too).
CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 2);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);
CXMAT_DIM(d_out, 2);

using cxmat::dim;
using cxmat::matrix;
using cxmat::times_v;
namespace data = worksheet_data::ws001;

template <class A, class B>
inline constexpr bool same = std::is_same_v<std::remove_cvref_t<A>, B>;

// Names are attached to the worksheet's plain matrices once; the values are the worksheet's.
constexpr auto X = cxmat::with_dims<n, d_model>(data::X);
constexpr auto W1q = cxmat::with_dims<d_model, d_k>(data::W1q);
constexpr auto W1k = cxmat::with_dims<d_model, d_k>(data::W1k);
constexpr auto W1v = cxmat::with_dims<d_model, d_v>(data::W1v);
constexpr auto W2q = cxmat::with_dims<d_model, d_k>(data::W2q);
constexpr auto W2k = cxmat::with_dims<d_model, d_k>(data::W2k);
constexpr auto W2v = cxmat::with_dims<d_model, d_v>(data::W2v);
constexpr auto Wo = cxmat::with_dims<times_v<2, d_v>, d_out>(data::Wo);
static_assert(same<decltype(X), matrix<double, n, d_model>> && X == data::X);
static_assert(same<decltype(Wo), matrix<double, times_v<2, d_v>, d_out>>);

// Names flow through every step: Q (n x d_k) · Kᵀ (d_k x n) -> n x n; heads are n x d_v; two
// heads side by side are n x 2*d_v; W_o maps 2*d_v to d_out.
// (Q and V now have different types: one `auto` declaration can no longer hold both.)
constexpr auto Q1 = X * W1q, K1 = X * W1k;
constexpr auto V1 = X * W1v;
constexpr auto Q2 = X * W2q, K2 = X * W2k;
constexpr auto V2 = X * W2v;
static_assert(same<decltype(Q1), matrix<double, n, d_k>> && same<decltype(V1), matrix<double, n, d_v>>);
static_assert(same<decltype(cxmat::transpose(K1)), matrix<double, d_k, n>>);
static_assert(same<decltype(Q1 * cxmat::transpose(K1)), matrix<double, n, n>>);
static_assert(same<decltype(cxmat::attention_weights(Q1, K1)), matrix<double, n, n>>);
constexpr auto head1 = cxmat::scaled_dot_product_attention(Q1, K1, V1);
constexpr auto head2 = cxmat::scaled_dot_product_attention(Q2, K2, V2);
static_assert(same<decltype(head1), matrix<double, n, d_v>>);
constexpr auto concat = cxmat::hconcat(head1, head2);
static_assert(same<decltype(concat), matrix<double, n, times_v<2, d_v>>>);
static_assert(cxmat::shape_text(concat) == "2 x 4 (n x 2*d_v)");
constexpr auto M = concat * Wo;
static_assert(same<decltype(M), matrix<double, n, d_out>>);
static_assert(cxmat_test::matches_reference(M, data::ref::M));

// The per-head and block forms give the same named result.
constexpr auto heads = cxmat::make_heads(cxmat::attention_head{W1q, W1k, W1v}, cxmat::attention_head{W2q, W2k, W2v});
static_assert(same<decltype(cxmat::multi_head_attention(X, heads, Wo)), matrix<double, n, d_out>>);
static_assert(cxmat::multi_head_attention(X, heads, Wo) == M);
constexpr auto Wq = cxmat::hconcat(W1q, W2q), Wk = cxmat::hconcat(W1k, W2k);
constexpr auto Wv = cxmat::hconcat(W1v, W2v);
static_assert(same<decltype(Wq), matrix<double, d_model, times_v<2, d_k>>>);
static_assert(cxmat::multi_head_attention<2>(X, Wq, Wk, Wv, Wo) == M);
// Splitting H*d_k into H blocks gives d_k back; joining them gives H*d_k back.
constexpr auto q_heads = cxmat::split_columns<2>(X * Wq);
static_assert(same<decltype(q_heads[0]), matrix<double, n, d_k>> && q_heads[0] == Q1 && q_heads[1] == Q2);
static_assert(same<decltype(cxmat::hconcat(q_heads[0], q_heads[1])), matrix<double, n, times_v<2, d_k>>>);

// A plain size agrees with a named one of the same size: the plain worksheet matrices mix in.
static_assert(same<decltype(data::X * W1q), matrix<double, 2, d_k>>);
static_assert(same<decltype(X * data::W1q), matrix<double, n, 2>>);
static_assert(same<decltype(Q1 + data::X), matrix<double, n, d_k>>);  // the named one wins
static_assert(Q1 == data::X * data::W1q);

// The classic mistakes. With plain 2 x 2 matrices all of them compile (and compute garbage)...
constexpr auto q = data::X * data::W1q, k = data::X * data::W1k, v = data::X * data::W1v;
static_assert([](const auto& qq, const auto& kk) {
  return requires { cxmat::matmul(qq, kk); };
}(q, k));
static_assert([](const auto& qq, const auto& vv) {
  return requires { cxmat::attention_weights(qq, vv); };
}(q, v));
// ...with names, none does, and each reports its rule with the names involved.
// Forgot the transpose: Q·K is (n x d_k)·(n x d_k).
CXMAT_ASSERT_REJECTED([](const auto& qq, const auto& kk) {
  return !requires { cxmat::matmul(qq, kk); };
}(Q1, K1));
CXMAT_ASSERT_REJECTED([](const auto& qq, const auto& kk) {
  return !requires { qq* kk; };
}(Q1, K1));
static_assert(
    same<decltype(cxmat::matmul(Q1, K1)), cxmat::shape_error::matmul_a_cols_must_equal_b_rows<
                                              dim<2, n_dim>, dim<2, d_k_dim>, dim<2, n_dim>, dim<2, d_k_dim>>>);
// V used in place of K: its width is d_v, not d_k.
CXMAT_ASSERT_REJECTED([](const auto& qq, const auto& vv) {
  return !requires { cxmat::attention_weights(qq, vv); };
}(Q1, V1));
CXMAT_ASSERT_REJECTED([](const auto& qq, const auto& vv) {
  return !requires { cxmat::scaled_dot_product_attention(qq, vv, vv); };
}(Q1, V1));
static_assert(same<decltype(cxmat::scaled_dot_product_attention(Q1, V1, V1)),
                   cxmat::shape_error::attention_q_and_k_widths_must_match<dim<2, d_k_dim>, dim<2, d_v_dim>>>);
// W^V passed where W^K belongs: Q and K widths d_k and d_v differ.
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& wq, const auto& wv) {
  return !requires { cxmat::self_attention(x, wq, wv, wv); }
  &&requires { cxmat::self_attention(x, wq, wq, wv); };
}(X, W1q, W1v));
static_assert(same<decltype(cxmat::self_attention(X, W1q, W1v, W1v)),
                   cxmat::shape_error::projection_wq_and_wk_widths_must_match<dim<2, d_k_dim>, dim<2, d_v_dim>>>);
// Q used where X belongs: the projection expects d_model rows.
CXMAT_ASSERT_REJECTED([](const auto& qq, const auto& wq) {
  return !requires { qq* wq; };
}(Q1, W1q));
// Adding a head to the scores (n x n) and a head output (n x d_v).
CXMAT_ASSERT_REJECTED([](const auto& s, const auto& h) {
  return !requires { s + h; };
}(Q1* cxmat::transpose(K1), head1));
// with_dims renames nothing: d_k stays d_k.
CXMAT_ASSERT_REJECTED([](const auto& qq) {
  return !requires { cxmat::with_dims<n, d_v>(qq); };
}(Q1));
static_assert([](const auto& qq) {
  return requires { cxmat::with_dims<n, 2>(qq); };
}(Q1));  // dropping a name

}  // namespace named001

namespace named003 {

// Worksheet 003 part 5: H = 2 heads, n = 2, d_model = 4, per-head width 2. Here W_o is square
// (H·d_v = d_model = 4), so a transposed W_o has the right sizes; only the names tell.
CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_h, 2);

using cxmat::dim;
using cxmat::matrix;
using cxmat::times_v;
namespace data = worksheet_data::ws003;

template <class A, class B>
inline constexpr bool same = std::is_same_v<std::remove_cvref_t<A>, B>;

constexpr auto Q = cxmat::with_dims<n, times_v<2, d_h>>(data::Q);
constexpr auto K = cxmat::with_dims<n, times_v<2, d_h>>(data::K);
constexpr auto V = cxmat::with_dims<n, times_v<2, d_h>>(data::V);
constexpr matrix<double, times_v<2, d_h>, d_model> Wo{{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}}};

// (a) The per-head blocks are n x d_h: (H·d_h)/H simplifies to d_h.
constexpr auto q_heads = cxmat::split_columns<2>(Q);
static_assert(same<decltype(q_heads[0]), matrix<double, n, d_h>>);
static_assert(cxmat::shape_text(q_heads[1]) == "2 x 2 (n x d_h)");

// Heads side by side, then W_o: n x 2*d_h -> n x d_model.
constexpr auto heads = cxmat::multi_head_attention_qkv<2>(Q, K, V);
static_assert(same<decltype(heads), matrix<double, n, times_v<2, d_h>>>);
static_assert(same<decltype(heads * Wo), matrix<double, n, d_model>>);

// A transposed W_o: (n x 2*d_h)·(d_model x 2*d_h). Sizes agree (4 = 4); names do not.
CXMAT_ASSERT_REJECTED([](const auto& h, const auto& wo) {
  return !requires { h* cxmat::transpose(wo); };
}(heads, Wo));
static_assert(
    same<decltype(heads * cxmat::transpose(Wo)),
         cxmat::shape_error::matmul_a_cols_must_equal_b_rows<dim<2, n_dim>, dim<4, cxmat::times<2, d_h_dim>>,
                                                             dim<4, d_model_dim>, dim<4, cxmat::times<2, d_h_dim>>>>);
// The same mistake with plain sizes compiles.
static_assert([](const auto& h, const auto& wo) {
  return requires { h* cxmat::transpose(wo); };
}(data::Q, cxmat::with_dims<4, 4>(Wo)));

}  // namespace named003
