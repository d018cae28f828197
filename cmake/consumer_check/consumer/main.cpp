// A program outside the cxmat tree, built against the installed package.
#include <cxmat/cxmat.hpp>

constexpr cxmat::matrix<double, 2, 2> a{{{1, 2}, {3, 4}}};
static_assert(cxmat::matmul(a, cxmat::identity<double, 2>()) == a);

int main() {
  const auto w = cxmat::attention_weights(a, a);
  const double row_sum = w(0, 0) + w(0, 1);
  return (row_sum > 0.999999 && row_sum < 1.000001) ? 0 : 1;
}
