// Worksheet 003 part 1 as a table: the shapes of single-head attention on a batched input X
// (B x n x d, d_k = d_v = d), computed by the compiler and printed with their names. The weights
// are shared by the batch; everything computed from X carries B.
#include <cstdio>

#include <cxmat/attention/batched.hpp>
#include <cxmat/cxmat.hpp>
#include <cxmat/io/shape_text.hpp>

CXMAT_DIM(B, 2);
CXMAT_DIM(n, 3);
CXMAT_DIM(d_model, 4);

namespace {

template <class M>
void row(const char* what, const M& m) {
  std::printf("  %-30s %s\n", what, cxmat::shape_text(m).data());
}

}  // namespace

int main() {
  using cxmat::batch;
  using cxmat::matrix;
  // Two sequences of three tokens, embedding width 4 (the values only make the run real).
  constexpr batch<double, B, n, d_model> X{{matrix<double, n, d_model>{{{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}}},
                                            matrix<double, n, d_model>{{{0, 0, 1, 1}, {1, 0, 1, 0}, {0, 1, 0, 1}}}}};
  constexpr auto W = cxmat::identity<double, d_model>();
  constexpr auto Wq = W, Wk = W * 2.0, Wv = W * 0.5, Wo = W;

  std::printf("Worksheet 003 part 1 (B = 2, n = 3, d = 4):\n");
  row("(a) W_q, W_k, W_v", Wq);
  const auto Q = X * Wq;
  const auto K = X * Wk;
  const auto V = X * Wv;
  row("(b) Q, K, V", Q);
  const auto scores = Q * cxmat::transpose(K);
  const auto scaled = scores / 2.0;  // sqrt(d) = 2
  const auto weights = cxmat::softmax_rows(scaled);
  row("(c) Q K^T", scores);
  row("    Q K^T / sqrt(d)", scaled);
  row("    softmax(Q K^T / sqrt(d))", weights);
  const auto Y = weights * V;
  row("(d) Y", Y);
  row("    W_o", Wo);
  row("    Y W_o", Y * Wo);

  // The step-by-step batch is the library's batched attention, sequence by sequence.
  const auto Y_library = cxmat::scaled_dot_product_attention(Q, K, V);
  const bool ok = cxmat::approx_equal(Y[0], Y_library[0], 1e-12) && cxmat::approx_equal(Y[1], Y_library[1], 1e-12);
  std::printf("step by step equals scaled_dot_product_attention on the batch: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
