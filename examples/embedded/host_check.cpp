// The embedded example's attention steps, run on the host: the computation the firmware does,
// checked here because the firmware itself only builds (there is no Cortex-M to run it on).
// Folding the context's keys and values at compile time must not change the result beyond
// rounding, and every output is a finite average of values.
#include <cmath>
#include <cstdio>

#include "attention_steps.hpp"

namespace {

model::frame some_frame(float phase) {
  model::frame x{};
  for (std::size_t i = 0; i < model::tokens; ++i) {
    for (std::size_t j = 0; j < model::width; ++j) {
      x(i, j) = std::sin(phase + 0.37f * static_cast<float>(i) + 0.11f * static_cast<float>(j * j));
    }
  }
  return x;
}

}  // namespace

// The folded keys and values are what the run-time projection computes, done by the compiler.
static_assert(model::memory_keys == cxmat::matmul(model::memory, model::wk));

int main() {
  int failures = 0;
  for (const float phase : {0.0f, 0.5f, 1.7f}) {
    volatile float opaque_phase = phase;  // an input the compiler cannot fold
    const model::frame x = some_frame(opaque_phase);
    const model::frame self = model::self_attention_step(x);
    const model::frame cross = model::cross_attention_step(x);
    const model::frame folded = model::cross_attention_step_folded(x);
    float worst = 0.0f;
    for (std::size_t i = 0; i < model::tokens; ++i) {
      for (std::size_t j = 0; j < model::width; ++j) {
        if (!std::isfinite(self(i, j)) || !std::isfinite(cross(i, j))) ++failures;
        worst = std::fmax(worst, std::fabs(cross(i, j) - folded(i, j)));
      }
    }
    // Keys and values rounded by the compiler (no fused multiply-add) or at run time (maybe
    // fused) differ by a few ulp of values of size ~1; the outputs, averages of them through
    // W_o, by a few 1e-6 at most.
    std::printf("phase %.1f: |cross - cross_folded| <= %.2e\n", static_cast<double>(phase), static_cast<double>(worst));
    if (!(worst <= 1e-5f)) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
