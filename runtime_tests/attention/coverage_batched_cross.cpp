// The coverage matrix at run time: batched multi-head cross-attention (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_cross
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("batched multi-head cross-attention")
