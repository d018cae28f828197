// The coverage matrix at run time: grouped-query attention without W_o (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::gqa
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("grouped-query attention without W_o")
