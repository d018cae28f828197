// An F64 tensor into float elements would round the values: load it into double.
// Expect: the_tensor_in_the_file_is_F64_which_would_be_rounded_to_float
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

#ifdef CXMAT_COMPILE_FAIL
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 2, 2>>(test_file_weights::bytes, "wide");
#else
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<double, 2, 2>>(test_file_weights::bytes, "wide");
#endif
static_assert(w(0, 0) > 0);
