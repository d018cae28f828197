// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// The generation benchmark's LLaMA model (llama2.c's smallest published size: dim 64, 5 layers,
// 8 heads, 4 KV heads, hidden 172, vocabulary 512; random weights from gen_weights.py, header
// llama_weights.hpp) quantized by the compiler into int8 groups of 32 (cxmat::quantize_groups;
// the down projection's rows of 172 in five groups of 32 and one of 12), as the embedded
// example's external layer: BOS in, 63 greedy tokens out over a cache of 64 positions (27 over
// 28 for the smoke model of context 32), the generation in static storage. The firmware prints the tokens in rows of 9;
// m4f_host.cpp runs the same code on the host.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/generation.hpp>

#include "llama_weights.hpp"

namespace layers {

struct external {
  static constexpr const char* name = "llama_q8";
  static constexpr std::size_t group = 32;
  static constexpr std::size_t rows = bench::context >= 64 ? 7 : 3, cols = 9;  // 63 (27) generated tokens
  static constexpr std::size_t context = 1 + rows * cols;
  static constexpr auto model = cxmat::quantize_groups<group>(bench::model);
  using input = cxmat::matrix<int, 1, 1>;
  using output = cxmat::matrix<int, rows, cols>;
  static constexpr input make_input() noexcept { return input{{{1}}}; }  // BOS
  using model_type = std::remove_cvref_t<decltype(model)>;
  static output run(const input& x) noexcept {
    // The generation (its cache: 82 KB) in .bss, sized when the image is linked, not on the stack.
    static cxmat::generation<model_type, cxmat::extent{context}> storage;
    const auto tokens = cxmat::generate<rows * cols>(model, x, storage);
    output y{};
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j) y(i, j) = tokens(0, i * cols + j);
    }
    return y;
  }
};

}  // namespace layers
