// A name the file does not have (a typo: weights for weight).
// Expect: the_file_has_no_tensor_of_this_name
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

#ifdef CXMAT_COMPILE_FAIL
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 4, 2>>(test_file_weights::bytes, "layers.0.linear1.weights");
#else
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 4, 2>>(test_file_weights::bytes, "layers.0.linear1.weight");
#endif
static_assert(w(3, 1) == -0.125F);
