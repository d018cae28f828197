// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Packets for the run-time kernels: GNU vector types whose width follows the target's SIMD
// registers. Used only outside constant evaluation and only for float and double. Everything
// else (a fixed-point type, long double, and float and double without packets, e.g. Cortex-M)
// runs the plain kernels' loops at run time (kernels/loops.hpp): the same sums as the
// constant-evaluation folds, without their unrolled code.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <cxmat/math/fp.hpp>

/// 1 (default): at run time, float and double use the kernels of detail/runtime_*.hpp (blocked
/// products, packet softmax with its own exp), which agree with constant evaluation within the
/// tolerances in docs/performance.md, and products and attention of every other type (of float
/// and double too without packets) run loops that compute the same sums as constant evaluation
/// (kernels/loops.hpp). 0: run time executes exactly the code that constant evaluation does, its
/// fold expressions included (same results, except where the compiler fuses a multiply-add).
#if !defined(CXMAT_RUNTIME_KERNELS)
#define CXMAT_RUNTIME_KERNELS 1
#endif

/// Width in bytes of the packets the run-time kernels use. Default: the widest vector registers
/// the target enables (64 with AVX-512, 32 with AVX, 16 with SSE2 or NEON), else 0 (e.g.
/// Cortex-M): then products and attention run the run-time loops of kernels/loops.hpp, which are
/// also the smallest code, and softmax its run-time kernel one element at a time.
#if !defined(CXMAT_SIMD_BYTES)
#if !(defined(__GNUC__) || defined(__clang__))
#define CXMAT_SIMD_BYTES 0
#elif defined(__AVX512F__)
#define CXMAT_SIMD_BYTES 64
#elif defined(__AVX__)
#define CXMAT_SIMD_BYTES 32
#elif defined(__SSE2__) || defined(__ARM_NEON)
#define CXMAT_SIMD_BYTES 16
#else
#define CXMAT_SIMD_BYTES 0
#endif
#endif

// x86 targets with FMA (-mfma, -march=haswell or later, -march=native there): multiply_add fuses
// packets with the compiler builtins behind <immintrin.h>'s _mm*_fmadd_p[sd] (spelled the same by
// GCC and Clang), not the header itself, which costs about 0.6 s of parsing per translation unit.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__FMA__) && (defined(__x86_64__) || defined(__i386__)) && \
    CXMAT_SIMD_BYTES > 0
#define CXMAT_DETAIL_X86_FMA 1
#if defined(__AVX512F__)
#define CXMAT_DETAIL_X86_FMA512 1
#else
#define CXMAT_DETAIL_X86_FMA512 0
#endif
#else
#define CXMAT_DETAIL_X86_FMA 0
#endif

