// Every shape rule of the public API, three ways: the call is rejected (`!requires` in a generic
// lambda), its twin with fitting shapes is accepted, and `decltype` of the rejected call names
// the shape error the compiler will print, with its sizes and names. The rule's concept is
// checked directly too. Sizes differ here; named_dimensions.cpp covers equal sizes with
// different names.
#include <string_view>
#include <type_traits>

#include <cxmat/attention/batched.hpp>
#include <cxmat/cxmat.hpp>
#include "test_support/rejection.hpp"

namespace rules {

using cxmat::anonymous;
using cxmat::batch;
using cxmat::dim;
using cxmat::extent;
using cxmat::matrix;
namespace error = cxmat::shape_error;

template <class A, class B>
inline constexpr bool same = std::is_same_v<std::remove_cvref_t<A>, B>;

template <std::size_t N>
using plain = dim<N, anonymous>;

constexpr matrix<double, 2, 3> a23{};
constexpr matrix<double, 3, 2> a32{};
constexpr matrix<double, 2, 2> a22{};
constexpr matrix<double, 3, 3> a33{};
constexpr matrix<double, 2, 4> a24{};
constexpr matrix<double, 4, 4> a44{};
constexpr matrix<double, 4, 2> a42{};
constexpr matrix<double, 3, 4> a34{};
constexpr matrix<double, 4, 3> a43{};

// matmul(a, b), a * b: a.cols must equal b.rows.
static_assert(!cxmat::InnerExtentsMatch<extent{3}, extent{2}> && cxmat::InnerExtentsMatch<extent{3}, extent{3}>);
CXMAT_ASSERT_REJECTED([](const auto& a, const auto& b) {
  return !requires { cxmat::matmul(a, b); };
}(a23, a23));
CXMAT_ASSERT_REJECTED([](const auto& a, const auto& b) {
  return !requires { a* b; };
}(a23, a23));
static_assert([](const auto& a, const auto& b) {
  return requires { cxmat::matmul(a, b); }
  &&requires { a* b; };
}(a23, a32));
static_assert(same<decltype(cxmat::matmul(a23, a23)),
                   error::matmul_a_cols_must_equal_b_rows<plain<2>, plain<3>, plain<2>, plain<3>>>);
static_assert(
    same<decltype(a23 * a23), error::matmul_a_cols_must_equal_b_rows<plain<2>, plain<3>, plain<2>, plain<3>>>);
// Scalar products are not matrix products.
static_assert([](const auto& a) {
  return requires { a * 2.0; }
  &&requires { 2.0 * a; }
  &&requires { a / 2.0; };
}(a23));

// a + b, a - b, a == b, approx_equal(a, b, tol): same shape.
static_assert(!cxmat::SameShape<extent{2}, extent{3}, extent{3}, extent{2}>);
CXMAT_ASSERT_REJECTED([](const auto& a, const auto& b) {
  return !requires { a + b; }
  &&!requires { a - b; }
  &&!requires { a == b; }
  &&!requires { cxmat::approx_equal(a, b, 1e-9); };
}(a23, a32));
static_assert([](const auto& a, const auto& b) {
  return requires { a + b; }
  &&requires { a - b; }
  &&requires { a == b; }
  &&requires { cxmat::approx_equal(a, b, 1e-9); };
}(a23, a23));
static_assert(same<decltype(a23 + a32), error::elementwise_shapes_must_match<plain<2>, plain<3>, plain<3>, plain<2>>>);
static_assert(same<decltype(a23 == a32), error::elementwise_shapes_must_match<plain<2>, plain<3>, plain<3>, plain<2>>>);
static_assert(same<decltype(cxmat::approx_equal(a23, a32, 1e-9)),
                   error::elementwise_shapes_must_match<plain<2>, plain<3>, plain<3>, plain<2>>>);

// hconcat: same rows; vconcat: same cols. Every operand's size is in the error.
static_assert(!cxmat::RowsMatch<extent{2}, extent{2}, extent{3}> && cxmat::ColumnsMatch<extent{3}, extent{3}>);
CXMAT_ASSERT_REJECTED([](const auto& a, const auto& b) {
  return !requires { cxmat::hconcat(a, b, a); };
}(a23, a32));
static_assert([](const auto& a, const auto& b) {
  return requires { cxmat::hconcat(a, b, a); };
}(a23, a22));
CXMAT_ASSERT_REJECTED([](const auto& a, const auto& b) {
  return !requires { cxmat::vconcat(a, b); };
}(a23, a22));
static_assert([](const auto& a, const auto& b) {
  return requires { cxmat::vconcat(a, b); };
}(a23, a33));
static_assert(
    same<decltype(cxmat::hconcat(a23, a32, a23)), error::hconcat_rows_must_match<plain<2>, plain<3>, plain<2>>>);
static_assert(same<decltype(cxmat::vconcat(a23, a22)), error::vconcat_cols_must_match<plain<3>, plain<2>>>);

// split_columns<H>, column_block<I, H>: H divides the columns; I < H.
static_assert(!cxmat::ColumnsDivideInto<extent{4}, 3> && !cxmat::ColumnsDivideInto<extent{4}, 0>);
static_assert(!cxmat::BlockIndexInRange<2, 2> && cxmat::BlockIndexInRange<1, 2>);
CXMAT_ASSERT_REJECTED([](const auto& a) {
  return !requires { cxmat::split_columns<3>(a); };
}(a24));
static_assert([](const auto& a) {
  return requires { cxmat::split_columns<2>(a); };
}(a24));
CXMAT_ASSERT_REJECTED([](const auto& a) {
  return !requires { cxmat::column_block<0, 3>(a); };
}(a24));
CXMAT_ASSERT_REJECTED([](const auto& a) {
  return !requires { cxmat::column_block<2, 2>(a); };
}(a24));
static_assert([](const auto& a) {
  return requires { cxmat::column_block<1, 2>(a); };
}(a24));
static_assert(same<decltype(cxmat::split_columns<3>(a24)), error::split_columns_h_must_divide_cols<3, plain<4>>>);
static_assert(same<decltype(cxmat::column_block<0, 3>(a24)), error::split_columns_h_must_divide_cols<3, plain<4>>>);
static_assert(same<decltype(cxmat::column_block<2, 2>(a24)), error::column_block_index_must_be_below_h<2, 2>>);

// Attention on Q (L x d_k), K (S x d_k), V (S x d_v): Q/K widths d_k, K/V lengths S.
static_assert(!cxmat::QueryKeyWidthsMatch<extent{3}, extent{2}> && !cxmat::KeyValueLengthsMatch<extent{3}, extent{2}>);
CXMAT_ASSERT_REJECTED([](const auto& q, const auto& k) {
  return !requires { cxmat::attention_scores(q, k); }
  &&!requires { cxmat::attention_weights(q, k); };
}(a23, a22));
static_assert([](const auto& q, const auto& k) {
  return requires { cxmat::attention_scores(q, k); }
  &&requires { cxmat::attention_weights(q, k); };
}(a23, a33));
CXMAT_ASSERT_REJECTED([](const auto& q, const auto& k, const auto& v) {
  return !requires { cxmat::scaled_dot_product_attention(q, k, v); };
}(a23, a22, a22));  // Q/K widths 3, 2
CXMAT_ASSERT_REJECTED([](const auto& q, const auto& k, const auto& v) {
  return !requires { cxmat::scaled_dot_product_attention(q, k, v); };
}(a23, a33, a22));  // K/V lengths 3, 2
static_assert([](const auto& q, const auto& k, const auto& v) {
  return requires { cxmat::scaled_dot_product_attention(q, k, v); }
  &&requires { cxmat::scaled_dot_product_attention(q, k, v, cxmat::causal); };
}(a23, a33, a32));  // L = 2 queries, S = 3 keys, d_k = 3, d_v = 2
static_assert(
    same<decltype(cxmat::attention_scores(a23, a22)), error::attention_q_and_k_widths_must_match<plain<3>, plain<2>>>);
static_assert(same<decltype(cxmat::scaled_dot_product_attention(a23, a22, a22)),
                   error::attention_q_and_k_widths_must_match<plain<3>, plain<2>>>);
static_assert(same<decltype(cxmat::scaled_dot_product_attention(a23, a33, a22, cxmat::causal)),
                   error::attention_k_and_v_lengths_must_match<plain<3>, plain<2>>>);

// Self-attention of X (n x d_model): each W has d_model rows; Wq and Wk have one width d_k.
static_assert(!cxmat::ProjectionFitsInput<extent{4}, extent{3}>);
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& w, const auto& bad) {
  return !requires { cxmat::self_attention(x, bad, w, w); }
  &&!requires { cxmat::self_attention(x, w, bad, w); }
  &&!requires { cxmat::self_attention(x, w, w, bad); }
  &&requires { cxmat::self_attention(x, w, w, w); }
  &&requires { cxmat::self_attention(x, w, w, w, cxmat::causal); };
}(a24, a42, a32));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& wq, const auto& wk) {
  return !requires { cxmat::self_attention(x, wq, wk, wq); };
}(a24, a42, a43));
static_assert(same<decltype(cxmat::self_attention(a24, a32, a42, a42)),
                   error::projection_x_cols_must_equal_wq_rows<plain<4>, plain<3>>>);
