// Cost guarantee: 40,000 calls of cxmat::exp(double) in ONE constant expression fit the
// compilers' default limits (Clang: -fconstexpr-steps=1048576, GCC: -fconstexpr-ops-limit=2^25).
// This target is compiled without any limit flags; building it is the test.
#include "cxmat/math.hpp"

namespace {

// A softmax-like sweep: arguments from -700 to 700, a quarter of them on the |x| >= 512 path.
constexpr double sum_of_exps(int n) {
  double sum = 0;
  double x = -700.0;
  for (int i = 0; i < n; ++i) {
    sum += cxmat::exp(x) * 0x1p-1000;
    x += 0.035;
  }
  return sum;
}

static_assert(sum_of_exps(40000) > 0);

}  // namespace
