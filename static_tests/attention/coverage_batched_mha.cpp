// The coverage matrix at compile time: batched block multi-head self-attention without W_o (one form per translation
// unit: see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_mha
#include "coverage_checks.hpp"
