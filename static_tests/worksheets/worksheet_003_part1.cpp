// Worksheet 003 part 1: the shapes of single-head attention on a batched input X (B x n x d),
// with d_k = d_v = d, answered by the types cxmat computes. Weights are shared by the batch;
// every activation carries B. The sizes are distinct (B = 2, n = 3, d = 4) so that sizes alone
// would catch a wrong answer; the names say which dimension is which.
#include <type_traits>

#include <cxmat/attention/batched.hpp>
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

#include "test_support/checks.hpp"
#include "test_support/worksheet_data.hpp"

namespace ws003_part1 {

CXMAT_DIM(B, 2);
CXMAT_DIM(n, 3);
CXMAT_DIM(d, 4);

using cxmat::batch;
using cxmat::matrix;

template <class A, class Expected>
inline constexpr bool is = std::is_same_v<std::remove_cvref_t<A>, Expected>;

constexpr batch<double, B, n, d> X{};
constexpr matrix<double, d, d> Wq{}, Wk{}, Wv{}, Wo{};

// (a) W^(q), W^(k), W^(v) are d x d (no B: one set of weights for the whole batch).
static_assert(is<decltype(Wq), matrix<double, d, d>> && cxmat::shape_text(Wq) == "4 x 4 (d x d)");

// (b) Q, K, V are B x n x d.
constexpr auto Q = X * Wq;
constexpr auto K = X * Wk;
constexpr auto V = X * Wv;
static_assert(is<decltype(Q), batch<double, B, n, d>> && is<decltype(K), batch<double, B, n, d>> &&
              is<decltype(V), batch<double, B, n, d>>);
static_assert(cxmat::shape_text(Q) == "2 x 3 x 4 (B x n x d)");

// (c) Q·Kᵀ, the scaled scores Q·Kᵀ/√d and the softmax (the attention weights) are B x n x n.
constexpr auto scores = Q * cxmat::transpose(K);
constexpr auto scaled = scores / 2.0;  // √d = 2
constexpr auto weights = cxmat::softmax_rows(scaled);
static_assert(is<decltype(cxmat::transpose(K)), batch<double, B, d, n>>);
static_assert(is<decltype(scores), batch<double, B, n, n>> && is<decltype(scaled), batch<double, B, n, n>> &&
              is<decltype(weights), batch<double, B, n, n>>);
static_assert(is<decltype(cxmat::attention_weights(Q, K)), batch<double, B, n, n>>);
static_assert(cxmat::shape_text(weights) == "2 x 3 x 3 (B x n x n)");

// (d) Y = softmax(...)·V is B x n x d, W^(o) is d x d, and Y·W^(o) is B x n x d.
constexpr auto Y = weights * V;
static_assert(is<decltype(Y), batch<double, B, n, d>>);
static_assert(is<decltype(cxmat::scaled_dot_product_attention(Q, K, V)), batch<double, B, n, d>>);
static_assert(is<decltype(Wo), matrix<double, d, d>>);
static_assert(is<decltype(Y * Wo), batch<double, B, n, d>>);
static_assert(is<decltype(cxmat::self_attention(X, Wq, Wk, Wv) * Wo), batch<double, B, n, d>>);

// The same shapes with numbers: two sequences, the first being part 3's X. Batched attention is
// per-sequence attention: item 0 equals part 3's forward pass (float64 reference), and the batched
// step-by-step form equals the one-call form.
namespace values {
namespace ws = worksheet_data::ws003;
CXMAT_DIM(n2, 2);
CXMAT_DIM(d2, 2);
constexpr auto x0 = cxmat::with_dims<n2, d2>(ws::X);
constexpr auto x1 = cxmat::with_dims<n2, d2>(matrix<double, 2, 2>{{{0, 2}, {1, -1}}});
constexpr batch<double, B, n2, d2> Xb{{x0, x1}};
constexpr auto wq = cxmat::with_dims<d2, d2>(ws::Wq), wk = cxmat::with_dims<d2, d2>(ws::Wk),
               wv = cxmat::with_dims<d2, d2>(ws::Wv), wo = cxmat::with_dims<d2, d2>(ws::Wo);

constexpr auto Yb = cxmat::self_attention(Xb, wq, wk, wv) * wo;
static_assert(is<decltype(Yb), batch<double, B, n2, d2>>);
static_assert(cxmat_test::matches_reference(Yb[0], ws::ref::Y));
static_assert(Yb[1] == cxmat::self_attention(x1, wq, wk, wv) * wo);

constexpr auto Qb = Xb * wq, Kb = Xb * wk, Vb = Xb * wv;
constexpr auto step_by_step = cxmat::softmax_rows(Qb * cxmat::transpose(Kb) / cxmat::sqrt(2.0)) * Vb;
static_assert(cxmat_test::matches_reference(step_by_step[0], cxmat::scaled_dot_product_attention(Qb, Kb, Vb)[0]));
static_assert(cxmat_test::matches_reference(step_by_step[1], cxmat::scaled_dot_product_attention(Qb, Kb, Vb)[1]));
static_assert(cxmat_test::matches_reference(cxmat::multi_head_attention<1>(Xb, wq, wk, wv, wo)[0], ws::ref::Y));
}  // namespace values

}  // namespace ws003_part1
