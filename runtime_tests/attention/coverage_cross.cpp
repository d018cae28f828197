// The coverage matrix at run time: multi-head cross-attention (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::cross
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("multi-head cross-attention")
