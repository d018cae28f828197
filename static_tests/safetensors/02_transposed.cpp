// PyTorch stores nn.Linear's weight out x in; the in x out matrix is load_transposed's.
// Expect: the_tensor_in_the_file_is_the_transpose_use_load_transposed
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

#ifdef CXMAT_COMPILE_FAIL
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 2, 4>>(test_file_weights::bytes, "layers.0.linear1.weight");
#else
constexpr auto w = cxmat::safetensors::load_transposed<cxmat::matrix<float, 2, 4>>(test_file_weights::bytes, "layers.0.linear1.weight");
#endif
static_assert(w(1, 3) == -0.125F);
