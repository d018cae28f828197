// Firmware for a Cortex-M: a frame of sensor data arrives at run time in a buffer that a DMA
// controller (or an interrupt) fills; the program runs one attention step on it with weights
// that live in flash, and leaves the result in an output buffer. The step is chosen at build
// time (CXMAT_EMBEDDED_STEP) so that each program's size can be measured on its own.
#include <cstddef>

#include <cxmat/core/matrix.hpp>

#include "attention_steps.hpp"

#define CXMAT_STEP_SELF 1
#define CXMAT_STEP_CROSS 2
#define CXMAT_STEP_CROSS_FOLDED 3
#if !defined(CXMAT_EMBEDDED_STEP)
#define CXMAT_EMBEDDED_STEP CXMAT_STEP_SELF
#endif

// Written by hardware the compiler cannot see: volatile, in RAM (.bss).
extern "C" {
volatile float sensor_frame[model::tokens][model::width];
volatile bool frame_ready;
volatile float attention_out[model::tokens][model::width];
}

namespace {

model::frame read_frame() noexcept {
  model::frame x{};
  for (std::size_t i = 0; i < model::tokens; ++i) {
    for (std::size_t j = 0; j < model::width; ++j) x(i, j) = sensor_frame[i][j];
  }
  return x;
}

void write_result(const model::frame& y) noexcept {
  for (std::size_t i = 0; i < model::tokens; ++i) {
    for (std::size_t j = 0; j < model::width; ++j) attention_out[i][j] = y(i, j);
  }
}

}  // namespace

int main() {
  for (;;) {
    while (!frame_ready) {
    }
    frame_ready = false;
#if CXMAT_EMBEDDED_STEP == CXMAT_STEP_SELF
    write_result(model::self_attention_step(read_frame()));
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_CROSS
    write_result(model::cross_attention_step(read_frame()));
#elif CXMAT_EMBEDDED_STEP == CXMAT_STEP_CROSS_FOLDED
    write_result(model::cross_attention_step_folded(read_frame()));
#else
#error "unknown CXMAT_EMBEDDED_STEP"
#endif
  }
}
