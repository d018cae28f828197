#!/usr/bin/env bash
# The worksheet demo: installs what is missing, builds the examples, and runs each worksheet's
# solution. Every number they print was computed by the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh demo

build=build/demo
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCXMAT_BUILD_TESTS=OFF -DCXMAT_BUILD_BENCHMARKS=OFF -DCXMAT_BUILD_EXAMPLES=ON > /dev/null
cmake --build "$build" --target quickstart worksheet_000_two_heads worksheet_001_multihead \
  worksheet_003_forward_passes worksheet_004_self_attention

for example in quickstart worksheet_000_two_heads worksheet_001_multihead worksheet_003_forward_passes \
               worksheet_004_self_attention; do
  echo
  echo "==================== $example ===================="
  "$build/examples/$example"
done
