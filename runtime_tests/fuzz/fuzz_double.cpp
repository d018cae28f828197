// The double half of the differential fuzz (see fuzz_cases.hpp).
#include "fuzz_cases.hpp"

namespace cxmat_fuzz {

void run_case_double(source& src, report& rep, focus f) { run_typed_case<double>(src, rep, f); }

}  // namespace cxmat_fuzz
