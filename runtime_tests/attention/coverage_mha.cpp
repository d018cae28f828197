// The coverage matrix at run time: block multi-head self-attention without W_o (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::mha
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("block multi-head self-attention without W_o")
