// The adding language model of examples/lm_adder as a firmware program, in int8: the compiler
// quantizes the float model (adder.safetensors, imported in the build) into int8 weights in
// groups (cxmat::quantize_groups: llama2.c's int8 scheme; norms, rotary and attention over the
// cache in float) and the image holds only that. Each sequence is a sum of two 3-digit numbers
// ("123+456="); the program generates the answer greedily over a cache of keys and values, up
// to its stop token. Shared by the firmware and the host check, which runs the same model on the
// same prompts and must write the same tokens, each the true sum.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cxmat/core/matrix.hpp>
#include <cxmat/generation.hpp>

#include "adder.hpp"

namespace layers {

/// The prompts every adder program answers: carries, zeros, the largest sum.
inline constexpr char lm_prompts[][9] = {
    "123+456=", "999+999=", "505+497=", "100+900=", "808+195=", "314+159=", "500+500=", "271+828="};

/// The int8 adder: a prompt of 8 characters in, the 5 generated tokens out (the sum's digits, the
/// stop token, then -1 for no token).
struct lm_adder_q8 {
  static constexpr const char* name = "lm_adder_q8";
  static constexpr const char* characters = lm_adder::characters;
  static constexpr std::size_t group = 16;
  static constexpr auto model = cxmat::quantize_groups<group>(lm_adder::adder);
  using input = cxmat::matrix<int, 1, 8>;
  using output = cxmat::matrix<int, 1, lm_adder::longest_answer>;
  static constexpr std::size_t sequences = sizeof(lm_prompts) / sizeof(lm_prompts[0]);
  static constexpr input make_input(std::size_t k) noexcept { return lm_adder::tokens_of<8>(lm_prompts[k]); }
  /// The generation of one answer (the cache, the tokens and one step's workspace: the prompt
  /// goes through it one token at a time), here on the stack: its size, a compile-time constant.
  using storage = cxmat::generation<std::remove_cvref_t<decltype(model)>, cxmat::extent{8 + lm_adder::longest_answer}>;
  static constexpr std::size_t scratch = sizeof(storage);
  static output run(const input& x) noexcept {
    storage generation;
    return cxmat::generate<lm_adder::longest_answer>(model, x, generation, cxmat::greedy,
                                                     cxmat::stop_token{lm_adder::stop});
  }
};

/// The same model generating in a static generation (.bss) instead of on the stack: the same code.
struct lm_adder_q8_storage : lm_adder_q8 {
  static constexpr const char* name = "lm_adder_q8_storage";
  static output run(const input& x) noexcept {
    static storage generation;
    return cxmat::generate<lm_adder::longest_answer>(model, x, generation, cxmat::greedy,
                                                     cxmat::stop_token{lm_adder::stop});
  }
};

}  // namespace layers
