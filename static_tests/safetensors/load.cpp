// cxmat::safetensors::load at compile time, on the file make_file.py writes (values exact in their
// dtypes, so every check is ==; the expected values are make_file.py's, typed here by hand).
#include <bit>
#include <cstdint>

#include <cxmat/core/matrix.hpp>
#include <cxmat/io/safetensors.hpp>

#include "test_file.hpp"

namespace {

using cxmat::matrix;
namespace st = cxmat::safetensors;
constexpr const auto& file = test_file_weights::bytes;

// As stored (PyTorch's out x in) and transposed (in x out, for x·W).
static_assert(st::load<matrix<float, 4, 2>>(file, "layers.0.linear1.weight") ==
              matrix<float, 4, 2>{{{-1.0F, -0.875F}, {-0.75F, -0.625F}, {-0.5F, -0.375F}, {-0.25F, -0.125F}}});
static_assert(st::load_transposed<matrix<double, 2, 4>>(file, "layers.0.linear1.weight") ==
              matrix<double, 2, 4>{{{-1.0, -0.75, -0.5, -0.25}, {-0.875, -0.625, -0.375, -0.125}}});
// A 1-D tensor is a row.
static_assert(st::load<matrix<float, 1, 4>>(file, "layers.0.linear1.bias") ==
              matrix<float, 1, 4>{{{0.5F, -0.25F, 2.0F, 3.0F}}});
// float16: subnormal, largest finite, negative zero (its sign kept), bfloat16, float64.
constexpr auto half = st::load<matrix<float, 2, 3>>(file, "half");
static_assert(half ==
              matrix<float, 2, 3>{{{3 * 5.9604644775390625e-08F, 65504.0F, 0.0F}, {-1.5F, 0.0999755859375F, 1024.0F}}});
static_assert(std::bit_cast<std::uint32_t>(half(0, 2)) == 0x80000000U);
static_assert(st::load<matrix<double, 1, 2>>(file, "bf") == matrix<double, 1, 2>{{{1.5, -2.0}}});
static_assert(st::load<matrix<double, 2, 2>>(file, "wide") == matrix<double, 2, 2>{{{0.1, 0.2}, {0.3, 0.4}}});
// Escaped names, and the entries as find reads them.
static_assert(st::load<matrix<float, 1, 1>>(file, "name with \"quote\"")(0, 0) == 7.0F);
static_assert(!st::find(file, "missing").found && !st::find(file, "__metadata__").found);
static_assert(!st::find(file, "hal").found && !st::find(file, "halfs").found && !st::find(file, "").found);
static_assert(st::find(file, "steps").found && st::find(file, "steps").type == st::dtype::other &&
              st::find(file, "steps").rank == 0);
static_assert(st::find(file, "half").type == st::dtype::F16 && st::find(file, "half").rows == 2 &&
              st::find(file, "half").cols == 3);

}  // namespace
