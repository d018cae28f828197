// A shape the file does not hold: 3 rows asked, 4 in the file (the compiler prints the 4).
// Expect: (array subscript value [^0-9]+4[^0-9]+ is outside the bounds of array [^a-z]+the_file_has_other_rows_namely|element 4 of array of 1 element.*check_shape\(&"layers.0.linear1.weight"\[0\], 3, 2, 4, 2, false\))
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

#ifdef CXMAT_COMPILE_FAIL
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 3, 2>>(test_file_weights::bytes, "layers.0.linear1.weight");
#else
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 4, 2>>(test_file_weights::bytes, "layers.0.linear1.weight");
#endif
static_assert(w(0, 0) == -1.0F);
