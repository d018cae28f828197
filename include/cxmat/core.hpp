// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The core layer: extents (sizes with names), matrix, batch, and the shape rules with the errors
// they report. Depends on the standard library only.
#pragma once

// The shape rules first: a shape error's note then names the shortest include chain.
#include <cxmat/core/shape_rules.hpp>

#include <cxmat/core/batch.hpp>
#include <cxmat/core/extent.hpp>
#include <cxmat/core/matrix.hpp>
#include <cxmat/core/workspace.hpp>
