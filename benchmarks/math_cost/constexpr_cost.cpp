// Harness for constexpr_cost.sh: CXMAT_COST_CALLS calls of one function in ONE constant
// expression. CXMAT_COST_KIND selects what is called per loop iteration:
//   0 exp(double), softmax-like arguments in [-20, 0]   1 exp(float), same arguments
//   2 exp(double) over [-700, 700] (a quarter on the |x| >= 512 path)
//   3 sqrt(double)   4 softmax element: exp(x - max) summed   5 nothing (loop overhead)
//   6 log(double), x in [1, 1000]   7 tanh(double), x in [-5, 5]   8 erf(double), x in [-5, 5]
//   9 sin(double), x in [-100, 100]   10 cos(double), same   11 sin(double), x in [1e20, 2e20]
//   (Payne-Hanek)   12 erf(float), x in [-5, 5]   13 sin(float), x in [-100, 100]
//   14 log(float), x in [1, 1000]   15 tanh(float), x in [-5, 5]   16 cos(float), x in [-100, 100]
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
  constexpr double lo =
      CXMAT_COST_KIND == 2                                                                              ? -700.0
      : CXMAT_COST_KIND == 6 || CXMAT_COST_KIND == 14                                                   ? 1.0
      : CXMAT_COST_KIND == 7 || CXMAT_COST_KIND == 8 || CXMAT_COST_KIND == 12 || CXMAT_COST_KIND == 15  ? -5.0
      : CXMAT_COST_KIND == 9 || CXMAT_COST_KIND == 10 || CXMAT_COST_KIND == 13 || CXMAT_COST_KIND == 16 ? -100.0
      : CXMAT_COST_KIND == 11                                                                           ? 1e20
                                                                                                        : -20.0;
  constexpr double width =
      CXMAT_COST_KIND == 2                                                                              ? 1400.0
      : CXMAT_COST_KIND == 6 || CXMAT_COST_KIND == 14                                                   ? 999.0
      : CXMAT_COST_KIND == 7 || CXMAT_COST_KIND == 8 || CXMAT_COST_KIND == 12 || CXMAT_COST_KIND == 15  ? 10.0
      : CXMAT_COST_KIND == 9 || CXMAT_COST_KIND == 10 || CXMAT_COST_KIND == 13 || CXMAT_COST_KIND == 16 ? 200.0
      : CXMAT_COST_KIND == 11                                                                           ? 1e20
                                                                                                        : 20.0;
  double x = lo;
  const double step = width / (n + 1);
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
#elif CXMAT_COST_KIND == 6
    sum += cxmat::log(x);
#elif CXMAT_COST_KIND == 7
    sum += cxmat::tanh(x);
#elif CXMAT_COST_KIND == 8
    sum += cxmat::erf(x);
#elif CXMAT_COST_KIND == 9 || CXMAT_COST_KIND == 11
    sum += cxmat::sin(x);
#elif CXMAT_COST_KIND == 10
    sum += cxmat::cos(x);
#elif CXMAT_COST_KIND == 12
    sum += static_cast<double>(cxmat::erf(static_cast<float>(x)));
#elif CXMAT_COST_KIND == 13
    sum += static_cast<double>(cxmat::sin(static_cast<float>(x)));
#elif CXMAT_COST_KIND == 14
    sum += static_cast<double>(cxmat::log(static_cast<float>(x)));
#elif CXMAT_COST_KIND == 15
    sum += static_cast<double>(cxmat::tanh(static_cast<float>(x)));
#elif CXMAT_COST_KIND == 16
    sum += static_cast<double>(cxmat::cos(static_cast<float>(x)));
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
