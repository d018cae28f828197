#!/usr/bin/env bash
# Tests "Writing your own exercise" (exercises/README.md) as a teacher follows it: copies
# exercises/template to a folder of its own, runs scripts/exercise.sh on it and on its solution,
# changes its check to the tolerance form check::close(actual, expected, rel_tol, abs_tol), and
# runs check_mistakes.py --folder on it. A failed check must show both values and the tolerance, or
# both shapes (from the check's message where the compiler builds it, else from the checker's
# second compile); the solution must PASS.
#   bash exercises/check_template.sh <compiler> [extra flags] [python3 with the mistakes' test]
set -u
export CXX="$1"
export CXMAT_EXERCISE_FLAGS="${2:-}"
python="${3:-}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() { echo "FAILED: $*"; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/cxmat_template_XXXXXX")" || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# The commands of exercises/README.md, run in a folder of the teacher's (here a temporary one).

# requires OUTPUT STATUS WHAT: the checker said NOT YET and showed the values and the tolerance.
requires_values() {
  printf '%s\n' "$1"
  [[ $2 -eq 1 ]] || fail "$3: the checker exited with $2, expected 1 (not yet)"
  grep -q '^NOT YET: it does not compile' <<<"$1" || fail "$3: no NOT YET"
  grep -q '^The values (' <<<"$1" || fail "$3: the values are not shown"
  grep -qF -- "$4" <<<"$1" || fail "$3: the first element out of tolerance is not stated as: $4"
  # yours: row 0 is 0, log 3 = 1.0986...; expected: row 0 is 1/4, 3/4 (either way of printing).
  grep -qE '^  (weights \(yours\) \(2 x 2\):|yours \(2 x 2\): \[\[0, 1\.0986)' <<<"$1" || fail "$3: yours is not shown"
  grep -qE '^  (expected \(2 x 2\):|expected \(2 x 2\): \[\[0\.25, 0\.75\])' <<<"$1" || fail "$3: expected is not shown"
  grep -qE '1\.0986' <<<"$1" && grep -qE '0\.75' <<<"$1" || fail "$3: the values are missing"
}
requires_pass() {
  printf '%s\n' "$1"
  [[ $2 -eq 0 ]] && grep -q '^PASS: ' <<<"$1" || fail "$3: the checker did not say PASS (exit $2)"
  if grep -q '^The compiler warns' <<<"$1"; then fail "$3: the compiler warns"; fi
}

cp -r "$root/exercises/template" my_exercise
out="$(bash "$root/scripts/exercise.sh" my_exercise 2>&1)"
requires_values "$out" $? "CXMAT_EXPECT_NEAR, start.cpp" \
  "element [0][0] is 0, expected 0.25: off by 0.25, more than the tolerance 1e-12 (absolute)"
out="$(bash "$root/scripts/exercise.sh" my_exercise my_exercise/solution.cpp 2>&1)"
requires_pass "$out" $? "CXMAT_EXPECT_NEAR, solution.cpp"
# With common standard headers first (common_std_headers.txt), as a student's file often starts:
# no global of the template is a name of the C library (glibc's ::gamma, ::y0, ::index).
mapfile -t std_headers <"$root/exercises/common_std_headers.txt"
{ printf '#include <%s>\n' "${std_headers[@]}"; cat my_exercise/solution.cpp; } >my_exercise/std.cpp
out="$(bash "$root/scripts/exercise.sh" my_exercise my_exercise/std.cpp 2>&1)"
requires_pass "$out" $? "solution.cpp with <${std_headers[*]}> first"
rm my_exercise/std.cpp

# A result of another shape fails the check with its own words, not with a compile error of its own.
sed 's/^constexpr auto weights = .*/constexpr auto weights = cxmat::transpose(cxmat::matrix<double, 2, 3>{});/' \
  my_exercise/start.cpp >my_exercise/shape.cpp
out="$(bash "$root/scripts/exercise.sh" my_exercise my_exercise/shape.cpp 2>&1)"
status=$?
printf '%s\n' "$out"
[[ $status -eq 1 ]] && grep -qF 'the shapes differ: yours is 3 x 2, expected 2 x 2' <<<"$out" ||
  fail "a result of another shape: the shapes are not stated"
rm my_exercise/shape.cpp

# The same check as static_assert(check::close(actual, expected, rel_tol, abs_tol), "...").
sed -i 's/^CXMAT_EXPECT_NEAR(weights, \(.*\), 1e-12);$/static_assert(check::close(weights, \1, 1e-9, 1e-12), "weights: the softmax of each row");/' \
  my_exercise/start.cpp my_exercise/solution.cpp
grep -q '^static_assert(check::close(weights, ' my_exercise/start.cpp || fail "the template's check is not the one this test changes"
out="$(bash "$root/scripts/exercise.sh" my_exercise 2>&1)"
requires_values "$out" $? "check::close with a tolerance, start.cpp" \
  "element [0][0] is 0, expected 0.25: off by 0.25, more than the tolerance max(abs_tol 1e-12, rel_tol 1e-09 x 0.25) = 2.5e-10"
grep -qF 'a check failed: weights: the softmax of each row' <<<"$out" || fail "the check's own message is not shown"

if [[ -n "$python" ]]; then
  rm -rf my_exercise && cp -r "$root/exercises/template" my_exercise
  out="$("$python" "$root/exercises/check_mistakes.py" --compiler "$CXX" --flags "$CXMAT_EXERCISE_FLAGS" --folder my_exercise 2>&1)"
  status=$?
  printf '%s\n' "$out"
  [[ $status -eq 0 ]] && grep -q '^my_exercise: 2 of 2 mistakes caught' <<<"$out" || fail "check_mistakes.py --folder my_exercise"
fi
echo "template: behaves"
