// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Decoder-only language models and generation: llama_model and gpt2_model (values holding their
// weights), the cache of keys and values, prefill / step / forward, greedy decoding and sampling,
// and generate<N>, in constant expressions and at run time.
#pragma once

#include <cxmat/generation/complete.hpp>
#include <cxmat/generation/generate.hpp>
#include <cxmat/generation/gpt2.hpp>
#include <cxmat/generation/kv_cache.hpp>
#include <cxmat/generation/llama.hpp>
#include <cxmat/generation/record.hpp>
#include <cxmat/generation/rules.hpp>
#include <cxmat/generation/sampling.hpp>
#include <cxmat/generation/weights.hpp>
#include <cxmat/generation/workspace.hpp>
