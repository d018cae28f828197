#!/usr/bin/env bash
# Installs, from Debian's packages, whatever cxmat's build needs and this machine lacks.
#   scripts/install-deps.sh demo   just enough to build and run the examples
#   scripts/install-deps.sh test   everything the full test suite uses (the default)
set -euo pipefail

profile="${1:-test}"

demo_packages=(cmake ninja-build g++ libboost-dev)
test_packages=("${demo_packages[@]}"
  clang-19            # the second compiler of the test suite (clang++-19)
  libclang-rt-19-dev  # its AddressSanitizer / UndefinedBehaviorSanitizer runtimes (sanitize preset)
  clang-14            # clang++-14: static tests, compile-fail suite and exercises
  clang-format clang-tidy  # lint.clang_format and lint.clang_tidy (Debian 12: version 14)
  catch2              # runtime tests (Catch2 2.13 on Debian 12; Catch2 3 is used if found)
  python3             # compile-fail gallery check and reference scripts
  python3-numpy       # reference scripts' arrays (worksheets, coverage matrix, exercises), numpy print format
  python3-mpmath      # the references' arithmetic: 200-bit, rounded once, the same on every CPU
  python3-torch       # PyTorch 1.13: reference for the transformer layers, weight files for the importer
  libmpfr-dev         # exp/sqrt accuracy reference
  libbenchmark-dev    # run-time benchmarks
  libeigen3-dev       # run-time benchmark anchor
  gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib  # Cortex-M cross build
  qemu-system-arm     # optional: runs the Cortex-M images (without it those tests are skipped)
  binutils)           # nm, for the freestanding symbol check

case "$profile" in
  demo) wanted=("${demo_packages[@]}") ;;
  test) wanted=("${test_packages[@]}") ;;
  *) echo "usage: $0 [demo|test]" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
