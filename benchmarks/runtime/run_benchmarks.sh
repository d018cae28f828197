#!/bin/sh
# Measures cxmat's run-time speed (docs/performance.md): builds cxmat_runtime_bench with each
# compiler at -O3 -march=native, runs every benchmark REPETITIONS times in random order, and
# prints the medians and the cxmat/Eigen ratios.
#
#   benchmarks/runtime/run_benchmarks.sh                 # g++ and clang++-19
#   benchmarks/runtime/run_benchmarks.sh clang++-14      # any compilers
#
# Environment: BUILD_ROOT (default <repo>/build/runtime-bench), REPETITIONS (12), MIN_TIME
# (seconds per repetition, 0.2), FILTER (a benchmark regex, default all), BENCH_FLAGS
# ("-O3 -march=native"), JOBS (2). Results: <BUILD_ROOT>/<compiler>/results.json and summary.md.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_root=${BUILD_ROOT:-$root/build/runtime-bench}
repetitions=${REPETITIONS:-12}
min_time=${MIN_TIME:-0.2}
filter=${FILTER:-.}
flags=${BENCH_FLAGS:--O3 -march=native}

[ $# -gt 0 ] || set -- g++ clang++-19

for cxx in "$@"; do
  dir="$build_root/$(basename "$cxx")"
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS_RELEASE="$flags -DNDEBUG" -DCXMAT_BUILD_TESTS=OFF -DCXMAT_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$dir" --target cxmat_runtime_bench -j "${JOBS:-2}"
  "$dir/benchmarks/runtime/cxmat_runtime_bench" --benchmark_filter="$filter" \
    --benchmark_repetitions="$repetitions" --benchmark_min_time="$min_time" \
    --benchmark_report_aggregates_only=true --benchmark_enable_random_interleaving=true \
    --benchmark_out="$dir/results.json" --benchmark_out_format=json >/dev/null
  python3 "$here/summarize.py" "$dir/results.json" "$("$cxx" --version | head -n 1)" "$flags" >"$dir/summary.md"
  cat "$dir/summary.md"
done
