// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The attention layer: single head, multi-head (block form), grouped-query and cross-attention,
// batched forms, and their options. The per-head form (attention/per_head.hpp) needs Boost.Hana
// and is included only where <boost/hana/tuple.hpp> is found, so that a toolchain without Boost
// (a Cortex-M cross-compiler, say) still gets every other form from this header.
#pragma once

// The rules first: a shape error's note then names the shortest include chain.
#include <cxmat/attention/rules.hpp>

#include <cxmat/attention/batched.hpp>
#include <cxmat/attention/grouped.hpp>
#include <cxmat/attention/multi_head.hpp>
#include <cxmat/attention/options.hpp>
#include <cxmat/attention/result.hpp>
#include <cxmat/attention/single_head.hpp>

#if defined(__has_include)
#if __has_include(<boost/hana/tuple.hpp>)
#include <cxmat/attention/per_head.hpp>
#endif
#endif
