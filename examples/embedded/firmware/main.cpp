// Firmware for a Cortex-M: a frame of sensor data arrives at run time in a buffer that a DMA
// controller (or an interrupt) fills; the program runs one attention layer on it with weights
// that live in flash, and leaves the result in an output buffer. The layer is chosen at build
// time (CXMAT_EMBEDDED_STEP) so that each program's size can be measured on its own.
//
// With CXMAT_FIRMWARE_HARNESS the same layer runs once in an emulator instead: the harness
// fills the input buffer, runs the layer between two timer reads with the stack painted, prints
// the result (the bits of each float, in hex) and the measurements through semihosting, and
// ends the emulation. A sequence model (the digit sorter, layers_sort.hpp) runs on each of its
// sequences and prints each with its result as digits; the first call is measured. An int8
// sequence model (layers_sort_q8.hpp) prints its int8 logits too, after the measured calls.
// CXMAT_FIRMWARE_FAULT builds the negative controls of that test: a wrong result, a hang, a
// crash, or no output at all (the sequence models' check has its control without an image).
#include <cstddef>
#include <cstdint>

#include <cxmat/core/matrix.hpp>

#include "layers.hpp"
#if CXMAT_EMBEDDED_STEP == 5 || CXMAT_EMBEDDED_STEP == 6 || CXMAT_EMBEDDED_STEP == 12 || CXMAT_EMBEDDED_STEP == 15
#include "layers_q8.hpp"
#endif
#if CXMAT_EMBEDDED_STEP == 9
#include "layers_sort.hpp"
#endif
#if CXMAT_EMBEDDED_STEP == 10 || CXMAT_EMBEDDED_STEP == 13
#include "layers_sort_q8.hpp"
#endif
#if CXMAT_EMBEDDED_STEP == 11 || CXMAT_EMBEDDED_STEP == 14
#include "layers_lm.hpp"
#endif

#define CXMAT_STEP_BASELINE 0
#define CXMAT_STEP_SELF 1
#define CXMAT_STEP_CROSS 2
#define CXMAT_STEP_CROSS_FOLDED 3
#define CXMAT_STEP_WORKSHEET_004 4
#define CXMAT_STEP_Q8_SELF 5
#define CXMAT_STEP_Q8_WORKSHEET_004 6
#define CXMAT_STEP_EXTERNAL 7  // layers::external from the header CXMAT_EXTERNAL_LAYER (benchmarks)
#define CXMAT_STEP_ENCODER_LAYER 8
#define CXMAT_STEP_SORT_DIGITS 9         // a whole trained model: sequences in, sequences out (layers_sort.hpp)
#define CXMAT_STEP_SORT_DIGITS_Q8 10     // the same model in int8, calibrated by the compiler (layers_sort_q8.hpp)
#define CXMAT_STEP_LM_ADDER_Q8 11        // a language model in int8 generating over its cache (layers_lm.hpp)
#define CXMAT_STEP_Q8_SELF_WORKSPACE 12  // CXMAT_STEP_Q8_SELF computing in a static workspace (.bss)
#define CXMAT_STEP_SORT_DIGITS_Q8_WORKSPACE 13  // CXMAT_STEP_SORT_DIGITS_Q8 likewise
#define CXMAT_STEP_LM_ADDER_Q8_STORAGE 14       // CXMAT_STEP_LM_ADDER_Q8 generating in a static generation
#define CXMAT_STEP_Q8_PRODUCTS 15               // int8 products at the shapes a vector kernel must get right
#define CXMAT_STEP_ENCODER_LAYER_WORKSPACE 16   // CXMAT_STEP_ENCODER_LAYER computing in a static workspace
#if !defined(CXMAT_EMBEDDED_STEP)
#define CXMAT_EMBEDDED_STEP CXMAT_STEP_SELF
#endif

