// The trained digit sorter of examples/sort_digits in int8, as a firmware program: the model that
// the compiler calibrates (sort_model_q8.hpp: the embedding table, the positions, two int8
// encoder layers and the head, integers only), run on the float sorter's ten sequences
// (layers_sort.hpp). Its own header, so that only the programs that run it pay for the
// calibration in the compiler. Shared by the firmware and the host check, which runs the same
// model on the same sequences and must print the same int8 logits, byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cxmat/core/matrix.hpp>

#include "layers_sort.hpp"
#include "sort_model_q8.hpp"

namespace layers {

/// The int8 sorter: 8 digit tokens in, the 8 predicted digits out; logits(x), the int8 logits
/// (8 x 10) behind them, which the harness prints too.
struct sort_digits_q8 {
  static constexpr const char* name = "sort_digits_q8";
  using input = sort_digits::input;
  using output = sort_digits::output;
  using logits_type = cxmat::matrix<std::int8_t, sort_model::length, sort::digits.size>;
  static constexpr std::size_t sequences = sort_digits::sequences;
  static constexpr input make_input(std::size_t k) noexcept { return sort_digits::make_input(k); }
  /// The scratch memory of a call, a compile-time constant (the workspace the layers keep on the stack).
  static constexpr std::size_t scratch = cxmat::q8::scratch_bytes<sort_model_q8::model, sort_model::length>;
  static output run(const input& x) noexcept { return sort_model_q8::calibrated.predict(x); }
  static logits_type logits(const input& x) noexcept { return sort_model_q8::calibrated.logits(x); }
};

/// The same model computing in a workspace of the program's (.bss): the stack keeps only rows and frames.
struct sort_digits_q8_workspace : sort_digits_q8 {
  static constexpr const char* name = "sort_digits_q8_workspace";
  static output run(const input& x) noexcept {
    static sort_model_q8::model::workspace<sort_model::length> ws;
    return sort_model_q8::calibrated.predict(x, ws);
  }
};

}  // namespace layers
