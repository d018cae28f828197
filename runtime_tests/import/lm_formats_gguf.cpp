// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// GGUF files (F32, F16 and Q8_0 matrices) imported as llama_model: the reference's tokens and logits.
#include "lm_a_f16.hpp"
#include "lm_a_q8.hpp"
#include "lm_b_f32.hpp"
#include "lm_check.hpp"

LM_CHECK(lm_a_f16, llama_a)
LM_CHECK(lm_a_q8, llama_a)
LM_CHECK(lm_b_f32, llama_b)
