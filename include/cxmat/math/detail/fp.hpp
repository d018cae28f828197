// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// Floating-point evaluation controls shared by cxmat's math headers (internal).
//
// cxmat::exp must give the same bits in a constant expression and at run time. Constant
// evaluation never fuses a*b+c into one rounding, but compilers do at run time when the target
// has FMA (GCC by default, even in ISO mode; Clang within an expression). So:
//  - Clang: CXMAT_DETAIL_STRICT_FP, placed first in a function body, forbids contraction and
//    reassociation there (and any other -ffast-math licence) (honoured unless the user passes -ffp-contract=fast, which
//    Clang documents as overriding pragmas; -ffp-contract=fast-honor-pragmas is fine).
//  - GCC has no such local switch that keeps inlining, so where the target has a fused
//    multiply-add every a*b+c is written as an explicit __builtin_fma: the one fusion policy,
//    CXMAT_DETAIL_EXPLICIT_FMA in cxmat/math/fp.hpp, which the run-time kernels follow too.
//  - Clang's float_control is used only where it means something: on 32-bit Arm (Cortex-M,
//    --target=thumbv7em-none-eabihf) Clang ignores it with a warning (-Wignored-pragmas, fatal
//    under -Werror), so it is left out there; contract(off) and reassociate(off) hold everywhere.
#if defined(__clang__) && (defined(__arm__) || defined(__thumb__))
#define CXMAT_DETAIL_STRICT_FP _Pragma("clang fp contract(off)") _Pragma("clang fp reassociate(off)")
#elif defined(__clang__)
#define CXMAT_DETAIL_STRICT_FP \
  _Pragma("float_control(precise, on)") _Pragma("clang fp contract(off)") _Pragma("clang fp reassociate(off)")
#else
#define CXMAT_DETAIL_STRICT_FP
#endif

// -ffast-math lets the optimizer rewrite x + k*hi + k*lo as x + k*(hi + lo), which ruins the
// argument reduction. Clang's float_control pragma above restores IEEE semantics locally; GCC
// needs the optimize attribute (it keeps these functions from being inlined into fast-math
// code, which costs a call). Only used when __FAST_MATH__ is defined.
#if defined(__FAST_MATH__) && !defined(__clang__) && defined(__GNUC__)
#define CXMAT_DETAIL_IEEE_FN __attribute__((optimize("no-fast-math")))
#else
#define CXMAT_DETAIL_IEEE_FN
#endif

// Under -ffast-math (-ffinite-math-only) Clang 18+ warns on every mention of infinity or NaN.
// cxmat returns them on purpose for out-of-range arguments, so the math headers silence it.
#if defined(__clang__) && defined(__has_warning)
#if __has_warning("-Wnan-infinity-disabled")
#define CXMAT_DETAIL_DIAG_PUSH \
  _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wnan-infinity-disabled\"")
#define CXMAT_DETAIL_DIAG_POP _Pragma("clang diagnostic pop")
#endif
#endif
#if !defined(CXMAT_DETAIL_DIAG_PUSH)
#define CXMAT_DETAIL_DIAG_PUSH
#define CXMAT_DETAIL_DIAG_POP
#endif
