// The coverage matrix at compile time: batched multi-head cross-attention (one form per translation unit: see
// coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_cross
#include "coverage_checks.hpp"
