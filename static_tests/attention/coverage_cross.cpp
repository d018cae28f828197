// The coverage matrix at compile time: multi-head cross-attention (one form per translation unit: see
// coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::cross
#include "coverage_checks.hpp"
