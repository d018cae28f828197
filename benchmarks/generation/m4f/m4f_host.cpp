// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The Cortex-M4F benchmark's int8 model on the host: the tokens the firmware must print, in its
// format ("row" and 9 tokens in 8 hex digits per line).
#include <cstdio>

#include "llama_q8_layer.hpp"

int main() {
  const auto y = layers::external::run(layers::external::make_input());
  for (std::size_t i = 0; i < y.rows; ++i) {
    std::printf("row");
    for (std::size_t j = 0; j < y.cols; ++j) std::printf(" %08x", static_cast<unsigned>(y(i, j)));
    std::printf("\n");
  }
}
