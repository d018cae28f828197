// Integer products never wrap silently: matmul and * accumulate in cxmat::accumulator_t<T>,
// which is also the result's element type, and an accumulator that overflows in a constant
// expression makes the expression not constant. Expected values are worked by hand.
#include <cstdint>
#include <type_traits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/ops/arithmetic.hpp>

namespace {

using cxmat::accumulator_t;
using cxmat::matrix;

static_assert(std::is_same_v<accumulator_t<std::int8_t>, std::int32_t>);
static_assert(std::is_same_v<accumulator_t<std::uint8_t>, std::int32_t>);
static_assert(std::is_same_v<accumulator_t<std::int16_t>, std::int64_t>);
static_assert(std::is_same_v<accumulator_t<std::uint16_t>, std::int64_t>);
static_assert(std::is_same_v<accumulator_t<std::int32_t>, std::int64_t>);
static_assert(std::is_same_v<accumulator_t<std::uint32_t>, std::int64_t>);
static_assert(std::is_same_v<accumulator_t<std::int64_t>, std::int64_t>);
static_assert(std::is_same_v<accumulator_t<float>, float>);
static_assert(std::is_same_v<accumulator_t<double>, double>);
static_assert(std::is_same_v<accumulator_t<long double>, long double>);

// int8: 4 · 127 · 127 = 64516 and 4 · (-128) · 127 = -65024, far outside int8 and int16.
constexpr auto a8 = [] {
  matrix<std::int8_t, 2, 4> m{};
  for (std::size_t k = 0; k < 4; ++k) {
    m.elems[0][k] = 127;
    m.elems[1][k] = -128;
  }
  return m;
}();
constexpr auto b8 = [] {
  matrix<std::int8_t, 4, 1> m{};
  for (std::size_t k = 0; k < 4; ++k) m.elems[k][0] = 127;
  return m;
}();
constexpr auto p8 = cxmat::matmul(a8, b8);
static_assert(std::is_same_v<decltype(p8), const matrix<std::int32_t, 2, 1>>);
static_assert(p8.elems[0][0] == 64516 && p8.elems[1][0] == -65024);
static_assert((a8 * b8).elems[1][0] == -65024);

// uint16: one product 65535 · 65535 = 4294836225 already exceeds int32; three of them,
// 12884508675, exceed uint32.
constexpr auto a16 = [] {
  matrix<std::uint16_t, 1, 3> m{};
  for (std::size_t k = 0; k < 3; ++k) m.elems[0][k] = 65535;
  return m;
}();
constexpr auto b16 = [] {
  matrix<std::uint16_t, 3, 1> m{};
  for (std::size_t k = 0; k < 3; ++k) m.elems[k][0] = 65535;
  return m;
}();
static_assert(cxmat::matmul(a16, b16).elems[0][0] == 12884508675);

// int32 -> int64: (2^31 - 1)^2 · 2 = 9223372028264841218 fits int64 (max 9223372036854775807);
// a third such term does not.
template <std::size_t K>
constexpr matrix<std::int32_t, 1, K> full_scale_row() {
  matrix<std::int32_t, 1, K> m{};
  for (std::size_t k = 0; k < K; ++k) m.elems[0][k] = 2147483647;
  return m;
}
template <std::size_t K>
constexpr matrix<std::int32_t, K, 1> full_scale_column() {
  matrix<std::int32_t, K, 1> m{};
  for (std::size_t k = 0; k < K; ++k) m.elems[k][0] = 2147483647;
  return m;
}
static_assert(cxmat::matmul(full_scale_row<2>(), full_scale_column<2>()).elems[0][0] == 9223372028264841218);

// Whether matmul of K full-scale int32 terms is a constant expression: a template argument that
// is not constant is a substitution failure here, not a hard error.
template <int>
struct constant_tag {};
template <std::size_t K>
concept full_scale_product_is_constant = requires {
  typename constant_tag<(cxmat::matmul(full_scale_row<K>(), full_scale_column<K>()).elems[0][0] > 0 ? 1 : 0)>;
};
static_assert(full_scale_product_is_constant<2>, "the twin: two terms fit int64");
static_assert(!full_scale_product_is_constant<3>, "three terms overflow int64: not a constant expression");

}  // namespace
