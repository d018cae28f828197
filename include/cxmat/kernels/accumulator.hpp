// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The type in which products and sums over a matrix's elements are accumulated.
#pragma once

#include <cstdint>
#include <type_traits>

namespace cxmat {

/// The accumulator of T: the type in which matmul (and a * b) forms its sums of products, and
/// the element type of its result. Integers narrower than 32 bits would wrap (or be narrowed)
/// silently after a few terms, so they are widened: 8-bit integers (signed or not) to
/// std::int32_t, which holds 2^17 full-scale int8 products (CMSIS-NN's s8 accumulator);
/// 16-bit integers to std::int64_t, since one uint16 product already exceeds int32 and two int16
/// ones can (CMSIS-NN accumulates s16 in 64 bits too); 32-bit integers to std::int64_t; 64-bit
/// integers stay as they are. Every other type (float, double, long double, a user's
/// fixed-point scalar) is its own accumulator. A sum that overflows the accumulator is
/// undefined at run time and, in a constant expression, a compile error.
template <class T>
struct accumulator {
  using type = T;
};
template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) == 1) struct accumulator<T> {
  using type = std::int32_t;
};
template <class T>
requires(std::is_integral_v<T> && (sizeof(T) == 2 || sizeof(T) == 4)) struct accumulator<T> {
  using type = std::int64_t;
};

/// accumulator<T>::type.
template <class T>
using accumulator_t = typename accumulator<T>::type;

}  // namespace cxmat
