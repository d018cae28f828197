// The coverage matrix at run time: batched block multi-head self-attention without W_o (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_mha
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("batched block multi-head self-attention without W_o")