namespace cxmat::detail {

inline constexpr std::size_t simd_bytes = CXMAT_SIMD_BYTES;

// Whether softmax runs its run-time kernel for T (any packet width, one lane included).
template <class T>
inline constexpr bool has_runtime_softmax = CXMAT_RUNTIME_KERNELS != 0 &&
                                            (std::is_same_v<T, float> || std::is_same_v<T, double>);

// Whether products and attention run the blocked kernels for T (they need vector packets).
template <class T>
inline constexpr bool has_runtime_kernels = has_runtime_softmax<T>&& simd_bytes >= 16;

// Whether products and attention leave the constant-evaluation form at run time: for the types
// with has_runtime_kernels the blocked kernels, for every other type loops (kernels/loops.hpp).
// Not where CXMAT_RUNTIME_KERNELS is 0: run time then keeps the constant-evaluation form (fold
// expressions), so that form is tested at run time too. The folds unroll completely outside
// constant evaluation: on a target without vector registers they cost code, and the local
// copies they read cost stack.
inline constexpr bool has_runtime_products = CXMAT_RUNTIME_KERNELS != 0;

// A vector of Bytes / sizeof(T) lanes. A "packet" of one lane is T itself, so the same kernel
// code handles the column tails. Without vector extensions every packet is T (never used then:
// has_runtime_kernels is false, but the kernels still compile).
template <class T, std::size_t Bytes>
struct packet_of {
#if CXMAT_SIMD_BYTES > 0
  typedef T type __attribute__((vector_size(Bytes)));
#else
  using type = T;
#endif
};
template <class T>
struct packet_of<T, sizeof(T)> {
  using type = T;
};

template <class T, std::size_t Bytes>
using packet = typename packet_of<T, Bytes>::type;

// Packets are loaded from and stored to rows of plain arrays, which are aligned only for T: a
// byte copy says exactly that (no alignment or aliasing assumption) and compiles to one
// unaligned vector move.
template <class P, class T>
inline P load_packet(const T* p) noexcept {
#if CXMAT_SIMD_BYTES > 0
  P v;
  __builtin_memcpy(&v, p, sizeof(P));
  return v;
#else
  return *p;
#endif
}

template <class P, class T>
inline void store_packet(T* p, const P& v) noexcept {
#if CXMAT_SIMD_BYTES > 0
  __builtin_memcpy(p, &v, sizeof(P));
#else
  *p = v;
#endif
}

// A packet's element type and lane count, and the unsigned (bits) and signed (ints) integer
// packets of the same shape. A scalar is a packet of one lane.
template <class P, bool Scalar = std::is_arithmetic_v<P>>
struct packet_element {
  using type = P;
};
template <class P>
struct packet_element<P, false> {
  using type = std::remove_cvref_t<decltype(std::declval<const P&>()[0])>;
};

template <class P>
struct packet_traits {
  using element = typename packet_element<P>::type;
  static constexpr std::size_t lanes = sizeof(P) / sizeof(element);
  using bits = packet<std::conditional_t<sizeof(element) == 4, std::uint32_t, std::uint64_t>, sizeof(P)>;
  using ints = packet<std::conditional_t<sizeof(element) == 4, std::int32_t, std::int64_t>, sizeof(P)>;
};

// Lane-by-lane conversion (static_cast of each lane).
template <class To, class From>
inline To convert_packet(const From& x) noexcept {
  if constexpr (std::is_arithmetic_v<From>) {
    return static_cast<To>(x);
  } else {
#if CXMAT_SIMD_BYTES > 0
    return __builtin_convertvector(x, To);
#endif
  }
}

// Every lane equal to v. (v - 0 is v for every v, -0 and NaN included, and compiles to a plain
// broadcast; a lane-by-lane loop does not, with GCC.)
template <class P>
inline P splat(typename packet_traits<P>::element v) noexcept {
  if constexpr (std::is_arithmetic_v<P>) {
    return v;
  } else {
    return v - P{};
  }
}

// A packet as it is, or a scalar broadcast to every lane.
template <class P, class V>
inline P as_packet(const V& v) noexcept {
  if constexpr (std::is_arithmetic_v<V>) {
    return splat<P>(static_cast<typename packet_traits<P>::element>(v));
  } else {
    return v;
  }
}

// Lane by lane a < b ? x : y (false where a or b is NaN, as for scalars). GCC and Clang take the
// conditional operator on vector types too, and compile it to a compare and a blend.
template <class P>
inline P select_lt(const P& a, const P& b, const P& x, const P& y) noexcept {
  return a < b ? x : y;
}

// Sets lane l of a packet (the value itself for a one-lane packet).
template <class P>
inline void set_lane(P& v, std::size_t l, typename packet_traits<P>::element x) noexcept {
  if constexpr (std::is_arithmetic_v<P>) {
    (void)l;
    v = x;
  } else {
    v[l] = x;
  }
}

// A length: a std::size_t, or fixed_length<N> when it is part of a matrix type (every caller in
// the library), which makes the number of entries after the last whole packet (the tail) a
// constant: the tail is then one padded packet moved by fixed-size copies rather than entry by
// entry.
template <std::size_t N>
using fixed_length = std::integral_constant<std::size_t, N>;

// The number of entries after the last whole packet in a length len, of len's kind.
template <std::size_t Lanes, class Len>
[[gnu::always_inline]] inline auto tail_length(Len len) noexcept {
  if constexpr (std::is_same_v<Len, std::size_t>) {
    return len % Lanes;
  } else {
    return fixed_length<Len::value % Lanes>{};
  }
}

// A packet of lanes p[0], ..., p[Rem - 1], then `fill`, kept in registers: 16-byte packets are
// built lane by lane, wider ones from two halves (a whole half loaded at once where it can be).
// A byte copy into a filled packet made GCC go through the stack, and the packet's reload then
// waited for two overlapping stores.
template <class P, std::size_t Rem, class T, std::size_t... L>
[[gnu::always_inline]] inline P packet_from_lanes(const T* p, T fill, std::index_sequence<L...>) noexcept {
  return P{(L < Rem ? p[L] : fill)...};
}

template <class P, class H, std::size_t... L>
[[gnu::always_inline]] inline P concat_halves(const H& lo, const H& hi, std::index_sequence<L...>) noexcept {
  return __builtin_shufflevector(lo, hi, L...);
}

template <class P, std::size_t Rem, class T>
[[gnu::always_inline]] inline P packet_from_tail(const T* p, T fill) noexcept {
  constexpr std::size_t lanes = packet_traits<P>::lanes;
  if constexpr (sizeof(P) <= 16) {
    return packet_from_lanes<P, Rem>(p, fill, std::make_index_sequence<lanes>{});
  } else {
    using H = packet<T, sizeof(P) / 2>;
    constexpr std::size_t half = lanes / 2;
    if constexpr (Rem >= half) {
      return concat_halves<P>(load_packet<H>(p), packet_from_tail<H, Rem - half>(p + half, fill),
                              std::make_index_sequence<lanes>{});
    } else {
      return concat_halves<P>(packet_from_tail<H, Rem>(p, fill), splat<H>(fill), std::make_index_sequence<lanes>{});
    }
  }
}

// p[0, rem) in the low lanes of a packet whose other lanes are `fill`.
template <class P, class T, class Rem>
[[gnu::always_inline]] inline P load_tail(const T* p, Rem rem, T fill) noexcept {
  if constexpr (std::is_same_v<Rem, std::size_t>) {
    P v = splat<P>(fill);
    for (std::size_t l = 0; l < rem; ++l) set_lane(v, l, p[l]);
    return v;
  } else {
    return packet_from_tail<P, Rem::value>(p, fill);
  }
}

// The low rem lanes of v to p[0, rem).
template <class P, class T, class Rem>
[[gnu::always_inline]] inline void store_tail(T* p, Rem rem, const P& v) noexcept {
  if constexpr (std::is_same_v<Rem, std::size_t>) {
    if constexpr (std::is_arithmetic_v<P>) {
      if (rem != 0) *p = v;
    } else {
      for (std::size_t l = 0; l < rem; ++l) p[l] = v[l];
    }
  } else if constexpr (Rem::value != 0) {
    __builtin_memcpy(p, &v, Rem::value * sizeof(T));
  }
}

// Whether a multiply-add is fused must not be left to the compiler: GCC fuses a * b + c only
// where its optimisers still see the pattern after inlining, so the same expression can round
// once in one caller and twice in another (the blocked product's packet accumulation did exactly
// that on an AVX2 + FMA machine, and the weights of a head then differed in the last bits between
// two forms of one attention). Every multiply-add of the run-time kernels therefore goes through
// multiply_add, which follows the one fusion policy of cxmat/math/fp.hpp: scalars through
// multiply_add_scalar, x86 packets fused by an FMA intrinsic on FMA targets (where GCC's scalars
// are fused too), otherwise a * b + c.
#if CXMAT_DETAIL_X86_FMA
// Whether the target has an FMA instruction for packets of P's width (16 and 32 bytes with FMA,
// 64 with AVX-512), and that instruction.
template <class P>
inline constexpr bool has_x86_fma = sizeof(P) == 16 || sizeof(P) == 32 || (sizeof(P) == 64 && CXMAT_DETAIL_X86_FMA512);

template <class P>
inline P x86_fma(const P& a, const P& b, const P& c) noexcept {
  using E = typename packet_traits<P>::element;
  constexpr int current_rounding = 4;  // _MM_FROUND_CUR_DIRECTION
#if CXMAT_DETAIL_X86_FMA512
  // Every lane selected; GCC declares the 16-lane mask parameter signed, Clang unsigned.
#if defined(__clang__)
  constexpr unsigned short all_lanes16 = 0xFFFF;
  constexpr unsigned char all_lanes8 = 0xFF;
#else
  constexpr short all_lanes16 = -1;
  constexpr unsigned char all_lanes8 = 0xFF;
#endif
#endif
  if constexpr (std::is_same_v<E, float> && sizeof(P) == 16) {
    return __builtin_ia32_vfmaddps(a, b, c);
  } else if constexpr (std::is_same_v<E, double> && sizeof(P) == 16) {
    return __builtin_ia32_vfmaddpd(a, b, c);
  } else if constexpr (std::is_same_v<E, float> && sizeof(P) == 32) {
    return __builtin_ia32_vfmaddps256(a, b, c);
  } else if constexpr (std::is_same_v<E, double> && sizeof(P) == 32) {
    return __builtin_ia32_vfmaddpd256(a, b, c);
#if CXMAT_DETAIL_X86_FMA512
  } else if constexpr (std::is_same_v<E, float> && sizeof(P) == 64) {
    return __builtin_ia32_vfmaddps512_mask(a, b, c, all_lanes16, current_rounding);
  } else if constexpr (std::is_same_v<E, double> && sizeof(P) == 64) {
    return __builtin_ia32_vfmaddpd512_mask(a, b, c, all_lanes8, current_rounding);
#endif
  } else {
    (void)current_rounding;
    return a * b + c;
  }
}
#endif

// a * b + c, fused the same way in every context (see above). a and b may each be a packet or a
// scalar (broadcast to every lane); c is the packet (or scalar) the result has the type of.
template <class P, class A, class B>
inline P multiply_add(const A& a, const B& b, const P& c) noexcept {
  if constexpr (std::is_arithmetic_v<P>) {
    return multiply_add_scalar(static_cast<P>(a), static_cast<P>(b), c);
  } else {
    const P av = as_packet<P>(a);
    const P bv = as_packet<P>(b);
#if CXMAT_DETAIL_X86_FMA
    if constexpr (has_x86_fma<P>) return x86_fma(av, bv, c);
#endif
    return av * bv + c;
  }
}

// Combines the lanes of v pairwise, halving each step: lane l with lane l + lanes/2, and so on
// down to one value. A fixed tree, so the result depends only on the lanes' values.
template <class P, class Op>
inline typename packet_traits<P>::element fold_packet(const P& v, const Op& op) noexcept {
  if constexpr (packet_traits<P>::lanes == 1) {
    return v;
  } else {
    using element = typename packet_traits<P>::element;
    using half = packet<element, sizeof(P) / 2>;
    half lo;
    half hi;
    __builtin_memcpy(&lo, &v, sizeof(half));
    __builtin_memcpy(&hi, reinterpret_cast<const unsigned char*>(&v) + sizeof(half), sizeof(half));
    return fold_packet(op(lo, hi), op);
  }
}

}  // namespace cxmat::detail
