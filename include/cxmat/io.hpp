// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The input/output layer for hosted programs: shape text, numpy-style printing and tables,
// traces of attention calls, heatmaps (terminal and SVG), and, where Boost.Hana is found, the
// per-head form's tuples.
#pragma once

#include <cxmat/io/heatmap.hpp>
#include <cxmat/io/labels.hpp>
#include <cxmat/io/layer_trace.hpp>
#include <cxmat/io/number_format.hpp>
#include <cxmat/io/per_head.hpp>
#include <cxmat/io/print.hpp>
#include <cxmat/io/safetensors.hpp>
#include <cxmat/io/shape_text.hpp>
#include <cxmat/io/trace.hpp>
