// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Every format's import of the same models, against the reference's tokens and logits: llama2.c
// checkpoints (versions 0, 1 and 2) and Meta's state_dict names, Hugging Face LLaMA (q/k rows
// permuted, rotate-half) and GPT-2 safetensors, GGUF files (F32, F16 and Q8_0 matrices). One
// translation unit: the imports of one model and layout share their dimensions (make_lm_files.py),
// so they are one type, whose code is compiled once.
#include <type_traits>

#include "lm_a_f16.hpp"
#include "lm_a_hf.hpp"
#include "lm_a_hf_double.hpp"
#include "lm_a_meta.hpp"
#include "lm_a_q8.hpp"
#include "lm_a_v0.hpp"
#include "lm_a_v2.hpp"
#include "lm_b_f32.hpp"
#include "lm_b_hf.hpp"
#include "lm_b_v1.hpp"
#include "lm_check.hpp"
#include "lm_g_bf16.hpp"
#include "lm_g_hf.hpp"

// llama2.c and Meta's names
LM_CHECK(lm_a_v0, llama_a)
LM_CHECK(lm_a_v2, llama_a)
LM_CHECK(lm_b_v1, llama_b)
LM_CHECK(lm_a_meta, llama_a)
// Hugging Face
LM_CHECK(lm_a_hf, llama_a)
LM_CHECK(lm_a_hf_double, llama_a)
LM_CHECK(lm_b_hf, llama_b)
LM_CHECK(lm_g_hf, gpt2_g)
LM_CHECK(lm_g_bf16, gpt2_g)
// GGUF
LM_CHECK(lm_a_f16, llama_a)
LM_CHECK(lm_a_q8, llama_a)
LM_CHECK(lm_b_f32, llama_b)

// The dimensions are named, in NAME_dims and under the model's name, and the model's type uses them.
static_assert(lm_a_v0_vocab.size == 32 && lm_a_v0_d_model.size == 32 && lm_a_v0_d_ff.size == 64 &&
              lm_a_v0_context.size == 16);
static_assert(std::is_same_v<decltype(lm_a_v0.blocks[0].w_gate),
                             cxmat::matrix<float, lm_a_v0_dims::d_model, lm_a_v0_dims::d_ff>>);
// Imports given one --dims share it: one layout, one type.
static_assert(std::is_same_v<decltype(lm_a_v2), decltype(lm_a_meta)> &&
              std::is_same_v<decltype(lm_a_v2), decltype(lm_a_f16)> &&
              std::is_same_v<decltype(lm_b_v1), decltype(lm_b_f32)>);
