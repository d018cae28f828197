// A trained transformer that the compiler runs: train.py's digit sorter (sort_digits.safetensors),
// imported by scripts/cxmat_import.py in the build. The compiler sorts a few sequences
// (static_assert); at run time the program sorts them again and, where the build made PyTorch's
// predictions for train.py's held-out sequences (CXMAT_SORT_DIGITS_REFERENCE), reproduces them
// prediction for prediction and reports the accuracy.
//   sort_digits [N]   compares the first N held-out sequences (default: all 10,000)
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include <cxmat/transformer.hpp>

#include "sort_model.hpp"  // predict: the forward pass, on the imported weights
#if CXMAT_SORT_DIGITS_REFERENCE
#include "held_out.hpp"  // predictions.py: held-out sequences and PyTorch's predictions
#endif

using sort_model::predict;

struct digits8 {
  char text[9];
  constexpr bool operator==(const digits8&) const = default;
};

constexpr digits8 sorted(const digits8& in) {
  cxmat::matrix<int, 1, 8> tokens{};
  for (std::size_t i = 0; i < 8; ++i) tokens(0, i) = in.text[i] - '0';
  const auto p = predict(tokens);
  digits8 out{};
  for (std::size_t i = 0; i < 8; ++i) out.text[i] = static_cast<char>('0' + p(0, i));
  return out;
}

// The compiler runs the trained model: a wrong weight or a wrong layer fails the build.
constexpr digits8 examples[] = {{"31415926"}, {"27182818"}, {"98765432"}, {"00000000"}, {"90909090"}};
constexpr digits8 expected[] = {{"11234569"}, {"11227888"}, {"23456789"}, {"00000000"}, {"00009999"}};
static_assert(sorted(examples[0]) == expected[0]);
static_assert(sorted(examples[1]) == expected[1]);
static_assert(sorted(examples[2]) == expected[2]);
static_assert(sorted(examples[3]) == expected[3]);
static_assert(sorted(examples[4]) == expected[4]);

int main(int argc, char** argv) {
  bool examples_right = true;
  for (std::size_t k = 0; k < 5; ++k) {  // the same, at run time
    const digits8 out = sorted(examples[k]);
    examples_right = examples_right && out == expected[k];
    std::printf("%s -> %s\n", examples[k].text, out.text);
  }
  if (!examples_right) return 1;
#if CXMAT_SORT_DIGITS_REFERENCE
  std::size_t count = held_out_count;
  if (argc > 1) count = static_cast<std::size_t>(std::strtoul(argv[1], nullptr, 10));
  if (count > held_out_count) count = held_out_count;
  std::size_t same = 0, fully_sorted = 0;
  for (std::size_t s = 0; s < count; ++s) {
    cxmat::matrix<int, 1, 8> tokens{};
    for (std::size_t i = 0; i < 8; ++i) tokens(0, i) = held_out_digits[s][i];
    const auto p = predict(tokens);
    bool agrees = true, ascending = true;
    unsigned counts[10]{};
    for (std::size_t i = 0; i < 8; ++i) {
      agrees = agrees && p(0, i) == pytorch_predictions[s][i];
      ascending = ascending && (i == 0 || p(0, i - 1) <= p(0, i));
      ++counts[held_out_digits[s][i]];
    }
    for (std::size_t i = 0; i < 8; ++i) counts[p(0, i)] -= 1;  // the same digits, as many times each
    bool same_digits = true;
    for (unsigned c : counts) same_digits = same_digits && c == 0;
    same += agrees ? 1U : 0U;
    fully_sorted += (ascending && same_digits) ? 1U : 0U;
  }
  std::printf(
      "held-out: %zu of %zu sequences predicted as PyTorch predicts them; %zu fully sorted (%.2f %%; "
      "PyTorch: %zu of %zu on all)\n",
      same, count, fully_sorted, 100.0 * static_cast<double>(fully_sorted) / static_cast<double>(count),
      pytorch_fully_sorted, held_out_count);
  return same == count ? 0 : 1;
#else
  (void)argc;
  (void)argv;
  std::printf("(PyTorch's predictions were not made in this build: held-out sequences not compared)\n");
  return 0;
#endif
}
