#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (CI runs this through .ci/run), in three trees:
#   build       GCC, warnings as errors: every test;
#   build-asan  clang, AddressSanitizer + UndefinedBehaviorSanitizer incl. float-cast-overflow
#               (GCC's UBSan lacks it), warnings as errors, with the libFuzzer targets of
#               tests/fuzz/: every test again, plus each fuzz target over its regression inputs
#               and seeds, then fuzzing for QNNRULES_FUZZ_SECONDS (ctest label "fuzz");
#   build-tsan  GCC, ThreadSanitizer: only the engine, the concurrency test and the Python
#               module (threads sharing one Engine, engines loading at once, Python threads).
# Time on a fresh 2-core machine: docs/fuzzing.md ("CI"). QNNRULES_TEST_JOBS sets the ctest jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's CTest, like the CMake that scripts/build.sh names.
CTEST=/usr/bin/ctest
[ -x "$CTEST" ] || CTEST=ctest
jobs="${QNNRULES_TEST_JOBS:-$(nproc)}"
./scripts/setup.sh

echo "== build (GCC, warnings as errors)"
./scripts/build.sh build -DQNNRULES_WERROR=ON
echo "== tests"
"$CTEST" --test-dir build --output-on-failure -j"$jobs"

# -O1 -g1 without NDEBUG: assertions stay on, the tests and fuzzing run several times faster
# than at -O0, and the objects are those of scripts/fuzz.sh's tree but for -Werror.
echo "== build with clang AddressSanitizer + UndefinedBehaviorSanitizer (+ float-cast-overflow) and the fuzz targets"
./scripts/build.sh build-asan -DCMAKE_CXX_COMPILER=clang++ -DQNNRULES_FUZZ=ON -DQNNRULES_WERROR=ON \
  -DQNNRULES_BUILD_BENCHMARKS=OFF "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer, and the fuzz regressions"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$CTEST" --test-dir build-asan --output-on-failure -j"$jobs"

echo "== build with ThreadSanitizer (engine, concurrency test, Python module)"
QNNRULES_BUILD_TARGETS="qnnrules_concurrency_test qnnrules_python" ./scripts/build.sh build-tsan \
  -DCMAKE_CXX_COMPILER=g++ -DQNNRULES_TSAN=ON -DQNNRULES_WERROR=ON -DQNNRULES_BUILD_BENCHMARKS=OFF \
  -DQNNRULES_BUILD_PYTHON=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
echo "== concurrency tests under ThreadSanitizer"
"$CTEST" --test-dir build-tsan --output-on-failure -R '^concurrency'
