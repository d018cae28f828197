// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// exp(d) for d <= 0 on a whole packet at once: the run-time kernel of softmax, whose arguments
// are x - max(x) and therefore never positive. cxmat::exp covers the whole range with special
// cases and a table, which keeps it exact at compile time and run time alike but cannot run
// lane-parallel; here the domain is known, so none of that is needed.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include <cxmat/kernels/runtime_simd.hpp>

namespace cxmat::detail {

// exp(d) lane by lane for a packet (or a single float or double) of d in [-110, 0] for float,
// [-750, 0] for double (callers clamp). Within 1 ulp of the exact value for normal results
// (measured in runtime_tests/kernels), subnormal results rounded once.
//
// Method (Cephes): d = k ln2 + r with |r| <= ln2/2 and ln2 split in two so that k * hi is
// exact; exp(r) by a polynomial (degree 7 for float, Taylor to degree 13 for double, truncation
// below 2^-57); 2^k applied as 2^k1 * 2^k2 with k1 + k2 = k, so each factor is a normal number
// even when the result is subnormal. k comes from the bits of d * log2(e) + 1.5 * 2^(p-1), which
// rounds to an integer in the low bits of the significand.
template <class P>
inline P exp_nonpositive(P d) noexcept {
  using E = typename packet_traits<P>::element;
  using U = typename packet_traits<P>::bits;
  static_assert(std::is_same_v<E, float> || std::is_same_v<E, double>);
  if constexpr (std::is_same_v<E, float>) {
    constexpr float shift = 0x1.8p23f;
#if defined(__FAST_MATH__)
    // -ffast-math may fold (t - shift) into d * log2e: round through a conversion instead.
    const P k = convert_packet<P>(
        convert_packet<typename packet_traits<P>::ints>(multiply_add(d, 1.44269504088896341f, splat<P>(-0.5f))));
    const P t = k + shift;
#else
    const P t = multiply_add(d, 1.44269504088896341f, splat<P>(shift));
    const P k = t - shift;
#endif
    // k * 0.693359375f is exact, so d - k * 0.693359375f is one rounding, fused or not.
    const P r = multiply_add(k, 2.12194440e-4f, d - k * 0.693359375f);  // ln2 = 0.693359375 - 2.12194440e-4
    P p = multiply_add(r, 1.9875691500e-4f, splat<P>(1.3981999507e-3f));
    p = multiply_add(p, r, splat<P>(8.3334519073e-3f));
    p = multiply_add(p, r, splat<P>(4.1665795894e-2f));
    p = multiply_add(p, r, splat<P>(1.6666665459e-1f));
    p = multiply_add(p, r, splat<P>(5.0000001201e-1f));
    p = multiply_add(p * r, r, r) + 1.0f;
    const U nk = std::bit_cast<std::uint32_t>(shift) - std::bit_cast<U>(t);  // -k >= 0
    const U nk1 = nk >> 1;
    const U nk2 = nk - nk1;
    return p * std::bit_cast<P>((127u - nk1) << 23) * std::bit_cast<P>((127u - nk2) << 23);
  } else {
    constexpr double shift = 0x1.8p52;
#if defined(__FAST_MATH__)
    const P k = convert_packet<P>(
        convert_packet<typename packet_traits<P>::ints>(multiply_add(d, 1.44269504088896338700, splat<P>(-0.5))));
    const P t = k + shift;
#else
    const P t = multiply_add(d, 1.44269504088896338700, splat<P>(shift));
    const P k = t - shift;
#endif
    // fdlibm's split of ln2: hi has 33 significant bits, so k * hi is exact for |k| < 2^20.
    const P r = multiply_add(k, -1.90821492927058770002e-10, d - k * 6.93147180369123816490e-01);
    P p = multiply_add(r, 1.0 / 6227020800.0, splat<P>(1.0 / 479001600.0));  // 1/13!, 1/12!
    p = multiply_add(p, r, splat<P>(1.0 / 39916800.0));
    p = multiply_add(p, r, splat<P>(1.0 / 3628800.0));
    p = multiply_add(p, r, splat<P>(1.0 / 362880.0));
    p = multiply_add(p, r, splat<P>(1.0 / 40320.0));
    p = multiply_add(p, r, splat<P>(1.0 / 5040.0));
    p = multiply_add(p, r, splat<P>(1.0 / 720.0));
    p = multiply_add(p, r, splat<P>(1.0 / 120.0));
    p = multiply_add(p, r, splat<P>(1.0 / 24.0));
    p = multiply_add(p, r, splat<P>(1.0 / 6.0));
    p = multiply_add(p, r, splat<P>(0.5));
    p = multiply_add(p * r, r, r) + 1.0;
    const U nk = std::bit_cast<std::uint64_t>(shift) - std::bit_cast<U>(t);
    const U nk1 = nk >> 1;
    const U nk2 = nk - nk1;
    constexpr std::uint64_t bias = 1023;
    return p * std::bit_cast<P>((bias - nk1) << 52) * std::bit_cast<P>((bias - nk2) << 52);
  }
}

}  // namespace cxmat::detail
