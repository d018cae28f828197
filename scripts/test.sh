#!/usr/bin/env bash
# The whole test suite: installs what is missing, then configures, builds and runs every test in
# four configurations: g++ -O2 (static, run-time, the kernel and fuzz tests with -march=native,
# compile-fail, examples, firmware in QEMU, lint, header and install checks, benchmark smoke
# build), clang++ 19 under AddressSanitizer and UndefinedBehaviorSanitizer (every static and
# run-time test, the kernel variants at every packet width, examples), clang++ 19 -std=c++2c
# (shape errors as sentences: compile-fail snippets, the static tests but attention's and
# generation's, header check) and clang++ 14 (static tests, compile-fail suite, exercises, header
# check). Prints the time of every stage at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

stage_names=()
stage_seconds=()
stage_cpu=()
cpu_file=$(mktemp)
cpu_now=0
children_cpu() {  # cpu_now = user + system seconds of this shell's finished child processes
  times >"$cpu_file"  # in this shell: in a $(...) subshell, times counts the subshell's children
  cpu_now=$(tail -n1 "$cpu_file" | awk '{ split($1, u, "m"); split($2, s, "m"); printf "%d", 60 * (u[1] + s[1]) + u[2] + s[2] }')
}
timed() {  # timed NAME COMMAND...: runs COMMAND, records its wall and processor time under NAME
  local name=$1 start=$SECONDS cpu_start
  children_cpu
  cpu_start=$cpu_now
  shift
  "$@"
  children_cpu
  stage_names+=("$name")
  stage_seconds+=($((SECONDS - start)))
  stage_cpu+=($((cpu_now - cpu_start)))
}
# Wall time, and the processor time of the stage's processes (user + system, all cores): their
# ratio shows how well a stage keeps the cores busy, the processor time what it costs.
summary() {
  echo "==================== stage times ===================="
  printf '  %-24s %7s %9s\n' "" "wall" "processor"
  local i total=0 cpu=0
  for i in "${!stage_names[@]}"; do
    printf '  %-24s %5d s %7d s\n' "${stage_names[$i]}" "${stage_seconds[$i]}" "${stage_cpu[$i]}"
    total=$((total + stage_seconds[i]))
    cpu=$((cpu + stage_cpu[i]))
  done
  printf '  %-24s %5d s %7d s\n' "total" "$total" "$cpu"
}
trap 'summary; rm -f "$cpu_file"' EXIT

timed install-deps bash scripts/install-deps.sh test

for preset in gcc clang19 clang19-c++2c clang14; do
  echo "==================== $preset ===================="
  timed "$preset configure" cmake --preset "$preset"
  timed "$preset build" cmake --build --preset "$preset"
  timed "$preset test" ctest --preset "$preset"
done
