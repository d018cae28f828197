// The benchmark program's main (Google Benchmark); the benchmarks are in the other files.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
