// cxmat in one page: the compiler computes self-attention, the program only prints it.
#include <iostream>

#include <cxmat/cxmat.hpp>
#include <cxmat/io/print.hpp>

int main() {
  // Two tokens with two features each, and one head's projections (worksheet 001, head 1).
  constexpr cxmat::matrix<double, 2, 2> X{{{1, 2}, {3, 4}}};
  constexpr cxmat::matrix<double, 2, 2> Wq{{{1, 0}, {0, 1}}};
  constexpr cxmat::matrix<double, 2, 2> Wk{{{0, 1}, {1, 0}}};
  constexpr cxmat::matrix<double, 2, 2> Wv{{{1, 0}, {0, -1}}};

  // softmax(Q·Kᵀ/√d_k)·V, evaluated by the compiler: Z is a constant in the program's data.
  constexpr auto Z = cxmat::self_attention(X, Wq, Wk, Wv);
  static_assert(Z(0, 0) > 2.9716 && Z(0, 0) < 2.9717);

  // A shape mistake does not compile:
  //   cxmat::matmul(X, cxmat::matrix<double, 3, 2>{});  // X has 2 columns, the other 3 rows

  cxmat::print(std::cout, "Z = self_attention(X, Wq, Wk, Wv)", Z);
}
