// The coverage matrix at run time: single-head, multi-head over Q, K, V, per-head form (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS \
  cov::forms::sdpa, cov::forms::self, cov::forms::mha_qkv, cov::forms::per_head, cov::forms::per_head_wo
#include "coverage_checks.hpp"

CXMAT_RUNTIME_COVERAGE_TEST("single-head, multi-head over Q, K, V, per-head form")
