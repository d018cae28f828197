// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// llama2.c checkpoints (versions 0, 1 and 2) and Meta's state_dict names imported as llama_model: the
// reference's tokens and logits.
#include "lm_a_meta.hpp"
#include "lm_a_v0.hpp"
#include "lm_a_v2.hpp"
#include "lm_b_v1.hpp"
#include "lm_check.hpp"

LM_CHECK(lm_a_v0, llama_a)
LM_CHECK(lm_a_v2, llama_a)
LM_CHECK(lm_b_v1, llama_b)
LM_CHECK(lm_a_meta, llama_a)