static_assert(same<decltype(cxmat::self_attention(a24, a42, a32, a42)),
                   error::projection_x_cols_must_equal_wk_rows<plain<4>, plain<3>>>);
static_assert(same<decltype(cxmat::self_attention(a24, a42, a42, a32)),
                   error::projection_x_cols_must_equal_wv_rows<plain<4>, plain<3>>>);
static_assert(same<decltype(cxmat::self_attention(a24, a42, a43, a42)),
                   error::projection_wq_and_wk_widths_must_match<plain<2>, plain<3>>>);

// Multi-head attention in block form: H divides the projection widths; W_o has H·d_v rows.
static_assert(!cxmat::HeadsDivideWidth<extent{4}, 3> && !cxmat::OutputProjectionFitsHeads<extent{4}, extent{2}>);
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& w, const auto& wo) {
  return !requires { cxmat::multi_head_attention<3>(x, w, w, w); }
  &&!requires { cxmat::multi_head_attention<3>(x, w, w, w, wo); }
  &&!requires { cxmat::multi_head_attention_weights<3>(x, w, w); }
  &&!requires { cxmat::multi_head_attention_with_weights<3>(x, w, w, w); }
  &&requires { cxmat::multi_head_attention<2>(x, w, w, w); }
  &&requires { cxmat::multi_head_attention<2>(x, w, w, w, wo); }
  &&requires { cxmat::multi_head_attention<2>(x, w, w, w, wo, cxmat::causal); }
  &&requires { cxmat::multi_head_attention_weights<2>(x, w, w); }
  &&requires { cxmat::multi_head_attention_with_weights<2>(x, w, w, w); }
  &&requires { cxmat::multi_head_attention_with_weights<2>(x, w, w, w, wo); };
}(a24, a44, a42));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& w, const auto& wv) {
  return !requires { cxmat::multi_head_attention<2>(x, w, w, wv); };  // H = 2 does not divide 3
}(a24, a44, a43));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& w, const auto& wo) {
  return !requires { cxmat::multi_head_attention<2>(x, w, w, w, wo); }
  &&!requires { cxmat::multi_head_attention_with_weights<2>(x, w, w, w, wo); };
}(a24, a44, a24));  // W_o has 2 rows, the heads 4 columns
CXMAT_ASSERT_REJECTED([](const auto& q) {
  return !requires { cxmat::multi_head_attention_qkv<3>(q, q, q); }
  &&requires { cxmat::multi_head_attention_qkv<2>(q, q, q); };
}(a24));
static_assert(same<decltype(cxmat::multi_head_attention<3>(a24, a44, a44, a44)),
                   error::multi_head_h_must_divide_q_width<3, plain<4>>>);
