// The two floating-point decisions every layer above must make the same way: whether code runs
// in constant evaluation or at run time, and whether a multiply-add is fused. Each is made here
// once; math, the kernels and everything above ask these functions rather than the compiler.
#pragma once

#include <type_traits>

// Whether a * b + c is written as one fused operation (__builtin_fma / __builtin_fmaf), per
// type. GCC fuses a * b + c where the target has FMA (-ffp-contract=fast, its default even in
// ISO mode), but only where its optimisers still see the pattern after inlining, so one
// expression can round once in one caller and twice in another, and constant evaluation never
// fuses. Where the target has FMA, cxmat therefore fuses explicitly, which GCC also folds exactly
// in constant expressions: every context then rounds the same way. Clang contracts within one
// expression only (the same everywhere), and cxmat's math forbids it there by pragma
// (math/detail/fp.hpp). Elsewhere no compiler can fuse: a * b + c is computed as written.
#if !defined(__clang__) && defined(__GNUC__) && defined(__FP_FAST_FMA)
#define CXMAT_DETAIL_EXPLICIT_FMA 1
#else
#define CXMAT_DETAIL_EXPLICIT_FMA 0
#endif
#if !defined(__clang__) && defined(__GNUC__) && defined(__FP_FAST_FMAF)
#define CXMAT_DETAIL_EXPLICIT_FMAF 1
#else
#define CXMAT_DETAIL_EXPLICIT_FMAF 0
#endif

namespace cxmat::detail {

// Whether multiply_add<T> fuses (see CXMAT_DETAIL_EXPLICIT_FMA): only for float and double.
template <class T>
inline constexpr bool explicit_fma = (std::is_same_v<T, double> && CXMAT_DETAIL_EXPLICIT_FMA != 0) ||
                                     (std::is_same_v<T, float> && CXMAT_DETAIL_EXPLICIT_FMAF != 0);

// a * b + c for scalars under the one fusion policy above: fused where explicit_fma<T>, two
// roundings elsewhere. Usable in constant expressions.
template <class T>
constexpr T multiply_add_scalar(T a, T b, T c) noexcept {
  if constexpr (std::is_same_v<T, double> && explicit_fma<T>) {
    return __builtin_fma(a, b, c);
  } else if constexpr (std::is_same_v<T, float> && explicit_fma<T>) {
    return __builtin_fmaf(a, b, c);
  } else {
    return a * b + c;
  }
}

// The one place cxmat asks whether it is being constant-evaluated. (C++23's `if consteval`
// would say the same, but GCC 12 warns on it in C++20 mode, an error under -Wpedantic -Werror,
// and Clang 14 rejects it.)
constexpr bool in_constant_evaluation() noexcept { return std::is_constant_evaluated(); }

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
    if (!in_constant_evaluation()) return run_time();
  }
  return constant();
}

}  // namespace cxmat::detail
