#!/usr/bin/env bash
# Compile-time cost of cxmat::exp / cxmat::sqrt, per call, measured with constexpr_cost.cpp:
#  - Clang: evaluation steps per call (bisecting -fconstexpr-steps for 1000 and 2000 calls and
#    taking the difference, minus the empty loop's), and how many calls of the harness loop fit
#    the default budget (-fconstexpr-steps=1048576; bisecting the call count);
#  - GCC: operations per call the same way with -fconstexpr-ops-limit (default 2^25);
#  - both: compile CPU seconds per 10^4 calls (40,000 calls minus 0, divided by 4).
# Usage: benchmarks/math_cost/constexpr_cost.sh [compiler...]   (default: g++ clang++ clang++-19)
# QUICK=1 measures the cost per call only (a few minutes instead of tens).
# KINDS="0 1 2 3 4" selects the rows (see constexpr_cost.cpp; 6-16 are log, tanh, erf, sin,
# cos, double and float). Takes tens of minutes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
inc="$here/../../include"
src="$here/constexpr_cost.cpp"
compilers=("$@")
[ ${#compilers[@]} -eq 0 ] && compilers=(g++ clang++ clang++-19)

compiles() {  # compiler calls kind extra-flags...
  "$1" -std=c++20 -fsyntax-only -I"$inc" -DCXMAT_COST_CALLS="$2" -DCXMAT_COST_KIND="$3" \
    "${@:4}" "$src" >/dev/null 2>&1
}
# Smallest limit value (flag given as $1, e.g. -fconstexpr-steps=) that lets it compile.
min_limit() {  # flag compiler calls kind
  local lo=1 hi=1000000000 mid
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    if compiles "$2" "$3" "$4" "$1$mid"; then hi=$mid; else lo=$mid; fi
  done
  echo "$hi"
}
# Largest call count that compiles with the default limits.
max_calls() {  # compiler kind
  local lo=0 hi=1048576 mid
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    if compiles "$1" "$mid" "$2"; then lo=$mid; else hi=$mid; fi
  done
  echo "$lo"
}

names=("exp(double) x in [-20,0]" "exp(float) x in [-20,0]" "exp(double) x in [-700,700]"
       "sqrt(double)" "softmax element exp(x - max)" "(loop)" "log(double) x in [1,1000]"
       "tanh(double) x in [-5,5]" "erf(double) x in [-5,5]" "sin(double) x in [-100,100]"
       "cos(double) x in [-100,100]" "sin(double) x in [1e20,2e20]" "erf(float) x in [-5,5]"
       "sin(float) x in [-100,100]" "log(float) x in [1,1000]" "tanh(float) x in [-5,5]"
       "cos(float) x in [-100,100]")
echo "| compiler | function | per call | calls in one constant expression at the default limit | compile s / 10^4 calls |"
echo "|---|---|---|---|---|"
for cxx in "${compilers[@]}"; do
  command -v "$cxx" >/dev/null || { echo "skipping $cxx (not found)" >&2; continue; }
  if "$cxx" --version | grep -qi clang; then flag=-fconstexpr-steps=; unit=steps; else flag=-fconstexpr-ops-limit=; unit=ops; fi
  nolimit="${flag}2000000000"  # for timing: 40,000 calls need not fit the default budget
  base1=$(min_limit "$flag" "$cxx" 1000 5)
  base2=$(min_limit "$flag" "$cxx" 2000 5)
  overhead=$(((base2 - base1) / 1000))
  for kind in ${KINDS:-0 1 2 3 4}; do
    l1=$(min_limit "$flag" "$cxx" 1000 "$kind")
    l2=$(min_limit "$flag" "$cxx" 2000 "$kind")
    per=$(awk -v a="$l1" -v b="$l2" -v o="$overhead" 'BEGIN { printf "%.1f", (b - a) / 1000 - o }')
    if [ "${QUICK:-0}" = 1 ]; then  # no bisection of the call count, no timing (the slow part)
      fits=-
      sec=-
    else
      fits=$(max_calls "$cxx" "$kind")
      t40=$( { TIMEFORMAT=%U; time compiles "$cxx" 40000 "$kind" "$nolimit"; } 2>&1 ) || t40=nan
      t0=$( { TIMEFORMAT=%U; time compiles "$cxx" 0 "$kind" "$nolimit"; } 2>&1 ) || t0=nan
      sec=$(awk -v a="$t40" -v b="$t0" 'BEGIN { printf "%.3f", (a - b) / 4 }')
    fi
    echo "| $cxx | ${names[$kind]} | $per $unit (+$overhead loop) | $fits | $sec |"
  done
done
