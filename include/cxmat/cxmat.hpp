// cxmat: fixed-size, shape-typed matrices and self-attention, computed at compile time or at
// run time with the same code. This umbrella header includes every core header.
#pragma once

#include <cxmat/arithmetic.hpp>
#include <cxmat/attention.hpp>
#include <cxmat/attention_options.hpp>
#include <cxmat/attention_result.hpp>
#include <cxmat/batch.hpp>
#include <cxmat/batched.hpp>
#include <cxmat/blocks.hpp>
#include <cxmat/compare.hpp>
#include <cxmat/extent.hpp>
#include <cxmat/grouped_query_attention.hpp>
#include <cxmat/heads.hpp>
#include <cxmat/math.hpp>
#include <cxmat/matrix.hpp>
#include <cxmat/multi_head.hpp>
#include <cxmat/shape.hpp>
#include <cxmat/shape_rules.hpp>
#include <cxmat/softmax.hpp>