static_assert(same<decltype(cxmat::multi_head_attention<2>(a24, a44, a44, a43)),
                   error::multi_head_h_must_divide_v_width<2, plain<3>>>);
static_assert(same<decltype(cxmat::multi_head_attention<2>(a24, a44, a44, a44, a24)),
                   error::output_projection_wo_rows_must_equal_h_times_d_v<plain<4>, plain<2>>>);
static_assert(same<decltype(cxmat::multi_head_attention<2>(a24, a34, a44, a44, a44)),
                   error::projection_x_cols_must_equal_wq_rows<plain<4>, plain<3>>>);
static_assert(same<decltype(cxmat::multi_head_attention_qkv<3>(a24, a24, a24)),
                   error::multi_head_h_must_divide_q_width<3, plain<4>>>);

// An option that does not fit (a 3 x 3 mask on 2 x 2 scores) is no shape error of the matrices:
// no error overload takes the call, and the function's own constraint rejects it.
CXMAT_ASSERT_REJECTED([](const auto& q, const auto& m) {
  return !requires { cxmat::scaled_dot_product_attention(q, q, q, cxmat::mask(m)); };
}(a22, matrix<bool, 3, 3>{}));

// Batches: the two B agree; each item follows the unbatched rules.
constexpr batch<double, 2, 2, 3> b2x23{};
constexpr batch<double, 3, 3, 2> b3x32{};
constexpr batch<double, 2, 3, 2> b2x32{};
static_assert(!cxmat::BatchSizesMatch<extent{2}, extent{3}>);
CXMAT_ASSERT_REJECTED([](const auto& a, const auto& b) {
  return !requires { cxmat::matmul(a, b); }
  &&!requires { a* b; };
}(b2x23, b3x32));
static_assert([](const auto& a, const auto& b) {
  return requires { cxmat::matmul(a, b); }
  &&requires { a* b; };
}(b2x23, b2x32));
CXMAT_ASSERT_REJECTED([](const auto& x, const auto& w) {
  return !requires { x* w; }
  &&requires { x* cxmat::transpose(w); };
}(b2x23, a23));
static_assert(same<decltype(b2x23 * b3x32), error::batch_sizes_must_match<plain<2>, plain<3>>>);
static_assert(
    same<decltype(b2x23 * b2x23), error::matmul_a_cols_must_equal_b_rows<plain<2>, plain<3>, plain<2>, plain<3>>>);
