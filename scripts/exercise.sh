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
#   bash scripts/exercise.sh --hint 3 TEXT   # the hint shown when the checker says TEXT is wrong
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
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
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

# The cxmat headers a file includes, parsed once: a precompiled header of its `#include <cxmat/...>`
# lines, made the first time for this compiler, standard, flags and content of cxmat's headers,
# and kept in a cache folder, so that a check compiles only the student's file (most of a check's
# time is the headers: docs/learn.md). Prints the flags that use it, or nothing (then the compiler
# reads the headers as usual): CXMAT_EXERCISE_PCH=0 turns it off, CXMAT_EXERCISE_CACHE says where
# (default ${XDG_CACHE_HOME:-~/.cache}/cxmat/exercises; deleting it is always safe).
# A line that includes a cxmat header (what the precompiled header holds).
CXMAT_INCLUDE='^[[:space:]]*#[[:space:]]*include[[:space:]]*<cxmat/[A-Za-z0-9_/.]+>'

precompiled_headers() {  # $1: the file
  [[ "${CXMAT_EXERCISE_PCH:-1}" == 0 ]] && return 0
  local includes cache key folder header made kind=gcc
  includes="$(grep -E "$CXMAT_INCLUDE" "$1")"
  [[ -n "$includes" ]] || return 0
  [[ "$CXX_VERSION" == *clang* ]] && kind=clang
  cache="${CXMAT_EXERCISE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/cxmat/exercises}"
  # g++ does not check that the headers are those it read: the key holds their content (and Boost's
  # version, whose headers the per-head form includes).
  key="$( { command -v "$CXX"; printf '%s\n' "$CXX_VERSION" "$STD" "${extra[@]}" "$includes"
            cat /usr/include/boost/version.hpp 2>/dev/null
            find "$ROOT/include" -name '*.hpp' -print0 | LC_ALL=C sort -z | xargs -0 cat; } | sha1sum | cut -c1-16)"
  folder="$cache/$kind-$key"
  header="$folder/headers.hpp"
  made="$header.gch"
  [[ $kind == clang ]] && made="$header.pch"
  if [[ ! -f "$made" ]]; then
    mkdir -p "$folder" 2>/dev/null || return 0
    # The header is written once and never replaced: clang++ refuses a precompiled header whose
    # source is newer, even with the same text. Written under another name and linked into place
    # (which fails when another check was first), so that no check reads half a file; the same
    # for the precompiled header, renamed.
    if [[ ! -f "$header" ]]; then
      printf '%s\n' "$includes" >"$header.$$" && ln "$header.$$" "$header" 2>/dev/null
      rm -f "$header.$$"
    fi
    [[ -f "$header" ]] || return 0
    LC_ALL=C "$CXX" "-std=$STD" -fno-builtin -I "$ROOT/include" -I "$EXERCISES" "${WARNINGS[@]}" "${extra[@]}" \
      -x c++-header "$header" -o "$made.$$" >/dev/null 2>&1 && mv -f "$made.$$" "$made" || { rm -f "$made.$$"; return 0; }
    forget_old_headers "$cache"
  fi
  touch "$folder" 2>/dev/null || true
  if [[ $kind == clang ]]; then
    printf '%s\n' -include-pch "$made"
  else
    printf '%s\n' -include "$header"
  fi
}

# A precompiled header takes 20-30 MB, and each edit of a cxmat header makes a new one: the cache
# keeps the 8 used last, and never one used in the last hour (a check may be reading it).
forget_old_headers() {  # $1: the cache folder
  local folder
  while IFS= read -r folder; do
    [[ -n "$(find "$folder" -maxdepth 0 -mmin +60 2>/dev/null)" ]] && rm -rf -- "$folder"
  done < <(ls -1dt "$1"/gcc-* "$1"/clang-* 2>/dev/null | tail -n +9)
}

