// The coverage matrix of attention forms x options (test_support/coverage_cells.hpp, shown in
// docs/coverage.md) at compile time: single-head, multi-head over given Q, K, V and the per-head
// form here; the other forms in coverage_*.cpp (see coverage_checks.hpp).
#define CXMAT_COVERAGE_FORMS \
  cov::forms::sdpa, cov::forms::self, cov::forms::mha_qkv, cov::forms::per_head, cov::forms::per_head_wo
#include "coverage_checks.hpp"

namespace coverage {

// The probes can fail: a supported cell is accepted and resolves; a rejected one resolves (to its
// named error) but is not accepted, and its error is not just any shape_error.
static_assert(cov::accepts<cov::forms::mha_wo, cov::options::output_bias> &&
              cov::resolves<cov::forms::mha_wo, cov::options::output_bias>);
static_assert(cov::resolves<cov::forms::mha, cov::options::output_bias>);
CXMAT_ASSERT_REJECTED(!cov::accepts<cov::forms::mha, cov::options::output_bias>);
static_assert(!cov::is_error<cov::call_t<cov::forms::mha, cov::options::output_bias>,
                             cxmat::shape_error::batch_key_padding_needs_a_batch>);
// ... and a wrong reference is caught: the bias cell's numbers are not the mask cell's.
static_assert(!cov::cell_matches<cov::forms::sdpa, cov::options::mask>(cov::reference_inputs, ref::sdpa_bias,
                                                                       ref::sdpa_none, compile_time_tol));

}  // namespace coverage
