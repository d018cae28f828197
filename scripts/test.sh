#!/usr/bin/env bash
# The whole test suite: installs what is missing, then configures, builds and runs every test in
# four configurations: g++ -O2 (static, run-time, the kernel and fuzz tests with -march=native,
# compile-fail, examples, firmware in QEMU, lint, install check, benchmark smoke build),
# clang++ 19 under AddressSanitizer and UndefinedBehaviorSanitizer (every static and run-time
# test, the kernel variants at every packet width, examples), clang++ 19 -std=c++2c (shape errors
# as sentences: compile-fail snippets, the static tests but attention's, header check) and
# clang++ 14 (static tests, compile-fail suite, exercises, header check). Prints the time of every
# stage at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

stage_names=()
stage_seconds=()
timed() {  # timed NAME COMMAND...: runs COMMAND, records its wall time under NAME
  local name=$1 start=$SECONDS
  shift
  "$@"
  stage_names+=("$name")
  stage_seconds+=($((SECONDS - start)))
}
summary() {
  echo "==================== stage times ===================="
  local i total=0
  for i in "${!stage_names[@]}"; do
    printf '  %-24s %5d s\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
    total=$((total + stage_seconds[i]))
  done
  printf '  %-24s %5d s\n' "total" "$total"
}
trap summary EXIT

timed install-deps bash scripts/install-deps.sh test

for preset in gcc clang19 clang19-c++2c clang14; do
  echo "==================== $preset ===================="
  timed "$preset configure" cmake --preset "$preset"
  timed "$preset build" cmake --build --preset "$preset"
  timed "$preset test" ctest --preset "$preset"
done