# The compiler's output as without the precompiled header: its include lines name the file's own
# (g++: "from <cache>/headers.hpp:N" for "from <file>:<line of its N-th cxmat include>"; clang++
# says "In file included from <file>:1:" above that line).
as_if_not_precompiled() {  # $1: the file, $2: the precompiled header's source; the output on stdin
  awk -v file="$1" -v header="$2" -v lines="$(grep -nE "$CXMAT_INCLUDE" "$1" | cut -d: -f1 | paste -sd' ')" '
    BEGIN { split(lines, at, " ") }
    function mapped(s,   i, rest, num) {
      while ((i = index(s, header ":")) > 0) {
        rest = substr(s, i + length(header) + 1)
        num = rest + 0
        s = substr(s, 1, i - 1) file ":" (num in at ? at[num] : num) substr(rest, length(num "") + 1)
      }
      return s
    }
    held != "" {
      if (index($0, "In file included from " header ":") == 1) { print mapped($0); held = ""; next }
      print held; held = ""
    }
    $0 == "In file included from " file ":1:" { held = $0; next }
    { print mapped($0) }
    END { if (held != "") print held }'
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

# The top-level pieces of a list, one a line: $1 split at the separator $2 (",", "&&") where it is
# outside parentheses, braces, brackets and angle brackets, each trimmed. Stops at a closing
# bracket that was not opened (the end of a call's arguments).
split_top() {
  printf '%s' "$1" | awk -v sep="$2" '{
    depth = 0; from = 1; n = length(sep)
    for (i = 1; i <= length($0); ++i) {
      c = substr($0, i, 1)
      if (c == "(" || c == "{" || c == "[" || (c == "<" && substr($0, i + 1, 1) != " " && substr($0, i + 1, 1) != "=")) ++depth
      else if (c == ")" || c == "}" || c == "]" || (c == ">" && substr($0, i - 1, 1) != " " && substr($0, i + 1, 1) != "=")) {
        if (depth == 0) { print substr($0, from, i - from); exit }
        --depth
      }
      else if (depth == 0 && substr($0, i, n) == sep) { print substr($0, from, i - from); from = i + n; i += n - 1 }
    }
    if (from <= length($0)) print substr($0, from)
  }' | sed -E 's/^[[:space:]]+|[[:space:]]+$//g'
}

# The statements of the checks section that are not checks (a matrix written by hand, a helper):
# the values program keeps them, so that a check may compare with them.
checks_declarations() {  # $1: the file
  sed -n '/^\/\/ ---- The checks/,$p' "$1" | sed '1d' | awk '
    { s = s $0 "\n"; line = $0; gsub(/\/\/.*/, "", line)
      depth += gsub(/[{(]/, "&", line) - gsub(/[})]/, "&", line) }
    depth == 0 && line ~ /[;}][[:space:]]*$/ {
      if (s !~ /^[[:space:]]*(static_assert|CXMAT_EXPECT_NEAR)[[:space:]]*\(/ && s !~ /^[[:space:]]*\/\/ ---- Beyond/) printf "%s", s
      s = ""
    }
    depth == 0 && line ~ /^[[:space:]]*(\/\/.*)?$/ { s = "" }'
}

