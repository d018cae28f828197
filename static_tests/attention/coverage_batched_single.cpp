// The coverage matrix at compile time: batched single-head attention and self-attention (one form per translation unit:
// see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_sdpa, cov::forms::b_self
#include "coverage_checks.hpp"
