// The compile-time checks of the coverage cells (test_support/coverage_cells.hpp) of the forms
// listed in CXMAT_COVERAGE_FORMS, which the including translation unit defines first. The cells
// are spread over several translation units because Clang's instantiation time grows faster
// than linearly with the number of distinct attention calls in one unit.
//   supported:   the constant result matches numpy float64 within 1e-9 relative;
//   rejected:    the call is not accepted, and decltype of the call names its shape_error;
//   no overload: overload resolution finds no function at all (no named error).
#pragma once

#include <type_traits>

#include "test_support/checks.hpp"
#include "test_support/coverage_cells.hpp"
#include "test_support/rejection.hpp"

namespace coverage {

namespace cov = cxmat_coverage;
namespace ref = cxmat_coverage::expected;

inline constexpr cov::tolerance compile_time_tol{cxmat_test::reference_rel_tol, cxmat_test::reference_abs_tol};

template <class F, class... Here>
inline constexpr bool checked_here = (std::is_same_v<F, Here> || ...);

template <class F>
inline constexpr bool here = checked_here<F, CXMAT_COVERAGE_FORMS>;

// Each check is instantiated only for the forms of this translation unit.
template <class F, class Opt, class E, class N>
constexpr bool supported_cell(const E& expected, const N& expected_output) {
  if constexpr (here<F>) {
    return cov::cell_matches<F, Opt>(cov::reference_inputs, expected, expected_output, compile_time_tol);
  } else {
    return true;
  }
}

template <class F, class Opt, template <class...> class Error>
constexpr bool rejected_cell() {
  if constexpr (here<F>) {
#if CXMAT_PLAIN_ERRORS
    // The error types are complete in plain-error mode (their static_assert is the sentence), so
    // the requires-probe would be the hard error itself (test_support/rejection.hpp); decltype of
    // the call still names the error without completing it.
    return cov::is_error<cov::call_t<F, Opt>, Error>;
#else
    return !cov::accepts<F, Opt> && cov::is_error<cov::call_t<F, Opt>, Error>;
#endif
  } else {
    return true;
  }
}

template <class F, class Opt>
constexpr bool no_overload_cell() {
  if constexpr (here<F>) {
    return !cov::resolves<F, Opt>;
  } else {
    return true;
  }
}

#define CXMAT_STATIC_SUPPORTED(form, option)                                                                    \
  static_assert(supported_cell<cov::forms::form, cov::options::option>(ref::form##_##option, ref::form##_none), \
                #form " with " #option " matches numpy");
#define CXMAT_STATIC_REJECTED(form, option, error)                                                  \
  static_assert(rejected_cell<cov::forms::form, cov::options::option, cxmat::shape_error::error>(), \
                #form " with " #option " is rejected with shape_error::" #error);
#define CXMAT_STATIC_NO_OVERLOAD(form, option)                              \
  static_assert(no_overload_cell<cov::forms::form, cov::options::option>(), \
                #form " with " #option ": no function matches (no named error)");

CXMAT_COVERAGE_CELLS(CXMAT_STATIC_SUPPORTED, CXMAT_STATIC_REJECTED, CXMAT_STATIC_NO_OVERLOAD)

#undef CXMAT_STATIC_SUPPORTED
#undef CXMAT_STATIC_REJECTED
#undef CXMAT_STATIC_NO_OVERLOAD

}  // namespace coverage
