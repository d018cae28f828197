// Harness for constexpr_cost.sh: CXMAT_COST_CALLS calls of one function in ONE constant
// expression. CXMAT_COST_KIND selects what is called per loop iteration:
//   0 exp(double), softmax-like arguments in [-20, 0]   1 exp(float), same arguments
//   2 exp(double) over [-700, 700] (a quarter on the |x| >= 512 path)
//   3 sqrt(double)   4 softmax element: exp(x - max) summed   5 nothing (loop overhead)
#include "cxmat/math.hpp"

#ifndef CXMAT_COST_CALLS
#define CXMAT_COST_CALLS 1000
#endif
#ifndef CXMAT_COST_KIND
#define CXMAT_COST_KIND 0
#endif

namespace {

constexpr double run(int n) {
  double sum = 0;
  double x = CXMAT_COST_KIND == 2 ? -700.0 : -20.0;
  const double step = CXMAT_COST_KIND == 2 ? 1400.0 / (n + 1) : 20.0 / (n + 1);
  const double max = 0.5;
  for (int i = 0; i < n; ++i) {
#if CXMAT_COST_KIND == 0 || CXMAT_COST_KIND == 2
    sum += cxmat::exp(x);
#elif CXMAT_COST_KIND == 1
    sum += static_cast<double>(cxmat::exp(static_cast<float>(x)));
#elif CXMAT_COST_KIND == 3
    sum += cxmat::sqrt(x + 21.0);
#elif CXMAT_COST_KIND == 4
    sum += cxmat::exp(x - max);
#else
    sum += x;
#endif
    x += step;
  }
  return sum;
}

constexpr double result = run(CXMAT_COST_CALLS);
static_assert(result == result);

}  // namespace
