// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The operations layer: products and sums, blocks, row softmax, approximate comparison.
#pragma once

#include <cxmat/ops/arithmetic.hpp>
#include <cxmat/ops/blocks.hpp>
#include <cxmat/ops/compare.hpp>
#include <cxmat/ops/softmax.hpp>
