// In-language rejection probes under both error modes.
//
// A probe such as `static_assert(!requires { matmul(a, b); })` (in a template) relies on the
// shape error being an incomplete type: a call whose result type is incomplete is an invalid
// expression, so the requires-expression is false. In plain-error mode (CXMAT_PLAIN_ERRORS,
// clang++ 19 -std=c++2c) the shape errors are complete class templates whose static_assert
// prints the sentence, and completing the result type of a call is not in the immediate
// context, so the probe itself becomes the hard error it wants to observe.
//
// CXMAT_ASSERT_REJECTED(expr) is static_assert(expr) in the default mode, where these probes run
// (g++ 12, clang++ 14 and 19 in C++20), and nothing in plain mode. The plain build still checks
// that each rule rejects: every rule has a compile-fail snippet whose sentence is matched by
// CTest (static_tests/compile_fail, `// Expect-plain:`), and the accepting probes run in both
// modes.
#pragma once

#include <cxmat/core/config.hpp>

#if CXMAT_PLAIN_ERRORS
#define CXMAT_ASSERT_REJECTED(...) static_assert(true)
#else
#define CXMAT_ASSERT_REJECTED(...) static_assert(__VA_ARGS__)
#endif
