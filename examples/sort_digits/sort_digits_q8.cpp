// The digit sorter in int8 (cxmat::q8, sort_model_q8.hpp): train.py's float model
// (sort_digits.safetensors, imported in the build) calibrated the way TFLite's post-training
// quantization does it, then run in integers only. Two calibrations of one definition: at run
// time on 64 random sequences (drawn here, not the held-out ones), and the compiler's on the first
// sort_model_q8::compile_time_sequences of them, the model the Cortex-M firmware runs
// (examples/embedded). Where the build made PyTorch's held-out sequences
// (CXMAT_SORT_DIGITS_REFERENCE), it prints the share of them each int8 model sorts beside the
// float model's, and fails below the floors int8_floor and compile_time_floor.
//   sort_digits_q8 [N]   the first N held-out sequences (default: all 10,000)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <cxmat/quantized.hpp>
#include <cxmat/transformer.hpp>

#include "sort_model_q8.hpp"
#if CXMAT_SORT_DIGITS_REFERENCE
#include "held_out.hpp"  // predictions.py: held-out sequences and PyTorch's predictions
#endif

namespace {

namespace q8 = cxmat::q8;
using sort_model_q8::tokens;

// The shares of held-out sequences the int8 models must sort. Calibrated at run time on 64
// sequences, it sorted 9,999 of all 10,000 (99.99 %, as the float model; every int8 prediction
// equal to the float one) and all of the first 1,000 when this example was written; calibrated by
// the compiler on fewer, see compile_time_floor.
constexpr double int8_floor = 0.999;
constexpr double compile_time_floor = 0.999;

// Calibration at run time on the first 64 sequences of the calibration stream: the compiler's
// steps (sort_model_q8.hpp), the batches on the heap.
bool calibrate_at_run_time(sort_model_q8::model& m) {
  constexpr std::size_t sequences = 64;
  using batch = sort_model_q8::batch<sequences>;
  const auto xs = std::make_unique<batch>(sort_model_q8::calibration_inputs<sequences>());
  const sort_model_q8::layer_calibration l0 = q8::calibrate(*xs, sort_model_q8::double_layers[0]);
  const auto hidden = std::make_unique<batch>(sort_model_q8::layer_outputs(*xs, 0));
  const sort_model_q8::layer_calibration l1 = q8::calibrate(*hidden, sort_model_q8::double_layers[1]);
  m = sort_model_q8::assemble(l0, l1, sort_model_q8::logits_quantization(*hidden));
  return sort_model_q8::fit_together(l0, l1);
}

void print(const char* in, const cxmat::matrix<std::size_t, 1, 8>& p, const char* what) {
  std::printf("%s -> ", in);
  for (std::size_t i = 0; i < 8; ++i) std::printf("%zu", p(0, i));
  std::printf(" (%s)\n", what);
}

}  // namespace

int main(int argc, char** argv) {
  const auto run_time = std::make_unique<sort_model_q8::model>();
  if (!calibrate_at_run_time(*run_time)) {
    std::printf("calibration failed, or layer 1's input quantization is not layer 0's output quantization\n");
    return 1;
  }
  const sort_model_q8::model& compile_time = sort_model_q8::calibrated;
  const tokens example{{{3, 1, 4, 1, 5, 9, 2, 6}}};
  print("31415926", run_time->predict(example), "int8, calibrated at run time on 64 sequences");
  char what[64];
  std::snprintf(what, sizeof what, "int8, calibrated by the compiler on %zu sequences",
                sort_model_q8::compile_time_sequences);
  print("31415926", compile_time.predict(example), what);
#if CXMAT_SORT_DIGITS_REFERENCE
  std::size_t count = held_out_count;
  if (argc > 1) count = static_cast<std::size_t>(std::strtoul(argv[1], nullptr, 10));
  if (count > held_out_count) count = held_out_count;
  std::size_t sorted_int8 = 0, sorted_compiled = 0, sorted_float = 0, same = 0, same_compiled = 0;
  for (std::size_t s = 0; s < count; ++s) {
    tokens digits{};
    for (std::size_t i = 0; i < 8; ++i) digits(0, i) = held_out_digits[s][i];
    const auto p8 = run_time->predict(digits);
    const auto pc = compile_time.predict(digits);
    const auto pf = sort_model::predict(digits);
    // Fully sorted: the prediction is the sorted sequence (the digits counted, then laid out).
    unsigned counts[10]{};
    for (std::size_t i = 0; i < 8; ++i) ++counts[held_out_digits[s][i]];
    std::size_t want[8]{}, k = 0;
    for (std::size_t d = 0; d < 10; ++d) {
      for (unsigned c = 0; c < counts[d]; ++c) want[k++] = d;
    }
    bool ok8 = true, okc = true, okf = true, agree = true, agree_compiled = true;
    for (std::size_t i = 0; i < 8; ++i) {
      ok8 = ok8 && p8(0, i) == want[i];
      okc = okc && pc(0, i) == want[i];
      okf = okf && pf(0, i) == want[i];
      agree = agree && p8(0, i) == pf(0, i);
      agree_compiled = agree_compiled && pc(0, i) == pf(0, i);
    }
    sorted_int8 += ok8 ? 1U : 0U;
    sorted_compiled += okc ? 1U : 0U;
    sorted_float += okf ? 1U : 0U;
    same += agree ? 1U : 0U;
    same_compiled += agree_compiled ? 1U : 0U;
  }
  const auto percent = [count](std::size_t n) { return 100.0 * static_cast<double>(n) / static_cast<double>(count); };
  std::printf(
      "held-out: int8 sorts %zu of %zu sequences (%.2f %%), float %zu (%.2f %%); the int8 prediction equals the "
      "float one on %zu\n",
      sorted_int8, count, percent(sorted_int8), sorted_float, percent(sorted_float), same);
  std::printf(
      "held-out: int8 calibrated by the compiler on %zu sequences sorts %zu (%.2f %%); its prediction equals the "
      "float one on %zu\n",
      sort_model_q8::compile_time_sequences, sorted_compiled, percent(sorted_compiled), same_compiled);
  return percent(sorted_int8) >= 100.0 * int8_floor && percent(sorted_compiled) >= 100.0 * compile_time_floor ? 0 : 1;
#else
  (void)argc;
  (void)argv;
  std::printf("(PyTorch's held-out sequences were not made in this build: accuracy not measured)\n");
  return 0;
#endif
}
