// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The two floating-point decisions every layer above must make the same way: whether code runs
// in constant evaluation or at run time, and whether a multiply-add is fused. Each is made here
// once; math, the kernels and everything above ask these functions rather than the compiler.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

// Whether a * b + c is written as one fused operation (__builtin_fma / __builtin_fmaf), per
// type. GCC fuses a * b + c where the target has FMA (-ffp-contract=fast, its default even in
// ISO mode), but only where its optimisers still see the pattern after inlining, so one
// expression can round once in one caller and twice in another, and constant evaluation never
// fuses. Where the target has FMA, cxmat therefore fuses explicitly, which GCC also folds exactly
// in constant expressions: every context then rounds the same way. Clang contracts within one
// expression only (the same everywhere), and cxmat's math forbids it there by pragma
// (math/detail/fp.hpp). Elsewhere no compiler can fuse: a * b + c is computed as written.
// One exception for Clang, for float: 32-bit Arm with a single-precision FMA (Cortex-M4F, M7,
// M33 ...). There LLVM contracts nothing on the Cortex-M4 (its FMA is marked slow), while GCC
// fuses, so the two compilers' firmware differed in the last bits; Clang fuses explicitly there
// too, with fused_multiply_add_exact in constant evaluation (Clang cannot fold an fma).
#if !defined(__clang__) && defined(__GNUC__) && defined(__FP_FAST_FMA)
#define CXMAT_DETAIL_EXPLICIT_FMA 1
#else
#define CXMAT_DETAIL_EXPLICIT_FMA 0
#endif
#if !defined(__clang__) && defined(__GNUC__) && defined(__FP_FAST_FMAF)
#define CXMAT_DETAIL_EXPLICIT_FMAF 1
#elif defined(__clang__) && (defined(__arm__) || defined(__thumb__)) && defined(__ARM_FEATURE_FMA) && \
    defined(__ARM_FP) && (__ARM_FP & 4) != 0 && defined(__has_builtin)
// (__builtin_elementwise_fma, Clang 17 and later: __builtin_fmaf is a call to fmaf where
// math-errno is on, as it is for arm-none-eabi, and a freestanding image has no fmaf.)
#if __has_builtin(__builtin_elementwise_fma)
#define CXMAT_DETAIL_EXPLICIT_FMAF 1
#else
#define CXMAT_DETAIL_EXPLICIT_FMAF 0
#endif
#else
#define CXMAT_DETAIL_EXPLICIT_FMAF 0
#endif

namespace cxmat::detail {

// The one place cxmat asks whether it is being constant-evaluated. (C++23's `if consteval`
// would say the same, but GCC 12 warns on it in C++20 mode, an error under -Wpedantic -Werror,
// and Clang 14 rejects it.)
constexpr bool in_constant_evaluation() noexcept { return std::is_constant_evaluated(); }

// The one way a layer names an error of constant evaluation: refuse_in_constant_evaluation<Error>()
// stops a constant expression by calling Error, a function declared without constexpr whose name
// is the message (every compiler quotes it: "call to non-constexpr function 'void
// cxmat::q8::detail::requantizer_shift_must_be_in_minus_31_to_30()'"); at run time it does
// nothing, and the caller goes on to its documented run-time result (a status, a defined value).
template <auto Error>
constexpr void refuse_in_constant_evaluation() noexcept {
  if (in_constant_evaluation()) Error();
}

// Whether multiply_add<T> fuses (see CXMAT_DETAIL_EXPLICIT_FMA): only for float and double.
template <class T>
inline constexpr bool explicit_fma = (std::is_same_v<T, double> && CXMAT_DETAIL_EXPLICIT_FMA != 0) ||
                                     (std::is_same_v<T, float> && CXMAT_DETAIL_EXPLICIT_FMAF != 0);

// fma(a, b, c) for float, one rounding, in constant expressions too (for Clang, which cannot
// fold __builtin_fmaf). The product is exact in double (24 + 24 significant bits); s + e is the
// exact sum (two_sum); s rounded to odd (its last bit set when e != 0) keeps the information of
// e in 53 >= 24 + 2 bits, so the one conversion to float rounds correctly (Boldo-Melquiond).
constexpr float fused_multiply_add_exact(float a, float b, float c) noexcept {
  const double p = static_cast<double>(a) * static_cast<double>(b), cd = static_cast<double>(c), s = p + cd;
  constexpr double largest = std::numeric_limits<double>::max();
  if (!(s >= -largest && s <= largest)) return static_cast<float>(s);  // infinite or NaN: nothing to round
  const double t = s - p, e = (p - (s - t)) + (cd - t);
  std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
  if (e != 0 && (bits & 1U) == 0) {
    // The odd neighbour of s on e's side: away from zero if e has s's sign, else towards it.
    // (s is not 0 here: a sum of two doubles rounds to 0 only when it is exactly 0.)
    bits = ((e > 0) == (s > 0)) ? bits + 1U : bits - 1U;
  }
  return static_cast<float>(std::bit_cast<double>(bits));
}

// a * b + c for scalars under the one fusion policy above: fused where explicit_fma<T>, two
// roundings elsewhere. Usable in constant expressions.
template <class T>
constexpr T multiply_add_scalar(T a, T b, T c) noexcept {
  if constexpr (std::is_same_v<T, double> && explicit_fma<T>) {
    return __builtin_fma(a, b, c);
  } else if constexpr (std::is_same_v<T, float> && explicit_fma<T>) {
#if defined(__clang__)
    if (in_constant_evaluation()) return fused_multiply_add_exact(a, b, c);
    return __builtin_elementwise_fma(a, b, c);
#else
    return __builtin_fmaf(a, b, c);
#endif
  } else {
    return a * b + c;
  }
}

// The switch between a computation's two forms (by_evaluation, below) as a condition, for a kernel
// that branches to a function instead of passing lambdas (where -Os does not inline a lambda, its
// closure costs code and stack: 272 bytes of code in the int8 layer on Cortex-M4): true outside
// constant evaluation when HasRunTimeForm.
template <bool HasRunTimeForm>
constexpr bool run_time_form() noexcept {
  if constexpr (HasRunTimeForm) {
    return !in_constant_evaluation();
  } else {
    return false;
  }
}

// The one switch between a computation's two forms. Every computation that has a faster
// run-time form than the constant-evaluation one (the run-time kernels and loops, the hardware
// square root) goes through here: by_evaluation<HasRunTimeForm>(run_time, constant) calls
// run_time() outside constant evaluation when HasRunTimeForm, else constant(). Both callables
// return the same type. Write run_time as a generic lambda, `[&](auto...) { ... }`, whose body is
// instantiated only where HasRunTimeForm is true, and guard what exists only for the types that
// have a run-time form with `if constexpr` as well: calls that do not depend on the lambda's own
// parameters are still checked where the lambda is written.
template <bool HasRunTimeForm, class RunTime, class Constant>
constexpr decltype(auto) by_evaluation(const RunTime& run_time, const Constant& constant) noexcept {
  if constexpr (HasRunTimeForm) {
    if (run_time_form<true>()) return run_time();
  }
  return constant();
}

}  // namespace cxmat::detail
