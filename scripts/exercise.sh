#!/usr/bin/env bash
# Checks an exercise of exercises/: compiles your file with cxmat's headers and warnings. The
# checks in the file are static_asserts, so "it compiles" means "every check holds": PASS.
# Otherwise it shows the compiler's lines that matter and the exercise's hint.
#
#   bash scripts/exercise.sh 3               # checks exercises/03_*/start.cpp, the file you edit
#   bash scripts/exercise.sh 3 my_try.cpp    # checks another file, with exercise 3's hint
#   bash scripts/exercise.sh --full 3        # shows the compiler's whole output
#   bash scripts/exercise.sh list            # lists the exercises
#   bash scripts/exercise.sh --std           # prints the -std= value used with $CXX
#
# Needs a C++20 compiler and Boost's headers (Debian: g++ libboost-dev). Environment:
#   CXX                   the compiler (default g++; clang++-19 works too)
#   CXMAT_EXERCISE_STD    the language standard (default: c++2c where the compiler prints shape
#                         errors as sentences (clang++ 17+), else c++20; see std_for)
#   CXMAT_EXERCISE_FLAGS  flags added after the default ones
#   CXMAT_EXERCISE_LINES  how many of the compiler's lines to show (default 8)
# Exit status: 0 PASS, 1 not yet, 2 the check itself could not run.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXERCISES="$ROOT/exercises"
CXX="${CXX:-g++}"
SHOWN="${CXMAT_EXERCISE_LINES:-8}"
# cxmat's warning flags (cmake/CxmatWarnings.cmake). Not -Werror: a warning (an unused variable
# kept from an earlier try) is shown, but PASS means that every check holds.
WARNINGS=(-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast)

usage() {
  sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

# The -std= value for a compiler. One place to choose per compiler (e.g. c++2c on a clang++ that
# prints static_assert messages built from values); CXMAT_EXERCISE_STD overrides it.
# A compiler whose -std=c++2c accepts static_assert messages built by constant expressions (P2741,
# clang++ 17 or later) gets c++2c: cxmat then states each shape error as a sentence
# (CXMAT_PLAIN_ERRORS) instead of naming it as a type.
std_for() {
  if [[ -n "${CXMAT_EXERCISE_STD:-}" ]]; then
    echo "$CXMAT_EXERCISE_STD"
    return
  fi
  if LC_ALL=C "$CXX" -std=c++2c -dM -E -x c++ /dev/null 2>/dev/null |
     grep -Eq '^#define __cpp_static_assert (20230[6-9]|2023[1-9][0-9]|202[4-9][0-9]{2})L'; then
    echo "c++2c"
    return
  fi
  echo "c++20"
}

exercise_dir() {  # the folder of exercise number $1 (3 or 03), or nothing
  local n
  n=$(printf '%02d' "$((10#$1))" 2>/dev/null) || return 0
  local d
  for d in "$EXERCISES/${n}_"*/; do
    [[ -d "$d" ]] && echo "${d%/}"
  done
}

list_exercises() {
  local d
  for d in "$EXERCISES"/[0-9][0-9]_*/; do
    d="${d%/}"
    printf '%s  %s\n' "$(basename "$d" | cut -c1-2)" "$(head -n1 "$d/README.md" | sed 's/^# [0-9]* · //')"
  done
}

# The lines of the compiler's output that explain the failure: the errors, the broken rule
# (constraint notes of g++ and clang++), the values of a failed comparison (clang++), and the
# hint quoted from cxmat's shape-error declarations. Paths are shortened to a file name or
# cxmat/<header>; long lines are cut.
lines_that_matter() {
  grep -E ': (fatal )?error: |required for the satisfaction of|note: because |note: the expression .* evaluated to|note: expression evaluates to|^ *[0-9]* *\| *struct [a-z_0-9]+;  //|^struct [a-z_0-9]+;  //' |
    sed -E -e 's#[^ '"'"'"(]*/include/(cxmat/[A-Za-z0-9_/.]+\.hpp)(:[0-9]+)?(:[0-9]+)?#\1#g' \
           -e 's#(^|[ '"'"'"(])(/|\./|\.\./)[^ '"'"'"(:]*/([A-Za-z0-9_.+-]+\.(cpp|hpp|h))#\1\3#g' \
           -e 's#^ *[0-9]* *\| *(struct [a-z_0-9]+;  //)#cxmat says: \1#' \
           -e 's#^(struct [a-z_0-9]+;  //)#cxmat says: \1#' \
           -e 's#^cxmat/[a-z_/]*plain_errors\.hpp: error: static assertion failed: #cxmat says: #' |
    awk '!seen[$0]++' |
    awk '/^cxmat says: / { print; next } { print substr($0, 1, 240) }' |
    head -n "$SHOWN"
}

full=0
case "${1:-}" in
  --full) full=1; shift ;;
  --std) std_for; exit 0 ;;  # the -std= value the check uses with $CXX (for the tests)
  list) list_exercises; exit 0 ;;
  ""|-h|--help) usage ;;
