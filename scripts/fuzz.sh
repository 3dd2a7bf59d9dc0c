#!/usr/bin/env bash
# Long fuzzing (issue 14): builds the libFuzzer targets of tests/fuzz/ with clang (ASan + UBSan
# incl. float-cast-overflow, coverage) in their own build tree, seeds each corpus from
# examples/, tests/data/ and the rule files, and runs every target for SECONDS (default 60),
# then prints execs/s and coverage per target. A crash, leak, sanitizer report or an input
# slower than 10 s stops that target; its reproducer lands in build-fuzz/artifacts/<target>/
# (add it to tests/fuzz/regressions/<target>/ once fixed). CI runs the targets briefly instead
# (ctest label "fuzz" in the sanitizer build of scripts/test.sh).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
shift || true
all=(graph_json graph_onnx graph_pt2 graph_roundtrip rules quant_config recipe backend_options end_to_end)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
dir=build-fuzz
exes=()
for t in "${targets[@]}"; do exes+=("fuzz_$t"); done
QNNRULES_BUILD_TARGETS="${exes[*]}" ./scripts/build.sh "$dir" -DCMAKE_CXX_COMPILER=clang++ -DQNNRULES_FUZZ=ON \
  -DQNNRULES_BUILD_TESTS=OFF -DQNNRULES_BUILD_BENCHMARKS=OFF -DQNNRULES_BUILD_PYTHON=OFF \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"

# Seeds: every file that is an example of the target's format (tests/fuzz/seeds.sh).
tests/fuzz/seeds.sh "$dir/seeds" "${targets[@]}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 QNNRULES_PATH=
printf '%-16s %10s %12s %8s %8s %s\n' target seconds execs/s cov ft result
failed=0
for t in "${targets[@]}"; do
  corpus=$dir/corpus/$t
  mkdir -p "$corpus" "$dir/artifacts/$t" "$dir/logs"
  log=$dir/logs/$t.log
  result=ok
  "$dir/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -dict="tests/fuzz/dict/$t.dict" -artifact_prefix="$dir/artifacts/$t/" \
    "$corpus" "$dir/seeds/$t" "tests/fuzz/regressions/$t" > "$log" 2>&1 || { result="FAILED (see $log)"; failed=1; }
  execs=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo '?')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo '?')
  printf '%-16s %10s %12s %8s %8s %s\n' "$t" "$secs" "$execs" "$cov" "$ft" "$result"
done
exit $failed
