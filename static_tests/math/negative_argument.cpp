// Compile-fail test (with its passing twin): cxmat::sqrt or cxmat::log (CXMAT_TEST_FN) of a
// negative number in a constant expression must not compile, and the error must name the
// problem. CMake builds this file with CXMAT_TEST_ARG=-2.0 (must fail with
// <fn>_of_negative_number_in_constant_expression in the diagnostic) and with
// CXMAT_TEST_ARG=2.0 (must build).
#include "cxmat/math.hpp"

constexpr double value = cxmat::CXMAT_TEST_FN(CXMAT_TEST_ARG);
static_assert(value == value);
