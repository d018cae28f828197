// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Hugging Face LLaMA (q/k rows permuted, rotate-half) and GPT-2 safetensors imported as
// llama_model and gpt2_model: the reference's tokens and logits.
#include "lm_a_hf.hpp"
#include "lm_a_hf_double.hpp"
#include "lm_b_hf.hpp"
#include "lm_check.hpp"
#include "lm_g_bf16.hpp"
#include "lm_g_hf.hpp"

LM_CHECK(lm_a_hf, llama_a)
LM_CHECK(lm_a_hf_double, llama_a)
LM_CHECK(lm_b_hf, llama_b)
LM_CHECK(lm_g_hf, gpt2_g)
LM_CHECK(lm_g_bf16, gpt2_g)