static_assert(
    same<decltype(b2x23 * a23), error::matmul_a_cols_must_equal_b_rows<plain<2>, plain<3>, plain<2>, plain<3>>>);
static_assert(same<decltype(cxmat::scaled_dot_product_attention(b2x23, b3x32, b3x32)),
                   error::batch_sizes_must_match<plain<2>, plain<3>>>);
static_assert(same<decltype(cxmat::scaled_dot_product_attention(b2x23, b2x32, b2x32)),
                   error::attention_q_and_k_widths_must_match<plain<3>, plain<2>>>);
static_assert(same<decltype(cxmat::self_attention(b2x23, a23, a23, a23)),
                   error::projection_x_cols_must_equal_wq_rows<plain<3>, plain<2>>>);
static_assert(same<decltype(cxmat::multi_head_attention<2>(b2x23, a33, a33, a33)),
                   error::multi_head_h_must_divide_q_width<2, plain<3>>>);

// with_dims keeps the sizes.
CXMAT_ASSERT_REJECTED([](const auto& a) {
  return !requires { cxmat::with_dims<3, 2>(a); }
  &&requires { cxmat::with_dims<2, 3>(a); };
}(a23));
static_assert(same<decltype(cxmat::with_dims<3, 2>(a23)),
                   error::with_dims_must_keep_sizes_and_names<plain<2>, plain<3>, plain<3>, plain<2>>>);

#if CXMAT_PLAIN_ERRORS
// The hint of a matmul sentence is chosen from both operands' shapes and names only one fix:
// transpose(K) for Q·K, transpose(B) where B's columns fit A's, the swap for W·X, and
// CXMAT_DIM_EQUALS only where a product of names meets a name (never for d_k against n).
namespace hints {
CXMAT_DIM(n, 2);
CXMAT_DIM(m, 2);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);
CXMAT_DIM(d_model, 4);
template <auto R1, auto C1, auto R2, auto C2>
constexpr auto matmul_sentence =
    cxmat::detail::plain::matmul_inner<cxmat::dim_of<R1>, cxmat::dim_of<C1>, cxmat::dim_of<R2>, cxmat::dim_of<C2>>();
