// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// llama2.c checkpoints (versions 0, 1 and 2) and Meta's state_dict names imported as llama_model: the
// reference's tokens and logits.
#include <type_traits>

#include "lm_a_meta.hpp"
#include "lm_a_v0.hpp"
#include "lm_a_v2.hpp"
#include "lm_b_v1.hpp"
#include "lm_check.hpp"

LM_CHECK(lm_a_v0, llama_a)
LM_CHECK(lm_a_v2, llama_a)
LM_CHECK(lm_b_v1, llama_b)
LM_CHECK(lm_a_meta, llama_a)

// The dimensions are named, in NAME_dims and under the model's name, and the model's type uses them.
static_assert(lm_a_v0_vocab.size == 32 && lm_a_v0_d_model.size == 32 && lm_a_v0_d_ff.size == 64 &&
              lm_a_v0_context.size == 16);
static_assert(std::is_same_v<decltype(lm_a_v0.blocks[0].w_gate),
                             cxmat::matrix<float, lm_a_v0_dims::d_model, lm_a_v0_dims::d_ff>>);