#if CXMAT_EMBEDDED_STEP == CXMAT_STEP_BASELINE
using layer = layers::baseline;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_SELF
using layer = layers::self_attention;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_CROSS
using layer = layers::cross_attention;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_CROSS_FOLDED
using layer = layers::cross_attention_folded;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_WORKSHEET_004
using layer = layers::worksheet_004;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_Q8_SELF
using layer = layers::q8_self_attention;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_Q8_WORKSHEET_004
using layer = layers::q8_worksheet_004;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_Q8_PRODUCTS
using layer = layers::q8_products;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_EXTERNAL
#include CXMAT_EXTERNAL_LAYER
using layer = layers::external;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_ENCODER_LAYER
using layer = layers::encoder_layer;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_ENCODER_LAYER_WORKSPACE
using layer = layers::encoder_layer_workspace;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_SORT_DIGITS
using layer = layers::sort_digits;
#define CXMAT_SEQUENCE_MODEL 1
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_SORT_DIGITS_Q8
using layer = layers::sort_digits_q8;
#define CXMAT_SEQUENCE_MODEL 1
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_LM_ADDER_Q8
using layer = layers::lm_adder_q8;
#define CXMAT_SEQUENCE_MODEL 1
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_Q8_SELF_WORKSPACE
using layer = layers::q8_self_attention_workspace;
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_SORT_DIGITS_Q8_WORKSPACE
using layer = layers::sort_digits_q8_workspace;
#define CXMAT_SEQUENCE_MODEL 1
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_LM_ADDER_Q8_STORAGE
using layer = layers::lm_adder_q8_storage;
#define CXMAT_SEQUENCE_MODEL 1
#else
#error "unknown CXMAT_EMBEDDED_STEP"
#endif

using input = layer::input;
using output = layer::output;

// Written by hardware the compiler cannot see: volatile, in RAM (.bss).
extern "C" {
volatile input::value_type sensor_frame[input::rows][input::cols];
volatile bool frame_ready;
volatile output::value_type attention_out[output::rows][output::cols];
}

namespace {

input read_frame() noexcept {
  input x{};
  for (std::size_t i = 0; i < input::rows; ++i) {
    for (std::size_t j = 0; j < input::cols; ++j) x(i, j) = sensor_frame[i][j];
  }
  return x;
}

void write_result(const output& y) noexcept {
  for (std::size_t i = 0; i < output::rows; ++i) {
    for (std::size_t j = 0; j < output::cols; ++j) attention_out[i][j] = y(i, j);
  }
}

}  // namespace

#if !defined(CXMAT_SEQUENCE_MODEL)
#define CXMAT_SEQUENCE_MODEL 0
#endif

#if !defined(CXMAT_FIRMWARE_HARNESS)

int main() {
  for (;;) {
    while (!frame_ready) {
    }
    frame_ready = false;
    write_result(layer::run(read_frame()));
  }
}

#else

#include <bit>
#include <utility>

#include "harness.hpp"

#if !defined(CXMAT_FIRMWARE_FAULT)
#define CXMAT_FIRMWARE_FAULT 0
#endif
#define CXMAT_FAULT_WRONG 1   // one output value off by one part in 10^4 (float), by 1 (int8)
#define CXMAT_FAULT_HANG 2    // never returns
#define CXMAT_FAULT_CRASH 3   // executes an undefined instruction: HardFault
#define CXMAT_FAULT_SILENT 4  // exits successfully without printing

namespace {

// The one call that is measured: a frame in, a result out, as in the production loop.
[[gnu::noinline]] void run_step() { write_result(layer::run(read_frame())); }

// A float's bits, 8 hex digits; an int8's byte, 2; an int (a token id) in 8 hex digits.
[[maybe_unused]] void print_value(harness::line& out, float v) noexcept { out.hex(std::bit_cast<std::uint32_t>(v), 8); }
[[maybe_unused]] void print_value(harness::line& out, int v) noexcept { out.hex(static_cast<std::uint32_t>(v), 8); }
[[maybe_unused]] void print_value(harness::line& out, std::int8_t v) noexcept {
  out.hex(static_cast<std::uint8_t>(v), 2);
}

[[maybe_unused]] float wrong(float v) noexcept { return v * 1.0001f; }
[[maybe_unused]] std::int8_t wrong(std::int8_t v) noexcept { return static_cast<std::int8_t>(v == 127 ? 126 : v + 1); }

// A layer's scratch memory, the compile-time constant of the target (with the DSP extension the
// int8 attention's scratch holds V transposed too), for the report beside the measured stack.
template <class L>
void report_scratch(harness::line& out) noexcept {
  if constexpr (requires { L::scratch; }) out.text("scratch ").dec(static_cast<std::uint32_t>(L::scratch)).emit();
}

// The faults that end a run early or silently, after the layer ran.
void stop_if_faulty() noexcept {
#if CXMAT_FIRMWARE_FAULT == CXMAT_FAULT_HANG
  for (volatile bool forever = true; forever;) {
  }
#elif CXMAT_FIRMWARE_FAULT == CXMAT_FAULT_CRASH
  __asm__ volatile("udf #0");  // permanently undefined: a HardFault on every Cortex-M
#elif CXMAT_FIRMWARE_FAULT == CXMAT_FAULT_SILENT
  harness::exit(true);
#endif
}

}  // namespace

