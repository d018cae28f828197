// The coverage matrix at run time: batched grouped-query attention with W_o (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_gqa_wo
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("batched grouped-query attention with W_o")
