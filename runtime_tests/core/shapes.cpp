// Shapes at run time: the text of a shape (with names) as print.hpp writes it, and batched
// attention computed at run time against the unbatched functions, with checks written once as
// constexpr functions and run in both modes.
#include <sstream>
#include <string>

#include <cxmat/attention/batched.hpp>
#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>
#include <cxmat/io/shape_text.hpp>

#include "test_support/catch.hpp"
#include "test_support/checks.hpp"
#include "test_support/runtime_value.hpp"
#include "test_support/worksheet_data.hpp"

namespace {

CXMAT_DIM(B, 2);
CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 2);

using cxmat::batch;
using cxmat::matrix;
namespace ws = worksheet_data::ws003;

// Batched self-attention is per-sequence self-attention, item by item, and the step-by-step
// batched formula gives the same result (within the reference tolerance).
template <class X, class W>
constexpr bool batched_attention_is_per_item(const X& x, const W& wq, const W& wk, const W& wv) {
  const auto y = cxmat::self_attention(x, wq, wk, wv);
  const auto q = x * wq;
  const auto k = x * wk;
  const auto v = x * wv;
  const auto by_steps = cxmat::softmax_rows(q * cxmat::transpose(k) / cxmat::sqrt(2.0)) * v;
  for (std::size_t b = 0; b < X::count; ++b) {
    if (!(y[b] == cxmat::self_attention(x[b], wq, wk, wv))) return false;
    if (!cxmat_test::matches_reference(by_steps[b], y[b])) return false;
  }
  return true;
}

constexpr auto x0 = cxmat::with_dims<n, d_model>(ws::X);
constexpr auto x1 = cxmat::with_dims<n, d_model>(matrix<double, 2, 2>{{{0, 2}, {1, -1}}});
constexpr batch<double, B, n, d_model> X{{x0, x1}};
constexpr auto Wq = cxmat::with_dims<d_model, d_model>(ws::Wq);
constexpr auto Wk = cxmat::with_dims<d_model, d_model>(ws::Wk);
constexpr auto Wv = cxmat::with_dims<d_model, d_model>(ws::Wv);
static_assert(batched_attention_is_per_item(X, Wq, Wk, Wv));

}  // namespace

TEST_CASE("shape_of names the dimensions", "[shapes]") {
  CHECK(cxmat::shape_of(x0) == "2 x 2 (n x d_model)");
  CHECK(cxmat::shape_of(X) == "2 x 2 x 2 (B x n x d_model)");
  CHECK(cxmat::shape_of(ws::X) == "2 x 2");
  CHECK(cxmat::shape_of(cxmat::hconcat(x0, x1)) == "2 x 4 (n x 2*d_model)");
  std::ostringstream os;
  cxmat::print(os, "X", X);
  CHECK(os.str().rfind("X (2 x 2 x 2 (B x n x d_model)):\n", 0) == 0);
}

TEST_CASE("batched attention at run time is per-sequence attention", "[shapes][batch]") {
  const batch<double, B, n, d_model> x{{cxmat_test::at_run_time(x0), cxmat_test::at_run_time(x1)}};
  const auto wq = cxmat_test::at_run_time(Wq), wk = cxmat_test::at_run_time(Wk), wv = cxmat_test::at_run_time(Wv);
  CHECK(batched_attention_is_per_item(x, wq, wk, wv));
  // Item 0 is worksheet 003 part 3: its forward pass matches the numpy reference.
  const auto wo = cxmat_test::at_run_time(cxmat::with_dims<d_model, d_model>(ws::Wo));
  const auto y = cxmat::self_attention(x, wq, wk, wv) * wo;
  CHECK(cxmat_test::matches_reference(y[0], ws::ref::Y));
  // The same code gives the same result at compile time (the run-time exp may differ in the last
  // bits, hence a tolerance).
  constexpr auto y_constexpr = cxmat::self_attention(X, Wq, Wk, Wv);
  const auto y_runtime = cxmat::self_attention(x, wq, wk, wv);
  CHECK(cxmat::approx_equal(y_runtime[0], y_constexpr[0], 1e-13));
  CHECK(cxmat::approx_equal(y_runtime[1], y_constexpr[1], 1e-13));
}
