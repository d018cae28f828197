// A file cut short: the header names data past the end of the bytes.
// Expect: the_data_of_the_tensor_lies_outside_the_file
#include <cstddef>

#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

// The first Size bytes of the file, in an array of Size bytes.
template <std::size_t Size>
struct first_bytes {
  unsigned char bytes[Size];
};
template <std::size_t Size>
constexpr first_bytes<Size> cut() {
  first_bytes<Size> out{};
  for (std::size_t i = 0; i < Size; ++i) out.bytes[i] = test_file_weights::bytes[i];
  return out;
}

#ifdef CXMAT_COMPILE_FAIL
constexpr auto file = cut<sizeof(test_file_weights::bytes) - 4>();
#else
constexpr auto file = cut<sizeof(test_file_weights::bytes)>();
#endif
constexpr auto w = cxmat::safetensors::load<cxmat::matrix<float, 1, 1>>(file.bytes, "name with \"quote\"");
static_assert(w(0, 0) == 7.0F);
