// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// Text for language models: fixed_string, tokenizers (one per char, one per byte, llama2.c's
// tokenizer.bin, GPT-2's byte-level BPE), encode into a matrix of ids and decode back, at run time
// and in constant expressions.
#pragma once

#include <cxmat/text/char_tokenizer.hpp>
#include <cxmat/text/encode.hpp>
#include <cxmat/text/fixed_string.hpp>
#include <cxmat/text/gpt2_tokenizer.hpp>
#include <cxmat/text/llama_tokenizer.hpp>
#include <cxmat/text/status.hpp>
