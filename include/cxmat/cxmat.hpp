// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// cxmat: fixed-size, shape-typed matrices and self-attention, computed at compile time or at
// run time with the same code. This umbrella includes every layer that needs no hosted library:
// core, math, ops, attention (the per-head form only where Boost.Hana is found) and shape text.
// Printing (iostreams) is cxmat/io/print.hpp, or cxmat/io.hpp.
#pragma once

// Bottom layer first, so that the notes under a shape error name short include chains.
#include <cxmat/core.hpp>

#include <cxmat/attention.hpp>
#include <cxmat/io/shape_text.hpp>
#include <cxmat/math.hpp>
#include <cxmat/ops.hpp>
