#!/usr/bin/env bash
# The whole test suite: installs what is missing, then configures, builds and runs every test
# (static, runtime, compile-fail, examples, install check) with g++ and with clang++ 19, and once
# more with clang++ 19 under AddressSanitizer and UndefinedBehaviorSanitizer (Debug build).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh test

for preset in gcc clang19 sanitize; do
  echo "==================== $preset ===================="
  cmake --workflow --preset "$preset"
done
