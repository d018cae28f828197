// The trained digit sorter of examples/sort_digits as a firmware program: a whole model (token
// embedding, learned positions, two float encoder layers of d_model 32, the head and argmax) whose
// weights are the constexpr objects of the headers that scripts/cxmat_import.py writes from
// sort_digits.safetensors in the build. Shared by the firmware and the host check, which runs
// the same forward pass (sort_model.hpp) on the same sequences.
//
// A sequence model, unlike the layers of layers.hpp, has several inputs: the harness runs it on
// each of `sequences` inputs (make_input(k)) and prints each sequence with the model's result.
// The int8 version (layers_sort_q8.hpp) is another struct of the same form, on the same
// sequences, with its own step in firmware/main.cpp that sets CXMAT_SEQUENCE_MODEL and its own
// line in firmware_check.cpp's dispatch to check_sequences; the firmware check's sort_* symbol
// rule shows that the float weights are not in its image.
#pragma once

#include <cstddef>

#include <cxmat/core/matrix.hpp>

#include "sort_model.hpp"

namespace layers {

/// The sequences every sorter program sorts: the five that sort_digits.cpp checks in the
/// compiler, then five more (sorted already, repeated digits, a date, one digit moved).
inline constexpr char sort_sequences[][sort_model::length + 1] = {"31415926", "27182818", "98765432", "00000000",
                                                                  "90909090", "12345678", "55501234", "20261126",
                                                                  "86420864", "77777770"};

/// train.py's model in float: 8 digit tokens in, the 8 predicted digits out.
struct sort_digits {
  static constexpr const char* name = "sort_digits";
  using input = cxmat::matrix<int, 1, sort_model::length>;           // digit tokens 0 to 9
  using output = cxmat::matrix<std::size_t, 1, sort_model::length>;  // the predicted digits
  static constexpr std::size_t sequences = sizeof(sort_sequences) / sizeof(sort_sequences[0]);
  static constexpr input make_input(std::size_t k) noexcept {
    input x{};
    for (std::size_t i = 0; i < sort_model::length; ++i) x(0, i) = sort_sequences[k][i] - '0';
    return x;
  }
  static output run(const input& x) noexcept { return sort_model::predict(x); }
};

}  // namespace layers
