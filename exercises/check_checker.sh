#!/usr/bin/env bash
# Tests scripts/exercise.sh on one exercise, as a student runs it: on the start file it must say
# NOT YET, show a line that matches the exercise's expect.txt, the line of the file it is about
# ("at file:line:"), the values of a failed answers::close check, and print the hint; on the
# solution, with common standard headers included first (common_std_headers.txt: no global of
# the exercise is a C library name), it must say PASS without a warning (the checker compiles with
# the project's warning flags); on the solution without its checks it must refuse.
#   bash exercises/check_checker.sh [--save DIR] <exercise folder> <compiler> [extra flags]
# --save keeps what the checker showed for the start file in DIR/NN.txt, for the learn page's
# check (exercises/gen_learn.py --checker-outputs DIR), which then need not compile it again.
set -u
save=""
if [[ "${1:-}" == --save ]]; then
  save="$2"
  shift 2
fi
dir="$1"
export CXX="$2"
export CXMAT_EXERCISE_FLAGS="${3:-}"
checker="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/exercise.sh"
number="$(basename "$dir" | cut -c1-2)"
fail() { echo "FAILED: $*"; exit 1; }

out="$(bash "$checker" "$number" 2>&1)"  # the default file, start.cpp, as a student runs it
status=$?
printf '%s\n' "$out"
[[ $status -eq 1 ]] || fail "start.cpp: the checker exited with $status, expected 1 (not yet)"
if [[ -n "$save" ]]; then
  mkdir -p "$save" && printf '%s\n' "$out" >"$save/$number.txt"
fi
grep -q '^NOT YET: it does not compile' <<<"$out" || fail "start.cpp: the checker did not say NOT YET for a compile error"
# With a -std where shape errors are sentences (exercise.sh --std), a shape error's regex is in
# expect_plain.txt.
expect="$dir/expect.txt"
if [[ "$(bash "$checker" --std)" == "c++2c" && -f "$dir/expect_plain.txt" ]]; then
  expect="$dir/expect_plain.txt"
fi
grep -qE -- "$(head -n1 "$expect")" <<<"$out" || fail "start.cpp: no line shown matches $(basename "$expect")"
# The hint: the first line under "Hint (...)" is a line of hint.txt (the section chosen for what
# is wrong).
shown_hint="$(awk '/^Hint \(/ { getline; print; exit }' <<<"$out" | sed 's/^  //')"
[[ -n "$shown_hint" ]] && grep -qxF -- "$shown_hint" "$dir/hint.txt" || fail "start.cpp: the hint is not printed"
# It points to the student's line; a failed answers::close check shows expected and actual.
grep -qE '^  at exercises/[0-9][0-9]_[a-z_0-9]+/start\.cpp:[0-9]+: ' <<<"$out" || fail "start.cpp: no 'at <file>:<line>:' shown"
if grep -qE '^  at [^ ]*:[0-9]+: static_assert\(answers::close\(' <<<"$out"; then
  grep -q '^The values (' <<<"$out" && grep -q '^  expected (' <<<"$out" && grep -q '^  .* (yours) (' <<<"$out" ||
    fail "start.cpp: a failed answers::close check, but the values are not shown"
fi

# The solution as a student's file often starts: with common standard headers included first. A
# global of the exercise that is also a name of the C library (glibc's ::gamma, ::y0, ::index)
# would make the correct answer fail with "redeclared as different kind of entity".
scratch="$(mktemp -d "${TMPDIR:-/tmp}/cxmat_exercise_XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
with_headers="$scratch/solution.cpp"
mapfile -t std_headers <"$(dirname "${BASH_SOURCE[0]}")/common_std_headers.txt"
{
  printf '#include <%s>\n' "${std_headers[@]}"
  cat "$dir/solution.cpp"
} >"$with_headers"
out="$(bash "$checker" "$number" "$with_headers" 2>&1)"
status=$?
printf '%s\n' "$out"
[[ $status -eq 0 ]] || fail "solution.cpp (with <${std_headers[*]}> first): the checker exited with $status, expected 0"
grep -q '^PASS: ' <<<"$out" || fail "solution.cpp: the checker did not say PASS"
# The checker compiles with the project's warnings: a solution is warning-free.
if grep -q '^The compiler warns' <<<"$out"; then fail "solution.cpp: the compiler warns"; fi
# The solution without its checks would compile: the checker must refuse it, not say PASS.
stripped="$scratch/stripped.cpp"
sed '/^\/\/ ---- The checks/,$d' "$dir/solution.cpp" >"$stripped"
out="$(bash "$checker" "$number" "$stripped" 2>&1)"
status=$?
printf '%s\n' "$out"
[[ $status -eq 1 ]] || fail "solution.cpp without its checks: the checker exited with $status, expected 1"
grep -q '^NOT YET: the checks at the end of the file were changed' <<<"$out" ||
  fail "solution.cpp without its checks: the checker did not notice"

echo "checker: exercise $number behaves"
