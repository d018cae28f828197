// The shape of every intermediate of a multi-head attention layer (block form, the sizes of
// worksheet 003 part 5: n = 2 tokens, d_model = 4, H = 2 heads of width 2), printed twice by the
// same code: with plain sizes, where every 2 looks alike, and with named dimensions, where each
// shape says which dimension is which.
#include <cstdio>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(n, 2);
CXMAT_DIM(d_model, 4);
CXMAT_DIM(d_k, 2);
CXMAT_DIM(d_v, 2);

namespace {

template <class M>
void show(const char* label, const M& m) {
  std::printf("  %-34s %s\n", label, cxmat::shape_text(m).data());
}

// One layer, step by step, for any X, W_q, W_k, W_v (d_model x H·d_k, H·d_v) and W_o; prints each
// shape and returns the output.
template <class X, class Wq, class Wk, class Wv, class Wo>
auto layer(const X& x, const Wq& wq, const Wk& wk, const Wv& wv, const Wo& wo) {
  show("X", x);
  show("W_q, W_k", wq);
  show("W_v", wv);
  const auto q = x * wq;
  const auto k = x * wk;
  const auto v = x * wv;
  show("Q = X W_q, K = X W_k", q);
  show("V = X W_v", v);
  const auto qh = cxmat::split_columns<2>(q);
  const auto kh = cxmat::split_columns<2>(k);
  const auto vh = cxmat::split_columns<2>(v);
  show("Q_h, K_h (column block h)", qh[0]);
  show("V_h", vh[0]);
  show("K_h^T", cxmat::transpose(kh[0]));
  show("scores Q_h K_h^T / sqrt(d_k)", cxmat::attention_scores(qh[0], kh[0]));
  show("weights softmax(scores)", cxmat::attention_weights(qh[0], kh[0]));
  const auto h0 = cxmat::scaled_dot_product_attention(qh[0], kh[0], vh[0]);
  const auto h1 = cxmat::scaled_dot_product_attention(qh[1], kh[1], vh[1]);
  show("head h = weights V_h", h0);
  const auto concat = cxmat::hconcat(h0, h1);
  show("Concat(head_0, head_1)", concat);
  show("W_o", wo);
  const auto y = concat * wo;
  show("Y = Concat W_o", y);
  return y;
}

}  // namespace

int main() {
  constexpr cxmat::matrix<double, 2, 4> x{{{1, 0, 1, 0}, {0, 2, 0, 1}}};
  constexpr cxmat::matrix<double, 4, 4> wq{{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}}};
  constexpr cxmat::matrix<double, 4, 4> wk{{{0, 1, 1, 0}, {1, 0, 0, 1}, {0, 0, 1, 1}, {1, 1, 0, 0}}};
  constexpr cxmat::matrix<double, 4, 4> wv{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
  constexpr cxmat::matrix<double, 4, 4> wo{{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}}};

  std::printf("Plain sizes:\n");
  const auto y_plain = layer(x, wq, wk, wv, wo);

  // The same numbers with names: W_q is d_model x (2·d_k), W_o is (2·d_v) x d_model.
  using cxmat::times_v;
  using cxmat::with_dims;
  std::printf("\nNamed dimensions:\n");
  const auto y_named =
      layer(with_dims<n, d_model>(x), with_dims<d_model, times_v<2, d_k>>(wq), with_dims<d_model, times_v<2, d_k>>(wk),
            with_dims<d_model, times_v<2, d_v>>(wv), with_dims<times_v<2, d_v>, d_model>(wo));

  // Names change the types, not the numbers; and the step-by-step layer is multi_head_attention.
  const auto y_library = cxmat::multi_head_attention<2>(x, wq, wk, wv, wo);
  const bool ok = y_named == y_plain && cxmat::approx_equal(y_plain, y_library, 1e-12);
  std::printf("\nsame output with and without names, and as multi_head_attention<2>: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