constexpr bool has(const cxmat::detail::plain::sentence& s, std::string_view part) noexcept {
  return std::string_view(s.data(), s.size()).find(part) != std::string_view::npos;
}
// Q·K in self-attention: both n x d_k.
constexpr auto qk = matmul_sentence<n, d_k, n, d_k>;
static_assert(has(qk, "matmul(Q, transpose(K))") && !has(qk, "CXMAT_DIM_EQUALS") && !has(qk, "matmul(B, A)"));
// X·transpose(Wk): n x d_model times d_k x d_model.
constexpr auto xwt = matmul_sentence<n, d_model, d_k, d_model>;
static_assert(has(xwt, "matmul(A, transpose(B))") && !has(xwt, "Q·Kᵀ") && !has(xwt, "matmul(B, A)"));
// Wq·X: d_model x d_k times n x d_model.
constexpr auto wx = matmul_sentence<d_model, d_k, n, d_model>;
static_assert(has(wx, "matmul(B, A)") && !has(wx, "transpose") && !has(wx, "CXMAT_DIM_EQUALS"));
// A square W_o transposed: n x 2*d_v times d_model x 2*d_v (d_model = 2*d_v = 4): the transpose,
// not CXMAT_DIM_EQUALS.
constexpr auto wo = matmul_sentence<n, cxmat::times_v<2, d_v>, d_model, cxmat::times_v<2, d_v>>;
static_assert(has(wo, "matmul(A, transpose(B))") && !has(wo, "CXMAT_DIM_EQUALS"));
// Concat(heads)·W_o where only the names differ and no transpose or swap fits: n x 2*d_v times
// d_model x d_k: here the names could be one dimension.
constexpr auto named = matmul_sentence<n, cxmat::times_v<2, d_v>, d_model, d_k>;
static_assert(has(named, "CXMAT_DIM_EQUALS") && !has(named, "transpose(B)") && !has(named, "matmul(B, A)"));
// Two plain operands of one shape (Q·K, or W_o·heads): both readings, not the Q·K fix alone.
constexpr auto same_plain =
    matmul_sentence<extent<anonymous>{2}, extent<anonymous>{4}, extent<anonymous>{2}, extent<anonymous>{4}>;
static_assert(has(same_plain, "or the operands are in the wrong order") && !has(same_plain, "write matmul(Q"));
// Heads stacked by rows (4 x 3: two 2 x 3 heads) times a 6 x 4 W_o: the swap fits too, so both.
constexpr auto stacked =
    matmul_sentence<extent<anonymous>{4}, extent<anonymous>{3}, extent<anonymous>{6}, extent<anonymous>{4}>;
static_assert(has(stacked, "write matmul(B, A)") && has(stacked, "stacked by rows (vconcat)"));
// d_k against n, with no transpose or swap that fits: no fix suggested at all.
constexpr auto plain_names = matmul_sentence<m, d_k, n, d_model>;
static_assert(!has(plain_names, "CXMAT_DIM_EQUALS") && !has(plain_names, "transpose") &&
              !has(plain_names, "matmul(B, A)") && has(plain_names, "d_k and n are different dimensions"));
}  // namespace hints
#endif

}  // namespace rules

// make_matrix: from braces or a 2-D array, T given (converted) or left out (kept); one template,
// so an explicit T with an array of that same type is not ambiguous.
namespace make_matrix_cases {
constexpr float weights[2][3] = {{1.5F, 2.0F, -3.0F}, {0.25F, 0.0F, 7.0F}};
constexpr auto as_float = cxmat::make_matrix<float>(weights);
constexpr auto as_double = cxmat::make_matrix<double>(weights);
constexpr auto as_is = cxmat::make_matrix(weights);
static_assert(std::is_same_v<decltype(as_float), const cxmat::matrix<float, 2, 3>>);
static_assert(std::is_same_v<decltype(as_double), const cxmat::matrix<double, 2, 3>>);
static_assert(std::is_same_v<decltype(as_is), const cxmat::matrix<float, 2, 3>>);
static_assert(as_float(0, 2) == -3.0F && as_double(1, 0) == 0.25 && as_is(1, 2) == 7.0F);
constexpr auto from_braces = cxmat::make_matrix<double>({{1, 2}, {3, 4}});
static_assert(std::is_same_v<decltype(from_braces), const cxmat::matrix<double, 2, 2>> && from_braces(1, 0) == 3.0);
constexpr auto ints = cxmat::make_matrix({{1, 2, 3}});
static_assert(std::is_same_v<decltype(ints), const cxmat::matrix<int, 1, 3>> && ints(0, 2) == 3);
}  // namespace make_matrix_cases
