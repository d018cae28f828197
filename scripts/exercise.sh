#!/usr/bin/env bash
# Checks an exercise of exercises/: compiles your file with cxmat's headers and warnings. The
# checks in the file are static_asserts, so "it compiles" means "every check holds": PASS.
# Otherwise it shows the compiler's lines that matter and the exercise's hint.
#
#   bash scripts/exercise.sh 3               # checks exercises/03_*/start.cpp, the file you edit
#   bash scripts/exercise.sh 3 my_try.cpp    # checks another file, with exercise 3's hint
#   bash scripts/exercise.sh --full 3        # shows the compiler's whole output
#   bash scripts/exercise.sh path/to/folder  # checks an exercise of your own (exercises/README.md)
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
  sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
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
    awk '/^cxmat says: / { print; next }
         length($0) > 240 && match($0, /due to requirement \047.*\047: /) {
           # clang++ quotes the condition before the message: shorten the condition, keep the message.
           tail = substr($0, RSTART + RLENGTH - 3)
           keep = 240 - length(tail) - RSTART - 20
           if (keep < 40) keep = 40
           print substr($0, 1, RSTART + 19 + keep) "..." tail
           next
         }
         { print substr($0, 1, 240) }' |
    head -n "$SHOWN"
}

# A <cmath> function called where a constant is needed: its name (g++: "call to non-'constexpr'
# function 'double sqrt(double)'", clang++: "non-constexpr function 'sqrt' cannot be used").
# The checker compiles with -fno-builtin, so that g++ does not evaluate std::sqrt and std::exp
# at compile time as an extension that clang++ does not have.
CMATH='sqrt|exp|exp2|expm1|log|log2|log10|log1p|pow|sin|cos|tan|tanh|sinh|cosh|atan|atan2|erf|fabs|hypot|cbrt|floor|ceil|round|trunc|fmod|fma'
non_constexpr_cmath() {
  sed -nE -e "s/.*call to non-'constexpr' function '[^']*[ :]($CMATH)f?l?\(.*/\1/p" \
          -e "s/.*non-constexpr function '([A-Za-z_0-9]+::)*($CMATH)f?l?' cannot be used.*/\2/p" | head -n1
}
cmath_sentence() {  # $1: the function's name
  case "$1" in
    sqrt|exp) echo "cxmat says: use cxmat::$1: std::$1 is not constexpr on every compiler (C++20 does not make <cmath> constexpr; g++ evaluates it as an extension, clang++ does not)." ;;
    *) echo "cxmat says: std::$1 is not constexpr on every compiler (C++20 does not make <cmath> constexpr): cxmat::sqrt and cxmat::exp are, build on them." ;;
  esac
}

