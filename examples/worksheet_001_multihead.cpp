// Worksheet 001: multi-head self-attention M = (head_1 ⊕ head_2)·W^O on a 2 x 2 input, with the
// heads given one by one as a Boost.Hana tuple. Computed by the compiler, printed at run time.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>

namespace {

using m22 = cxmat::matrix<double, 2, 2>;

constexpr m22 X{{{1, 2}, {3, 4}}};
constexpr auto heads = cxmat::make_heads(
    cxmat::attention_head{m22{{{1, 0}, {0, 1}}}, m22{{{0, 1}, {1, 0}}}, m22{{{1, 0}, {0, -1}}}},
    cxmat::attention_head{m22{{{0, 1}, {1, 0}}}, m22{{{1, 0}, {0, 1}}}, m22{{{0, 1}, {-1, 0}}}});
constexpr cxmat::matrix<double, 4, 2> Wo{{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}};

constexpr auto weights = cxmat::head_weights(X, heads);
constexpr auto outputs = cxmat::head_outputs(X, heads);
constexpr auto concat = cxmat::multi_head_attention(X, heads);
constexpr auto M = cxmat::multi_head_attention(X, heads, Wo);

}  // namespace

int main() {
  using boost::hana::size_c;
  cxmat::print(std::cout, "X", X);
  cxmat::print(std::cout, "head 1 weights softmax(Q1 K1^T / sqrt(2))", weights[size_c<0>]);
  cxmat::print(std::cout, "head_1", outputs[size_c<0>]);
  cxmat::print(std::cout, "head 2 weights softmax(Q2 K2^T / sqrt(2))", weights[size_c<1>]);
  cxmat::print(std::cout, "head_2", outputs[size_c<1>]);
  cxmat::print(std::cout, "head_1 (+) head_2", concat);
  cxmat::print(std::cout, "M = (head_1 (+) head_2) W^O", M);
}
