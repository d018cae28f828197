// The digit sorter's forward pass, as train.py's SortDigits.forward: embedding + positions, the
// encoder, the head, then the most likely digit at each position. One definition for the host
// program (sort_digits.cpp, in the compiler and at run time) and the Cortex-M firmware
// (examples/embedded), both on the headers that scripts/cxmat_import.py writes in the build.
#pragma once

#include <cstddef>

#include <cxmat/core/matrix.hpp>
#include <cxmat/transformer/embedding.hpp>

#include "sort_embed.hpp"    // embed.weight: 10 x 32
#include "sort_encoder.hpp"  // encoder.layers.0. and .1.: 2 x nn.TransformerEncoderLayer(32, 4, 64)
#include "sort_head.hpp"     // head: nn.Linear(32, 10)
#include "sort_pos.hpp"      // pos: 8 x 32 learned positions

namespace sort_model {

inline constexpr std::size_t length = 8;  // digits per sequence

/// The sorted sequence the model predicts for a row of 8 digit tokens (0 to 9).
constexpr cxmat::matrix<std::size_t, 1, length> predict(const cxmat::matrix<int, 1, length>& digits) noexcept {
  const auto x = sort_embed(digits) + sort_pos_weights::pos;
  return cxmat::argmax_rows(sort_head(sort_encoder(x)));
}

}  // namespace sort_model
