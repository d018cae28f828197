// An integer tensor (I64) is not a float matrix.
// Expect: the_tensor_in_the_file_is_not_F64_F32_F16_or_BF16
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

#ifdef CXMAT_COMPILE_FAIL
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<double, 1, 1>>(test_file_weights::bytes, "steps");
#else
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<double, 1, 1>>(test_file_weights::bytes, "name with \"quote\"");
#endif
static_assert(w(0, 0) == 7.0);
