// The file's bytes by #embed (C23, and C++ in clang++ 19 as an extension) instead of a generated
// header: the same bytes, the same tensors. Compiled where the compiler has #embed.
#include <cstddef>

#include <cxmat/core/matrix.hpp>
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

#if defined(__has_embed)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
namespace {

constexpr unsigned char embedded[] = {
#embed "test_file.safetensors"
};
#pragma clang diagnostic pop

constexpr bool same_bytes() {
  if (sizeof(embedded) != sizeof(test_file_weights::bytes)) return false;
  for (std::size_t i = 0; i < sizeof(embedded); ++i) {
    if (embedded[i] != test_file_weights::bytes[i]) return false;
  }
  return true;
}
static_assert(same_bytes());
static_assert(cxmat::safetensors::load_transposed<cxmat::matrix<float, 2, 4>>(embedded, "layers.0.linear1.weight")(1,
                                                                                                                   3) ==
              -0.125F);

}  // namespace
#endif
