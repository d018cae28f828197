#pragma once
// cxmat's constexpr elementary functions: cxmat::exp and cxmat::sqrt for float, double and
// long double (no libm, same bits at compile time and run time). See docs/math.md.

#include "cxmat/math/exp.hpp"
#include "cxmat/math/sqrt.hpp"
