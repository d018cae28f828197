// The run-time checks of the supported coverage cells (test_support/coverage_cells.hpp) of the
// forms listed in CXMAT_COVERAGE_FORMS, which the including translation unit defines first (one
// unit per few forms: Clang's instantiation time grows faster than linearly with the number of
// distinct attention calls in one unit). Every input passes through at_run_time, so the
// run-time kernels compute each cell; the result is compared with numpy float64.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include "test_support/catch.hpp"
#include "test_support/coverage_cells.hpp"
#include "test_support/runtime_value.hpp"

namespace coverage_runtime {

namespace cov = cxmat_coverage;
namespace ref = cxmat_coverage::expected;

// A bound from the magnitudes, not from the results: inputs are within [-1, 1] and d_model = 4,
// so a projection (plus bias) is at most 5 in magnitude and a score at most 4·5·5 = 100 before
// scaling. Each dot product of length k <= 4 is within k·ε of the sum of its |terms|, which
// gives a score error below 400ε (a weight's relative error is that, plus (n + 4)ε from
// softmax, docs/performance.md); a head output (|v| <= 5) is then within 5·(408 + 4)ε, and W_o
// (4 rows, |w| <= 1) multiplies that by at most 4 plus its own 4·20ε. Hence 16384ε (3.6e-12)
// absolute, about twice that estimate, with (n + 4)ε relative for large elements.
inline constexpr double eps = std::numeric_limits<double>::epsilon();
inline constexpr cov::tolerance run_time_tol{(cov::keys + 4) * eps, 16384 * eps};

template <class T, cxmat::extent R, cxmat::extent C>
cxmat::matrix<T, R, C> hidden(const cxmat::matrix<T, R, C>& m) {
  return cxmat_test::at_run_time(m);
}
template <class T, cxmat::extent B, cxmat::extent R, cxmat::extent C>
cxmat::batch<T, B, R, C> hidden(const cxmat::batch<T, B, R, C>& b) {
  cxmat::batch<T, B, R, C> out{};
  for (std::size_t i = 0; i < B.size; ++i) out.items[i] = cxmat_test::at_run_time(b.items[i]);
  return out;
}
inline double hidden(double x) {
  volatile double v = x;
  return v;
}

/// The reference inputs, each value unknown to the optimiser.
inline cov::inputs run_time_inputs() {
  cov::inputs in = cov::reference_inputs;
  cov::for_each_input(in, [](auto& member) { member = hidden(member); });
  return in;
}

template <class F, class... Here>
inline constexpr bool checked_here = (std::is_same_v<F, Here> || ...);

template <class F>
inline constexpr bool here = checked_here<F, CXMAT_COVERAGE_FORMS>;

template <class F, class Opt, class E, class N>
void check_supported(const cov::inputs& in, const E& expected, const N& expected_output) {
  if constexpr (here<F>) {
    CHECK(cov::cell_matches<F, Opt>(in, expected, expected_output, run_time_tol));
  }
}

}  // namespace coverage_runtime

#define CXMAT_RUNTIME_SUPPORTED(form, option)                                                          \
  if constexpr (coverage_runtime::here<cxmat_coverage::forms::form>) {                                 \
    SECTION(#form " with " #option) {                                                                  \
      coverage_runtime::check_supported<cxmat_coverage::forms::form, cxmat_coverage::options::option>( \
          in, cxmat_coverage::expected::form##_##option, cxmat_coverage::expected::form##_none);       \
    }                                                                                                  \
  }
#define CXMAT_RUNTIME_IGNORED(...)

/// One test case per translation unit: every supported cell of its forms, one SECTION each.
#define CXMAT_RUNTIME_COVERAGE_TEST(name)                                                       \
  TEST_CASE("coverage matrix at run time: " name, "[coverage][attention]") {                    \
    const cxmat_coverage::inputs in = coverage_runtime::run_time_inputs();                      \
    CXMAT_COVERAGE_CELLS(CXMAT_RUNTIME_SUPPORTED, CXMAT_RUNTIME_IGNORED, CXMAT_RUNTIME_IGNORED) \
  }