# A failed check shows its values. Where the compiler builds static_assert messages
# (CXMAT_EXPECT_NEAR with clang++ 17+ -std=c++2c) they are in the messages; else the checker
# compiles the file again without its checks, as a program that prints them (the values are
# constexpr, so the compiler computed them; the program only prints them): for a value check
# check::explain's line (the first element out of tolerance, as CXMAT_EXPECT_NEAR says it) and
# both matrices; for a check that compares (a == b, a < b, joined by &&) both sides of each
# comparison that is false. Every failed check of the file, in order, up to 3.
# $1: the file, $2: the compiler's output, $3: the line the checker points to. Off with CXMAT_EXERCISE_VALUES=0 (the mistakes test,
# which would compile twice).
show_values() {
  local tmp numbers number check form call args=() parts part n=0 body=""
  [[ "${CXMAT_EXERCISE_VALUES:-1}" == 0 ]] && return 0
  local messages
  # The message follows the condition, which clang++ quotes expanded (::check::close(...)).
  messages="$(printf '%s\n' "$2" | grep 'static assertion failed' | grep -oE 'CXMAT_EXPECT_NEAR\(.* \| yours \(.*')"
  if [[ -n "$messages" ]]; then
    echo
    echo "The values (computed by the compiler, in the check's message):"
    printf '%s\n' "$messages" | head -n 3 | while IFS= read -r message; do
      printf '%s\n' "${message#*: }" | sed -E 's/ \| (yours|expected) \(/\n\1 (/g' | sed 's/^/  /'
    done
    return 0
  fi
  # The failed checks: the line the checker points to ($3: a check in a macro fails in its header,
  # check.hpp) and every static_assert of the file that failed.
  numbers="$( { [[ -n "${3:-}" ]] && echo "$3"
               printf '%s\n' "$2" | awk -v f="$1:" 'index($0, f) == 1 && /: error: static.assert(ion)? failed/ {
                 split(substr($0, length(f) + 1), p, ":"); print p[1] }'; } | awk '!seen[$0]++' | head -n 3)"
  [[ -n "$numbers" ]] || return 0
  for number in $numbers; do
    check="$(sed -n "$number,\$p" "$1" | awk '{ s = s $0 " " } /;[[:space:]]*$/ { print s; exit }')"
    local label
    label="$(printf '%s' "$check" | sed -E 's/^[[:space:]]*(static_assert\()?//; s/, *"[^"]*" *\) *; *$//; s/\) *; *$/)/; s/[[:space:]]+/ /g')"
    local lines=""
    form="$(printf '%s' "$check" | grep -oE "$VALUE_CHECK" | head -n1)"
    if [[ -n "$form" ]]; then
      form="${form#static_assert(}"
      # The arguments, one a line, so that each may be an expression (rotate_half(Q), X * W,
      # matrix<double, 2, 2>{...}).
      mapfile -t args < <(split_top "${check#*"$form"}" ",")
      [[ ${#args[@]} -ge 2 ]] || continue
      case "$form" in
        CXMAT_EXPECT_NEAR*) [[ ${#args[@]} -eq 3 ]] || continue; call="${args[0]}, ${args[1]}, 0.0, ${args[2]}" ;;
        *) call="$(IFS=,; printf '%s' "${args[*]}" | sed 's/,/, /g')" ;;
      esac
      lines+="  std::cout << check::explain($call).data() << \"\\n\";"$'\n'
      lines+="  show(\"expected\", ${args[1]});"$'\n'
      lines+="  show(\"$(printf '%s' "${args[0]}" | sed 's/[\\"]/\\&/g') (yours)\", ${args[0]});"$'\n'
    elif [[ "$check" =~ ^[[:space:]]*static_assert\( ]]; then
      # A condition that compares: both sides of each comparison that does not hold.
      mapfile -t parts < <(split_top "$(split_top "${check#*static_assert(}" "," | head -n1)" "&&")
      for part in "${parts[@]}"; do
        local op side=()
        for op in " == " " != " " <= " " >= " " < " " > "; do
          mapfile -t side < <(split_top "$part" "$op")
          [[ ${#side[@]} -eq 2 ]] && break
        done
        [[ ${#side[@]} -eq 2 ]] || continue
        lines+="  if (!($part)) {"$'\n'
        lines+="    show(\"$(printf '%s' "${side[0]}" | sed 's/[\\"]/\\&/g')\", ${side[0]});"$'\n'
        lines+="    show(\"$(printf '%s' "${side[1]}" | sed 's/[\\"]/\\&/g')\", ${side[1]});"$'\n  }\n'
      done
    fi
    [[ -n "$lines" ]] || continue
    n=$((n + 1))
    body+="  std::cout << \"@@ line $number: $(printf '%s' "$label" | sed 's/[\\"]/\\&/g')\\n\";"$'\n'"$lines"
  done
  [[ $n -gt 0 ]] || return 0
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/cxmat_values_XXXXXX")" || return 0
  {
    sed '/^\/\/ ---- The checks/,$d' "$1"
    checks_declarations "$1"
    printf '#include <iostream>\n#include <type_traits>\n#include <cxmat/io/print.hpp>\n#include "check.hpp"\n'
    printf 'int main() {\n'
    printf '  const auto show = [](const char* label, const auto& v) {\n'
    printf '    if constexpr (requires { v.elems; }) cxmat::print(std::cout, label, v);\n'
    printf '    else if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>) std::cout << label << ": " << check::message{}.number(static_cast<double>(v), 15).data() << "\\n";\n'
    printf '    else std::cout << label << ": (not a number)\\n";\n  };\n'
    printf '%s' "$body"
    printf '}\n'
  } >"$tmp/values.cpp"
  echo
  if LC_ALL=C "$CXX" "-std=$STD" -fno-builtin -w -I "$ROOT/include" -I "$EXERCISES" -I "$(dirname "$1")" \
       "${extra[@]}" "$tmp/values.cpp" -o "$tmp/values" >"$tmp/errors" 2>&1; then
    echo "The values (the file compiled again without its checks, printing them):"
    # One check: its lines; several: each under the line of its check.
    "$tmp/values" 2>&1 | head -n "$((4 * SHOWN * n))" |
      if [[ $n -eq 1 ]]; then grep -v '^@@ line ' | sed 's/^/  /'; else sed -E 's/^@@ (.*)$/\n\1:/' | sed -E '1{/^$/d}; s/^(.)/  \1/'; fi
  else
    # Said, never dropped: the checks compare something the program without them cannot print.
    echo "The values cannot be shown: the file without its checks does not compile, so something a failed"
    echo "check compares is declared in the checks section or after it (declare it above the checks):"
    grep -m1 -E ': (fatal )?error: ' "$tmp/errors" | sed -E 's#^[^ ]*/##; s/^/  /'
  fi
  rm -rf "$tmp"
}

# The hint: hint.txt's text up to its first line "when: <regex>", unless the regular expression
# (grep -E) of such a line matches what the checker says is wrong (the lines above "at"): then the
# lines under the first one that matches, up to the next "when:". So a hint answers the mistake
# made, not the start file's.
choose_hint() {  # $1: hint.txt, $2: what is wrong
  local line chosen="" section="" inside=0 default="" text=""
  while IFS= read -r line || [[ -n "$line" ]]; do
    if [[ "$line" == "when: "* ]]; then
      [[ $inside -eq 1 && -z "$chosen" ]] && chosen="$text"
      inside=0
      [[ -z "$section" ]] && default="$text" && section=1
      text=""
      if [[ -z "$chosen" ]] && grep -qE -- "${line#when: }" <<<"$2"; then inside=1; fi
      continue
    fi
    text+="$line"$'\n'
  done <"$1"
  [[ $inside -eq 1 && -z "$chosen" ]] && chosen="$text"
  [[ -z "$section" ]] && default="$text"
  printf '%s' "${chosen:-$default}" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

print_hint() {  # $1: what is wrong
  echo
  echo "Hint (${dir#"$ROOT"/}/hint.txt):"
  choose_hint "$dir/hint.txt" "$1" | sed 's/^/  /'
}

# Calls an exercise does by hand (its by_hand.txt: lines "<regex> => <sentence>"): refused above
# the checks section, as the <cmath> functions are, whether or not the file compiles.
by_hand_call() {  # $1: the file; prints "<line number>\t<sentence>" of the first such call
  [[ -f "$dir/by_hand.txt" ]] || return 0
  local rule re sentence at
  while IFS= read -r rule; do
    [[ -z "$rule" || "$rule" == \#* ]] && continue
    re="${rule%% => *}"
    sentence="${rule#* => }"
    at="$(sed '/^\/\/ ---- The checks/,$d' "$1" | sed -E 's#//.*##' | grep -nE -- "$re" | head -n1 | cut -d: -f1)"
    if [[ -n "$at" ]]; then
      printf '%s\t%s\n' "$at" "$sentence"
      return 0
    fi
  done <"$dir/by_hand.txt"
}

full=0
case "${1:-}" in
  --full) full=1; shift ;;
  --std) std_for; exit 0 ;;  # the -std= value the check uses with $CXX (for the tests)
  --hint) hint_for="${3:-}"; set -- "${2:-}" ;;  # --hint NN TEXT: the hint shown when TEXT is what is wrong (for the tests)
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
if [[ -n "${hint_for+set}" ]]; then
  choose_hint "$dir/hint.txt" "$hint_for"
  exit 0
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
# Asked once: each question runs the compiler.
CXX_VERSION="$("$CXX" --version 2>/dev/null)"
STD="$(std_for)"
echo "$name: $title ($shown_file, $(head -n1 <<<"$CXX_VERSION"))"

if [[ -n "$missing" ]]; then
  echo "NOT YET: the checks at the end of the file were changed. They must stay as they are; missing:"
  printf '%s\n' "$missing" | head -n "$SHOWN"
  [[ -z "${2:-}" ]] && echo "(git diff ${shown_file} shows what changed.)"
  exit 1
fi

# LC_ALL=C: plain ASCII quotes in the messages, the same on every machine.
read -r -a extra <<<"${CXMAT_EXERCISE_FLAGS:-}"
compile() {  # the compiler's output for the file; its status is the compiler's
  LC_ALL=C "$CXX" "-std=$STD" -fsyntax-only -fno-builtin -fdiagnostics-color=never \
    -I "$ROOT/include" -I "$EXERCISES" "${WARNINGS[@]}" "${extra[@]}" "$@" "$file" 2>&1
}
mapfile -t pch < <(precompiled_headers "$file")
output="$(compile "${pch[@]}")"
status=$?
# A precompiled header that no longer fits (clang++: a header's date changed since, as a git
# checkout does to the same text; a file of the cache removed): the file is checked without it,
# and the next check makes it again.
if [[ $status -ne 0 && ${#pch[@]} -gt 0 ]] &&
  grep -qE 'precompiled header|PCH file|AST file|\.(pch|gch)\b|headers\.hpp: No such file' <<<"$output"; then
  rm -rf -- "$(dirname "${pch[1]}")"
  pch=()
  output="$(compile)"
  status=$?
fi
if [[ ${#pch[@]} -gt 0 ]]; then
  output="$(printf '%s\n' "$output" | as_if_not_precompiled "$file" "${pch[1]%.pch}")"
fi

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
  said="$(cmath_sentence "$cmath_in_file")"
  printf '%s\n' "$said" | sed 's/^/  /'
  [[ -n "$cmath_line" ]] && echo "  at $cmath_line"
  print_hint "$said"
  exit 1
fi

# A call that does the exercise's work (by_hand.txt), above the checks: refused, compiled or not.
by_hand="$(by_hand_call "$file")"
by_hand_said=""
if [[ -n "$by_hand" ]]; then
  by_hand_said="cxmat says: ${by_hand#*$'\t'}"
  by_hand_at="${by_hand%%$'\t'*}"
  by_hand_line="$shown_file:$by_hand_at: $(sed -n "${by_hand_at}p" "$file" | sed -E 's/^[[:space:]]+//')"
fi
if [[ $status -eq 0 && -n "$by_hand" ]]; then
  echo "NOT YET: it compiles, but it calls what the exercise does by hand."
  printf '%s\n' "$by_hand_said" | sed 's/^/  /'
  echo "  at $by_hand_line"
  print_hint "$by_hand_said"
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
    echo "That was the last exercise: you have taken a small language model apart, from attention to the tokens it draws."
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
# std::sqrt(float) failing a check) comes first: it fails with some compiler in any case. So
# does a call of what the exercise does by hand.
said="$(
  if [[ -z "$cmath_fn" && -n "$cmath_in_file" ]]; then cmath_sentence "$cmath_in_file"; fi
  [[ -n "$by_hand_said" ]] && printf '%s\n' "$by_hand_said"
  printf '%s\n' "$output" | headline
)"
printf '%s\n' "$said" | sed 's/^/  /'
where="$cmath_line"
[[ -z "$where" ]] && where="$(printf '%s\n' "$output" | student_line "$file" "$shown_file")"
[[ -n "$where" ]] && echo "  at $where"
print_hint "$said"
where_number=""
[[ "$where" =~ ^.*:([0-9]+):\  ]] && where_number="${BASH_REMATCH[1]}"
show_values "$file" "$output" "$where_number"
echo
echo "The compiler says:"
if [[ $full -eq 1 ]]; then
  printf '%s\n' "$output"
else
  printf '%s\n' "$output" | lines_that_matter | sed 's/^/  /'
  echo "  ($(printf '%s\n' "$output" | wc -l) lines in all: bash scripts/exercise.sh --full $again${2:+ $2} shows them)"
fi
exit 1
