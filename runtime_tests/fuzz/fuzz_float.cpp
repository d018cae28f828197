// The float half of the differential fuzz (see fuzz_cases.hpp).
#include "fuzz_cases.hpp"

namespace cxmat_fuzz {

void run_case_float(source& src, report& rep, focus f) { run_typed_case<float>(src, rep, f); }

}  // namespace cxmat_fuzz
