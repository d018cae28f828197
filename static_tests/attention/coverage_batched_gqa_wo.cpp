// The coverage matrix at compile time: batched grouped-query attention with W_o (one form per translation unit: see
// coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_gqa_wo
#include "coverage_checks.hpp"
