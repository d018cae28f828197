// The coverage matrix at compile time: grouped-query attention with W_o (one form per translation unit: see
// coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::gqa_wo
#include "coverage_checks.hpp"
