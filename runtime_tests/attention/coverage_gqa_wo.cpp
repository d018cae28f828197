// The coverage matrix at run time: grouped-query attention with W_o (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::gqa_wo
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("grouped-query attention with W_o")
