#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite: once in a normal build (warnings as errors)
# and once under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's CTest, like the CMake that scripts/build.sh names.
CTEST=/usr/bin/ctest
[ -x "$CTEST" ] || CTEST=ctest
./scripts/setup.sh

echo "== build (warnings as errors)"
./scripts/build.sh build -DQNNRULES_WERROR=ON
echo "== tests"
"$CTEST" --test-dir build --output-on-failure -j"$(nproc)"

echo "== build with AddressSanitizer + UndefinedBehaviorSanitizer"
./scripts/build.sh build-asan -DQNNRULES_SANITIZE=ON -DQNNRULES_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug
echo "== tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$CTEST" --test-dir build-asan --output-on-failure -j"$(nproc)"
