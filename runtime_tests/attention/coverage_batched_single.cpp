// The coverage matrix at run time: batched single-head attention and self-attention (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS cov::forms::b_sdpa, cov::forms::b_self
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("batched single-head attention and self-attention")
