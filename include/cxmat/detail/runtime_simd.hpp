// Packets for the run-time kernels: GNU vector types whose width follows the target's SIMD
// registers. Used only outside constant evaluation and only for float and double; everything
// else (a fixed-point type, long double) runs the plain loops of the constant-evaluation path.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

/// 1 (default): at run time, float and double use the kernels of detail/runtime_*.hpp (blocked
/// products, packet softmax with its own exp), which agree with constant evaluation within the
/// tolerances in docs/performance.md. 0: run time executes exactly the loops that constant
/// evaluation does (same results, except where the compiler fuses a multiply-add).
#if !defined(CXMAT_RUNTIME_KERNELS)
#define CXMAT_RUNTIME_KERNELS 1
#endif

/// Width in bytes of the packets the run-time kernels use. Default: the widest vector registers
/// the target enables (64 with AVX-512, 32 with AVX, 16 with SSE2 or NEON), else 0 (e.g.
/// Cortex-M): then products run the plain loops, which are also the smallest code, and softmax
/// its run-time kernel one element at a time.
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

namespace cxmat::detail {

inline constexpr std::size_t simd_bytes = CXMAT_SIMD_BYTES;

// Whether softmax runs its run-time kernel for T (any packet width, one lane included).
template <class T>
inline constexpr bool has_runtime_softmax =
    CXMAT_RUNTIME_KERNELS != 0 && (std::is_same_v<T, float> || std::is_same_v<T, double>);

// Whether products and attention run the blocked kernels for T (they need vector packets).
template <class T>
inline constexpr bool has_runtime_kernels = has_runtime_softmax<T> && simd_bytes >= 16;

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

// Lane by lane a < b ? x : y (false where a or b is NaN, as for scalars). Vector comparisons give
// all-ones or all-zero lanes, so the choice is a bitwise blend.
template <class P>
inline P select_lt(const P& a, const P& b, const P& x, const P& y) noexcept {
  if constexpr (std::is_arithmetic_v<P>) {
    return a < b ? x : y;
  } else {
    const auto lt = a < b;
    using mask = std::remove_const_t<decltype(lt)>;
    return std::bit_cast<P>((lt & std::bit_cast<mask>(x)) | (~lt & std::bit_cast<mask>(y)));
  }
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

// GCC fuses a * b + c into one rounding wherever the target has FMA, except where it vectorises a
// loop-carried sum in order (multiplies as a vector, adds one by one): then the same scalar sum
// rounds differently depending on the code around it. For scalars, GCC gets the fused form
// spelled out where the hardware has it; packets are always fused on such targets.
#if defined(__GNUC__) && !defined(__clang__) && defined(__FP_FAST_FMAF)
inline constexpr bool explicit_fma_float = true;
#else
inline constexpr bool explicit_fma_float = false;
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__FP_FAST_FMA)
inline constexpr bool explicit_fma_double = true;
#else
inline constexpr bool explicit_fma_double = false;
#endif

// a * b + c, fused the same way in every context (see above).
template <class P, class S>
inline P multiply_add(const S& a, const P& b, const P& c) noexcept {
#if defined(__GNUC__) && !defined(__clang__)
  if constexpr (std::is_same_v<P, float> && explicit_fma_float) {
    return __builtin_fmaf(a, b, c);
  } else if constexpr (std::is_same_v<P, double> && explicit_fma_double) {
    return __builtin_fma(a, b, c);
  }
#endif
  return a * b + c;
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
