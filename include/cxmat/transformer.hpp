// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The transformer layer: activations, norms, linear maps and feed-forward networks, positional
// encodings, token embeddings and logits, and the encoder and decoder layers (with their stacks)
// built on the attention layer, each on matrices and batches, constexpr and at run time.
#pragma once

// The rules first: a shape error's note then names the shortest include chain.
#include <cxmat/transformer/rules.hpp>
#include <cxmat/ops/blocks.hpp>  // select_rows, row and column blocks: a model's last row, its heads

#include <cxmat/transformer/activations.hpp>
#include <cxmat/transformer/embedding.hpp>
#include <cxmat/transformer/layers.hpp>
#include <cxmat/transformer/linear.hpp>
#include <cxmat/transformer/norms.hpp>
#include <cxmat/transformer/positions.hpp>  // sinusoidal and learned positions (rotary is an attention option)