# The first thing to read: cxmat's sentence (a shape error where it is a sentence, or the hint
# for a <cmath> call), else the first error of the compiler's output: a shape error's name with
# the comment of its declaration, or a failed check's message.
headline() {  # the compiler's output on stdin
  local out fn line
  out="$(cat)"
  fn="$(printf '%s\n' "$out" | non_constexpr_cmath)"
  if [[ -n "$fn" ]]; then
    cmath_sentence "$fn"
    return
  fi
  line="$(printf '%s\n' "$out" | grep -m1 -E ': (fatal )?error: ')"  # the first error: the others may follow from it
  if [[ "$line" =~ /cxmat/[a-z_/]*plain_errors\.hpp:.*error:\ static\ assertion\ failed:\ (.*)$ ]]; then
    echo "cxmat says: ${BASH_REMATCH[1]}"
  elif [[ "$line" =~ shape_error::([a-z_0-9]+)(<.*>)?\' ]]; then
    local rule="${BASH_REMATCH[1]}" args="${BASH_REMATCH[2]}" why
    why="$(printf '%s\n' "$out" | sed -nE "s#^ *([0-9]+ *\| *)?struct $rule;  // (.*)#\2#p" | head -n1)"
    echo "shape error: ${rule}${args}${why:+: $why}"
  elif [[ "$line" =~ (no\ viable\ conversion\ from|error:\ conversion\ from)\ \'(cxmat::)?matrix\< ]]; then
    # matrix<double, 3, 2> Q = X * W with a product of another shape: C++'s conversion error.
    echo "the value's shape is not the declared one (a matrix declared with the wrong sizes or names): declare it constexpr auto, or fix its sizes"
  elif [[ "$line" =~ static\ assertion\ failed(\ due\ to\ requirement\ \'.*\')?:\ (.*)$ ]]; then
    local message="${BASH_REMATCH[2]}"
    echo "a check failed: ${message%% | yours (*}"  # a check.hpp macro's values are shown below
  elif [[ "$line" =~ error:\ static_assert\ failed(\ due\ to\ requirement\ \'.*\')?\ \"(.*)\"$ ]]; then
    echo "a check failed: ${BASH_REMATCH[2]}"  # clang++ 16 and older
  else
    printf '%s\n' "${line#*error: }"
  fi
}

# Where in the student's file: the first line of the compiler's output that points into it
# ("file:line:column: ..."), as "file:line: the source line".
student_line() {  # $1: the compiled file, $2: its name as shown; the compiler's output on stdin
  local at number text
  at="$(awk -v f="$1:" 'index($0, f) == 1 { print substr($0, length(f) + 1); exit }')"
  number="${at%%:*}"
  [[ "$number" =~ ^[0-9]+$ ]] || return 0
  text="$(sed -n "${number}p" "$1" | sed -E 's/^[[:space:]]+//')"
  echo "$2:$number: $text"
}

# A value check: answers::close(ACTUAL, EXPECTED) or check::close(ACTUAL, EXPECTED[, REL_TOL[,
# ABS_TOL]]) in a static_assert, or CXMAT_EXPECT_NEAR(ACTUAL, EXPECTED, TOL) (exercises/check.hpp).
VALUE_CHECK='(static_assert\((answers|check)::close\(|CXMAT_EXPECT_NEAR\()'

# A failed value check shows expected, actual and the tolerance. Where the compiler builds
# static_assert messages (CXMAT_EXPECT_NEAR with clang++ 17+ -std=c++2c) they are in the message; else
# the checker compiles the file again without its checks, as a program that prints them (the
# values are constexpr, so the compiler computed them; the program only prints them, and
# check::explain, the macro's message, names the first element out of tolerance).
# $1: the file, $2: the line of the check, $3: the compiler's output. Off with
# CXMAT_EXERCISE_VALUES=0 (the mistakes test, which would compile twice).
show_values() {
  local check form call tmp
  [[ "${CXMAT_EXERCISE_VALUES:-1}" == 0 ]] && return 0
  local message
  # The message follows the condition, which clang++ quotes expanded (::check::close(...)).
  message="$(printf '%s\n' "$3" | grep -m1 'static assertion failed' | grep -oE 'CXMAT_EXPECT_NEAR\(.* \| yours \(.*')"
  if [[ -n "$message" ]]; then
    echo
    echo "The values (computed by the compiler, in the check's message):"
    printf '%s\n' "${message#*: }" | sed -E 's/ \| (yours|expected) \(/\n\1 (/g' | sed 's/^/  /'
    return 0
  fi
  check="$(sed -n "$2,\$p" "$1" | awk '{ s = s $0 " " } /;[[:space:]]*$/ { print s; exit }')"
  form="$(printf '%s' "$check" | grep -oE "$VALUE_CHECK" | head -n1)"
  [[ -n "$form" ]] || return 0
  form="${form#static_assert(}"
  # The arguments, one a line: split at the commas outside parentheses, braces and angle
  # brackets, so that each may be an expression (rotate_half(Q), X * W, matrix<double, 2, 2>{...}).
  local args=()
  mapfile -t args < <(printf '%s' "${check#*"$form"}" | awk '{
    depth = 0; from = 1
    for (i = 1; i <= length($0); ++i) {
      c = substr($0, i, 1)
      if (c == "(" || c == "{" || c == "<" || c == "[") ++depth
      else if (c == ")" || c == "}" || c == ">" || c == "]") { if (depth == 0) { print substr($0, from, i - from); exit } --depth }
      else if (c == "," && depth == 0) { print substr($0, from, i - from); from = i + 1 }
    }
  }' | sed -E 's/^[[:space:]]+|[[:space:]]+$//g')
  [[ ${#args[@]} -ge 2 ]] || return 0
  case "$form" in
    CXMAT_EXPECT_NEAR*) [[ ${#args[@]} -eq 3 ]] || return 0; call="${args[0]}, ${args[1]}, 0.0, ${args[2]}" ;;
    *) call="$(IFS=,; printf '%s' "${args[*]}" | sed 's/,/, /g')" ;;
  esac
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/cxmat_values_XXXXXX")" || return 0
  {
    sed '/^\/\/ ---- The checks/,$d' "$1"
    printf '#include <iostream>\n#include <cxmat/io/print.hpp>\n#include "check.hpp"\n'
    printf 'int main() {\n'
    printf '  const auto show = [](const char* label, const auto& v) {\n'
    printf '    if constexpr (requires { v.elems; }) cxmat::print(std::cout, label, v);\n'
    printf '    else std::cout << label << ": " << check::message{}.number(static_cast<double>(v), 15).data() << "\\n";\n  };\n'
    printf '  std::cout << check::explain(%s).data() << "\\n";\n' "$call"
    printf '  show("expected", %s);\n' "${args[1]}"
    printf '  show("%s (yours)", %s);\n}\n' "$(printf '%s' "${args[0]}" | sed 's/[\\"]/\\&/g')" "${args[0]}"
  } >"$tmp/values.cpp"
  if LC_ALL=C "$CXX" "-std=$(std_for)" -fno-builtin -w -I "$ROOT/include" -I "$EXERCISES" -I "$(dirname "$1")" \
       "${extra[@]}" "$tmp/values.cpp" -o "$tmp/values" >/dev/null 2>&1; then
    echo
    echo "The values (the file compiled again without its checks, printing both):"
    "$tmp/values" 2>&1 | head -n "$((4 * SHOWN))" | sed 's/^/  /'
  fi
  rm -rf "$tmp"
}

full=0
case "${1:-}" in
  --full) full=1; shift ;;
  --std) std_for; exit 0 ;;  # the -std= value the check uses with $CXX (for the tests)
  list) list_exercises; exit 0 ;;
  ""|-h|--help) usage ;;
esac
[[ $# -ge 1 && $# -le 2 ]] || usage

# An exercise of the path by number, or any folder laid out like one (a teacher's own exercise:
# exercises/README.md, "Writing your own exercise").
if [[ "$1" =~ ^[0-9]+$ ]]; then
  dir="$(exercise_dir "$1")"
  if [[ -z "$dir" ]]; then
    echo "There is no exercise $1. The exercises are:"
    list_exercises
    exit 2
  fi
  number="$(basename "$dir" | cut -c1-2)"
  name="Exercise $number"
  again="$((10#$number))"  # the argument that checks it again
elif [[ -d "$1" ]]; then
  dir="${1%/}"
  number=""
  name="Exercise $(basename "$dir")"
  again="$1"
  for part in README.md start.cpp solution.cpp hint.txt; do
    if [[ ! -f "$dir/$part" ]]; then
      echo "$1 is not an exercise folder: it has no $part (exercises/README.md, \"Writing your own exercise\")."
      exit 2
    fi
  done
else
  usage
fi
title="$(head -n1 "$dir/README.md" | sed -E 's/^# ([0-9]+ · )?//')"
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
echo "$name: $title ($shown_file, $("$CXX" --version | head -n1))"

if [[ -n "$missing" ]]; then
  echo "NOT YET: the checks at the end of the file were changed. They must stay as they are; missing:"
  printf '%s\n' "$missing" | head -n "$SHOWN"
  [[ -z "${2:-}" ]] && echo "(git diff ${shown_file} shows what changed.)"
  exit 1
fi

# LC_ALL=C: plain ASCII quotes in the messages, the same on every machine.
read -r -a extra <<<"${CXMAT_EXERCISE_FLAGS:-}"
output="$(LC_ALL=C "$CXX" "-std=$(std_for)" -fsyntax-only -fno-builtin -fdiagnostics-color=never \
          -I "$ROOT/include" -I "$EXERCISES" "${WARNINGS[@]}" "${extra[@]}" "$file" 2>&1)"
status=$?

# A <cmath> call: named by the compiler's error, or found in the file (g++ evaluates
# std::sqrt(float) at compile time even with -fno-builtin, so a file with it can compile with
# g++ and not with clang++). The line shown is the call's, not where its value is used.
cmath_fn="$(printf '%s\n' "$output" | non_constexpr_cmath)"
cmath_in_file="$(sed -E 's#//.*##' "$file" | grep -oE "std::($CMATH)(f|l)? *\(" | head -n1 |
                 sed -E 's/^std::([a-z0-9_]+) *\(/\1/; s/^(.*[^fl]|exp2|log2|fabs|log1p)(f|l)$/\1/')"
cmath_line=""
if [[ -n "${cmath_fn:-$cmath_in_file}" ]]; then
  at_line="$(sed -E 's#//.*##' "$file" | grep -nE "std::${cmath_fn:-$cmath_in_file}(f|l)? *\(" | head -n1 | cut -d: -f1)"
  [[ -n "$at_line" ]] && cmath_line="$shown_file:$at_line: $(sed -n "${at_line}p" "$file" | sed -E 's/^[[:space:]]+//')"
fi
if [[ $status -eq 0 && -n "$cmath_in_file" ]]; then
  echo "NOT YET: it compiles with $CXX, but not with every compiler."
  cmath_sentence "$cmath_in_file" | sed 's/^/  /'
  [[ -n "$cmath_line" ]] && echo "  at $cmath_line"
  echo
  echo "Hint (${dir#"$ROOT"/}/hint.txt):"
  sed 's/^/  /' "$dir/hint.txt"
  exit 1
fi

if [[ $status -eq 0 ]]; then
  echo "PASS: it compiles, so every check in it holds."
  if [[ -n "$output" ]]; then
    echo "The compiler warns, though (worth a look, not a failure):"
    printf '%s\n' "$output" | grep -E ': warning: ' | sed -E 's#(^|[ '"'"'"(])(/|\./|\.\./)[^ '"'"'"(:]*/#\1#g; s/^/  /' | head -n "$SHOWN"
  fi
  next=""
  [[ -n "$number" ]] && next="$(exercise_dir "$((10#$number + 1))")"
  if [[ -z "$number" ]]; then
    :  # a folder of its own: no next exercise
  elif [[ -n "$next" ]]; then
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

# What went wrong, where, and the hint; then the compiler's own lines.
echo "NOT YET: it does not compile."
# A <cmath> call the compiler's error does not name (a note it cuts, or g++'s value of
# std::sqrt(float) failing a check) comes first: it fails with some compiler in any case.
if [[ -z "$cmath_fn" && -n "$cmath_in_file" ]]; then
  cmath_sentence "$cmath_in_file" | sed 's/^/  /'
fi
printf '%s\n' "$output" | headline | sed 's/^/  /'
where="$cmath_line"
[[ -z "$where" ]] && where="$(printf '%s\n' "$output" | student_line "$file" "$shown_file")"
[[ -n "$where" ]] && echo "  at $where"
echo
echo "Hint (${dir#"$ROOT"/}/hint.txt):"
sed 's/^/  /' "$dir/hint.txt"
if [[ "$where" =~ ^.*:([0-9]+):\ $VALUE_CHECK ]]; then
  show_values "$file" "${BASH_REMATCH[1]}" "$output"
fi
echo
echo "The compiler says:"
if [[ $full -eq 1 ]]; then
  printf '%s\n' "$output"
else
  printf '%s\n' "$output" | lines_that_matter | sed 's/^/  /'
  echo "  ($(printf '%s\n' "$output" | wc -l) lines in all: bash scripts/exercise.sh --full $again${2:+ $2} shows them)"
fi
exit 1
