// The embedded example's steps on the host: what folding the fixed context's keys and values
// at compile time saves per call (examples/embedded, docs/embedded.md).
#include <memory>

#include <benchmark/benchmark.h>

#include "attention_steps.hpp"

namespace {

template <model::frame (*Step)(const model::frame&) noexcept>
[[gnu::noinline]] void run_step(const model::frame& x, model::frame& y) {
  y = Step(x);
}

template <model::frame (*Step)(const model::frame&) noexcept>
void bm_step(benchmark::State& state) {
  auto x = std::make_unique<model::frame>();
  for (std::size_t i = 0; i < model::tokens; ++i) {
    for (std::size_t j = 0; j < model::width; ++j) (*x)(i, j) = 0.01f * static_cast<float>((i * 7 + j * 3) % 11);
  }
  auto y = std::make_unique<model::frame>();
  for (auto _ : state) {
    benchmark::DoNotOptimize(x.get());
    run_step<Step>(*x, *y);
    benchmark::ClobberMemory();
  }
}

BENCHMARK(bm_step<model::self_attention_step>)->Name("embedded/self_attention");
BENCHMARK(bm_step<model::cross_attention_step>)->Name("embedded/cross_attention/kv_at_run_time");
BENCHMARK(bm_step<model::cross_attention_step_folded>)->Name("embedded/cross_attention/kv_folded");

}  // namespace