#if CXMAT_SEQUENCE_MODEL

// A sequence model runs on each of its sequences in turn, each as a frame in the input buffer;
// the harness keeps every sequence with the model's result and prints them as digits, one line
// each, after the last. The measured call is the first sequence's. A model with int8 logits
// (layer::logits) prints them after each sequence's line, one line per position, in hex.
namespace {

template <class L>
concept has_characters = requires {
  L::characters[0];
};

template <class L>
concept has_logits = requires(const typename L::input& x) {
  L::logits(x);
};

struct no_logits {};
template <class L>
struct logits_of {
  using type = no_logits;
};
template <has_logits L>
struct logits_of<L> {
  using type = typename L::logits_type;
};

template <class L>
struct sequence_result {
  typename L::input in;
  typename L::output out;
  [[no_unique_address]] typename logits_of<L>::type logits;
};

template <class L, std::size_t k>
void run_sequence(harness::measurement& m, sequence_result<L>& result) noexcept {
  constexpr typename L::input x = L::make_input(k);
  for (std::size_t j = 0; j < input::cols; ++j) sensor_frame[0][j] = x(0, j);
  if constexpr (k == 0) {
    m = harness::measure(run_step);
  } else {
    run_step();
  }
  result.in = x;
  for (std::size_t j = 0; j < output::cols; ++j) result.out(0, j) = attention_out[0][j];
}

template <class L>
[[noreturn]] void run_sequences() noexcept {
  static_assert(input::rows == 1 && output::rows == 1, "a sequence model's frame is one row");
  harness::measurement m{};
  sequence_result<L> results[L::sequences]{};
  [&]<std::size_t... k>(std::index_sequence<k...>) { (run_sequence<L, k>(m, results[k]), ...); }
  (std::make_index_sequence<L::sequences>{});
  if constexpr (has_logits<L>) {
    for (sequence_result<L>& r : results) r.logits = L::logits(r.in);
  }
  stop_if_faulty();

  harness::line out;
  out.text("layer ").text(L::name).text(" ").dec(L::sequences).text(" ").dec(output::cols).emit();
  for (const sequence_result<L>& r : results) {
    out.text("sorted ");
    if constexpr (has_characters<L>) {  // a language model: its prompt and the generated text
      for (std::size_t j = 0; j < input::cols; ++j) out.character(L::characters[r.in(0, j)]);
      out.text(" ");
      for (std::size_t j = 0; j < output::cols && r.out(0, j) >= 0; ++j) out.character(L::characters[r.out(0, j)]);
    } else {
      for (std::size_t j = 0; j < input::cols; ++j) out.dec(static_cast<std::uint32_t>(r.in(0, j)));
      out.text(" ");
      for (std::size_t j = 0; j < output::cols; ++j) out.dec(static_cast<std::uint32_t>(r.out(0, j)));
    }
    out.emit();
    if constexpr (has_logits<L>) {
      using logits = typename L::logits_type;
      for (std::size_t i = 0; i < logits::rows; ++i) {
        out.text("logits");
        for (std::size_t j = 0; j < logits::cols; ++j) {
          out.text(" ");
          print_value(out, r.logits(i, j));
        }
        out.emit();
      }
    }
  }
  harness::report(m);
  report_scratch<layer>(out);
  out.text("end").emit();
  harness::exit(true);
}

}  // namespace

int main() { run_sequences<layer>(); }

#else

int main() {
  constexpr input x = layer::make_input();
  for (std::size_t i = 0; i < input::rows; ++i) {
    for (std::size_t j = 0; j < input::cols; ++j) sensor_frame[i][j] = x(i, j);
  }
  const harness::measurement m = harness::measure(run_step);
#if CXMAT_FIRMWARE_FAULT == CXMAT_FAULT_WRONG
  attention_out[output::rows / 2][output::cols / 2] = wrong(attention_out[output::rows / 2][output::cols / 2]);
#endif
  stop_if_faulty();

  harness::line out;
  out.text("layer ").text(layer::name).text(" ").dec(output::rows).text(" ").dec(output::cols).emit();
  for (std::size_t i = 0; i < output::rows; ++i) {
    out.text("row");
    for (std::size_t j = 0; j < output::cols; ++j) {
      out.text(" ");
      print_value(out, attention_out[i][j]);
    }
    out.emit();
  }
  harness::report(m);
  report_scratch<layer>(out);
  out.text("end").emit();
  harness::exit(true);
}

#endif  // CXMAT_SEQUENCE_MODEL

#endif
