#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite: once in a normal build (warnings as errors);
# once built with clang under AddressSanitizer + UndefinedBehaviorSanitizer (including
# float-cast-overflow, which GCC does not check), where the libFuzzer targets of tests/fuzz/
# are built too and run briefly over their regression inputs (ctest label "fuzz"); and the
# engine with the concurrency test alone under ThreadSanitizer. Long fuzzing: scripts/fuzz.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's CTest, like the CMake that scripts/build.sh names.
CTEST=/usr/bin/ctest
[ -x "$CTEST" ] || CTEST=ctest
./scripts/setup.sh
stamp() { echo "== $(date -u +%T) $*"; }

stamp "build (warnings as errors)"
./scripts/build.sh build -DQNNRULES_WERROR=ON
stamp "tests"
"$CTEST" --test-dir build --output-on-failure -j"$(nproc)"

stamp "build with clang: AddressSanitizer + UndefinedBehaviorSanitizer + the fuzz targets"
./scripts/build.sh build-asan -DCMAKE_CXX_COMPILER=clang++ -DQNNRULES_FUZZ=ON -DQNNRULES_WERROR=ON \
  -DQNNRULES_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug -DQNNRULES_FUZZ_SECONDS=10
stamp "tests under sanitizers (fuzz targets: 10 s each on their regression inputs)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$CTEST" --test-dir build-asan --output-on-failure -j"$(nproc)"

stamp "build with ThreadSanitizer: the engine and the concurrency test only"
QNNRULES_BUILD_TARGETS=qnnrules_concurrency_test ./scripts/build.sh build-tsan -DCMAKE_CXX_COMPILER=clang++ \
  -DQNNRULES_TSAN=ON -DQNNRULES_BUILD_TESTS=OFF -DQNNRULES_BUILD_BENCHMARKS=OFF -DQNNRULES_BUILD_PYTHON=OFF
stamp "concurrency under ThreadSanitizer"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 QNNRULES_PATH= build-tsan/tests/concurrency/qnnrules_concurrency_test
stamp "done"