esac
[[ $# -ge 1 && $# -le 2 ]] || usage
[[ "$1" =~ ^[0-9]+$ ]] || usage

dir="$(exercise_dir "$1")"
if [[ -z "$dir" ]]; then
  echo "There is no exercise $1. The exercises are:"
  list_exercises
  exit 2
fi
number="$(basename "$dir" | cut -c1-2)"
title="$(head -n1 "$dir/README.md" | sed 's/^# [0-9]* · //')"
file="${2:-$dir/start.cpp}"
if [[ ! -f "$file" ]]; then
  echo "No such file: $file"
  exit 2
fi
if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "The compiler '$CXX' is not installed. Install g++ (Debian: apt-get install g++ libboost-dev)"
  echo "or set CXX, e.g. CXX=clang++-19 bash scripts/exercise.sh $1"
  exit 2
fi

# The checks are part of the exercise: the lines of the solution's checks section (from "// ----
# The checks" to the end, or to "// ---- Beyond") must all be in the file, unchanged.
missing="$(sed -n '/^\/\/ ---- The checks/,/^\/\/ ---- Beyond/p' "$dir/solution.cpp" | grep -v '^// ---- Beyond' |
           grep -v '^[[:space:]]*$' | while IFS= read -r line; do
             grep -Fxq -- "$line" "$file" || printf '  %s\n' "$line"
           done)"

shown_file="${file#"$ROOT"/}"
echo "Exercise $number: $title ($shown_file, $("$CXX" --version | head -n1))"

if [[ -n "$missing" ]]; then
  echo "NOT YET: the checks at the end of the file were changed. They must stay as they are; missing:"
  printf '%s\n' "$missing" | head -n "$SHOWN"
  [[ -z "${2:-}" ]] && echo "(git diff ${shown_file} shows what changed.)"
  exit 1
fi

# LC_ALL=C: plain ASCII quotes in the messages, the same on every machine.
read -r -a extra <<<"${CXMAT_EXERCISE_FLAGS:-}"
output="$(LC_ALL=C "$CXX" "-std=$(std_for)" -fsyntax-only -fdiagnostics-color=never \
          -I "$ROOT/include" -I "$EXERCISES" "${WARNINGS[@]}" "${extra[@]}" "$file" 2>&1)"
status=$?

if [[ $status -eq 0 ]]; then
  echo "PASS: it compiles, so every check in it holds."
  if [[ -n "$output" ]]; then
    echo "The compiler warns, though (worth a look, not a failure):"
    printf '%s\n' "$output" | grep -E ': warning: ' | sed -E 's#(^|[ '"'"'"(])(/|\./|\.\./)[^ '"'"'"(:]*/#\1#g; s/^/  /' | head -n "$SHOWN"
  fi
  next="$(exercise_dir "$((10#$number + 1))")"
  if [[ -n "$next" ]]; then
    echo "Next: ${next#"$ROOT"/}/README.md, then bash scripts/exercise.sh $((10#$number + 1))"
  else
    echo "That was the last exercise: you have assembled a whole transformer layer from its pieces."
  fi
  exit 0
fi

if grep -q 'boost/hana' <<<"$output" && grep -q 'No such file' <<<"$output"; then
  echo "Boost's headers are missing: install them (Debian: apt-get install libboost-dev)."
  exit 2
fi

echo "NOT YET: it does not compile. The compiler says:"
if [[ $full -eq 1 ]]; then
  printf '%s\n' "$output"
else
  printf '%s\n' "$output" | lines_that_matter | sed 's/^/  /'
  echo "  ($(printf '%s\n' "$output" | wc -l) lines in all: bash scripts/exercise.sh --full $((10#$number))${2:+ $2} shows them)"
fi
echo
echo "Hint (${dir#"$ROOT"/}/hint.txt):"
sed 's/^/  /' "$dir/hint.txt"
exit 1
