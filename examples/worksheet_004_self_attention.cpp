// Worksheet 004: self-attention of 5 tokens of width 6 with one head and with three heads, and
// what happens when two tokens swap places. All computed by the compiler.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>

namespace {

using m56 = cxmat::matrix<double, 5, 6>;
using m66 = cxmat::matrix<double, 6, 6>;

constexpr m56 X{{{0.7, -0.8, -1.2, -1., -0., -0.3},
                 {2.7, 0.1, 1.6, 1.8, 1.5, 0.3},
                 {0.1, 2.6, -0.1, -1.3, -0.5, -0.7},
                 {1.1, 1.5, 1., -0.5, 0.4, 0.4},
                 {-0.7, -0.7, 0.7, -1.5, -0.8, 1.}}};
constexpr m66 Wq{{{-1.7, 1.6, 0.9, -0.5, 0.4, -1.},
                  {-0.4, 1., -0.3, 1., 0.5, 1.1},
                  {0.4, -0.9, -1., 0.5, -1.4, 0.},
                  {0.3, 1.4, -1.2, 0.2, 0.1, 1.6},
                  {-0.8, 0.8, -0.7, -1.3, 0.3, 0.8},
                  {1.1, 0.3, -1.5, -2.3, 2.2, -0.7}}};
constexpr m66 Wk{{{0.3, -0.4, -1.3, 0.3, -1.7, 1.1},
                  {-2.3, -1.1, 0.6, -1.2, 2.2, 0.3},
                  {1.1, -0.4, -0.5, 1.9, -1.1, -1.2},
                  {-0.4, 1., -1.7, 0., -3.3, -1.4},
                  {-0.9, -1.1, -1., 1.4, 1.3, 1.2},
                  {-0.7, 0.4, 0.4, -1.4, -0.2, -0.5}}};
constexpr m66 Wv{{{-0.1, 0.7, 1., -0.1, 1.6, 0.9},
                  {0.4, -1., -0.7, -0.6, -0.9, -0.1},
                  {-0.4, 0.5, -1.4, 0.1, 0.6, 0.4},
                  {1.4, -1.3, -1.3, -0.6, 1.6, -0.2},
                  {-0.4, -0.6, -1.4, -1., 0.4, -0.8},
                  {0.2, 0.5, 0.4, -0.5, 1.4, 2.3}}};

constexpr auto one_head = cxmat::multi_head_attention_with_weights<1>(X, Wq, Wk, Wv);
constexpr auto three_heads = cxmat::multi_head_attention_with_weights<3>(X, Wq, Wk, Wv);
constexpr auto Xp = cxmat::permute_rows<1, 0, 2, 3, 4>(X);
constexpr auto three_heads_p = cxmat::multi_head_attention_with_weights<3>(Xp, Wq, Wk, Wv);

}  // namespace

int main() {
  const cxmat::print_options out_fmt{1, false};
  const cxmat::print_options w_fmt{1, true};
  std::cout << "H = 1\n";
  cxmat::print(std::cout, "Self-Attention Output", one_head.output, out_fmt);
  cxmat::print(std::cout, "Self-Attention Matrix", one_head.weights[0], w_fmt);
  std::cout << "\nH = 3\n";
  cxmat::print(std::cout, "Self-Attention Output", three_heads.output, out_fmt);
  cxmat::print(std::cout, "Self-Attention Weights", three_heads.weights, w_fmt);
  std::cout << "\nThe first two tokens swapped, H = 3: the output rows swap too\n";
  cxmat::print(std::cout, "X after permutation", Xp, out_fmt);
  cxmat::print(std::cout, "Self-Attention Output", three_heads_p.output, out_fmt);
  cxmat::print(std::cout, "Self-Attention Weights", three_heads_p.weights, w_fmt);
}
