// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
#pragma once
// cxmat's constexpr elementary functions: cxmat::exp, sqrt, log, tanh, erf, sin and cos for
// float, double and long double (no libm, same bits at compile time and run time). See
// docs/math.md.

#include "cxmat/math/erf.hpp"
#include "cxmat/math/exp.hpp"
#include "cxmat/math/half.hpp"
#include "cxmat/math/log.hpp"
#include "cxmat/math/sin_cos.hpp"
#include "cxmat/math/sqrt.hpp"
#include "cxmat/math/tanh.hpp"
