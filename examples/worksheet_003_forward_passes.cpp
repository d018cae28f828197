// Worksheet 003: a single-head forward pass (part 3), the block view of multi-head attention
// (part 4) and a two-head forward pass from given Q, K, V and head outputs (part 5).
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>

namespace {

using cxmat::matrix;
using m22 = matrix<double, 2, 2>;
using m24 = matrix<double, 2, 4>;

namespace part3 {
constexpr m22 X{{{1, 1}, {0, 1}}};
constexpr m22 Wq{{{3, -1}, {1, 1}}}, Wk{{{2, -2}, {1, 3}}}, Wv{{{2, -2}, {0, 2}}}, Wo{{{2, 0}, {0, 1}}};
constexpr auto Q = X * Wq, K = X * Wk, V = X * Wv;
constexpr auto A = cxmat::attention_weights(Q, K);
constexpr m22 A_given{{{1.0, 0.0}, {0.5, 0.5}}};
constexpr auto Y_given = A_given * V * Wo;
constexpr auto Y_exact = cxmat::self_attention(X, Wq, Wk, Wv) * Wo;
}  // namespace part3

namespace part5 {
constexpr m24 Q{{{1, 2, 3, 4}, {5, 6, 7, 8}}}, K{{{2, 0, 1, 1}, {1, 3, 0, 2}}}, V{{{1, 0, 2, 1}, {3, 1, 0, 2}}};
constexpr auto q = cxmat::split_columns<2>(Q);
constexpr auto k = cxmat::split_columns<2>(K);
constexpr auto v = cxmat::split_columns<2>(V);
constexpr auto H = cxmat::hconcat(m22{{{1, 0}, {0, 1}}}, m22{{{2, 1}, {1, 2}}});
constexpr matrix<double, 4, 4> Wo{{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}}};
constexpr auto Y = H * Wo;
}  // namespace part5

}  // namespace

int main() {
  std::cout << "Part 3 (a)\n";
  cxmat::print(std::cout, "Q = X W(q)", part3::Q);
  cxmat::print(std::cout, "K = X W(k)", part3::K);
  cxmat::print(std::cout, "V = X W(v)", part3::V);
  std::cout << "Part 3 (b)\n";
  cxmat::print(std::cout, "Softmax(Q K^T / sqrt(d_k))", part3::A);
  cxmat::print(std::cout, "Y with the given weights [[1, 0], [0.5, 0.5]]", part3::Y_given);
  cxmat::print(std::cout, "Y with the exact weights", part3::Y_exact);
  std::cout << "\nPart 4: splitting Q = X[W0 | W1] equals [X W0 | X W1] (asserted in static_tests)\n";
  std::cout << "\nPart 5 (a)\n";
  cxmat::print(std::cout, "Q_0", part5::q[0]);
  cxmat::print(std::cout, "Q_1", part5::q[1]);
  cxmat::print(std::cout, "K_0", part5::k[0]);
  cxmat::print(std::cout, "K_1", part5::k[1]);
  cxmat::print(std::cout, "V_0", part5::v[0]);
  cxmat::print(std::cout, "V_1", part5::v[1]);
  std::cout << "Part 5 (b)\n";
  cxmat::print(std::cout, "H = Concat[H_0, H_1]", part5::H);
  cxmat::print(std::cout, "Y = H W(o)", part5::Y);
}
