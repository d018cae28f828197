// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Configuration macros of cxmat that change what the library reports, never what it computes.
#pragma once

/// CXMAT_PLAIN_ERRORS: 1 makes every shape error a static_assert whose message is a sentence
/// built at compile time ("matmul(A, B): A's columns (3, d_k) must equal B's rows (2, n). ..."),
/// 0 keeps the shape errors as incomplete class templates whose names are the message.
///
/// Default: on exactly when the compiler accepts a static_assert message computed by a constant
/// expression (P2741, `__cpp_static_assert >= 202306L`: clang++ 17+ with -std=c++2c); in C++20
/// only string literals are allowed, so the type name is the best message there. Override with
/// -DCXMAT_PLAIN_ERRORS=0 or 1 (1 on a compiler without P2741 is an error). In plain mode a
/// rejected call is a hard error even inside a requires-expression (completing the error type
/// fires its static_assert), so in-language rejection probes need rules_hold (see
/// docs/shape_errors.md).
#ifndef CXMAT_PLAIN_ERRORS
#if defined(__cpp_static_assert) && __cpp_static_assert >= 202306L
#define CXMAT_PLAIN_ERRORS 1
#else
#define CXMAT_PLAIN_ERRORS 0
#endif
#endif

#if CXMAT_PLAIN_ERRORS && !(defined(__cpp_static_assert) && __cpp_static_assert >= 202306L)
#error \
    "CXMAT_PLAIN_ERRORS=1 needs static_assert messages built by constant expressions (P2741, e.g. clang++ 17+ -std=c++2c)"
#endif
