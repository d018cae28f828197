// A shape the file does not hold: 3 columns asked, 2 in the file (the compiler prints the 2).
// Expect: (array subscript value [^0-9]+2[^0-9]+ is outside the bounds of array [^a-z]+the_file_has_other_columns_namely|element 2 of array of 1 element.*check_shape\(&"layers.0.linear1.weight"\[0\], 4, 3, 4, 2, false\))
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

#ifdef CXMAT_COMPILE_FAIL
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 4, 3>>(test_file_weights::bytes, "layers.0.linear1.weight");
#else
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 4, 2>>(test_file_weights::bytes, "layers.0.linear1.weight");
#endif
static_assert(w(0, 0) == -1.0F);
