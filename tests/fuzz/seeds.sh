#!/usr/bin/env bash
# Writes the seed corpus of each libFuzzer target to OUT_DIR/<target>/: every file in the checkout
# that is an example of the target's format. Used by scripts/fuzz.sh (long runs) and by the ctest
# fixture fuzz_seeds (tests/fuzz/CMakeLists.txt, the short CI runs).
# Usage: tests/fuzz/seeds.sh OUT_DIR TARGET...
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out_root=$(realpath -m "$1")
shift
cd "$root"

# The rules target reads a selector byte first (0 rule file, 1 backend manifest, 2 SoC table).
seed() {
  local t=$1 out=$out_root/$1
  rm -rf "$out"
  mkdir -p "$out"
  case $t in
    graph_json|end_to_end)
      find examples tests/data tests/hostile/inputs -name '*.json' -size -2M -exec cp --backup=numbered -t "$out" {} + ;;
    graph_onnx) find tests/data tests/conformance/onnx -name '*.onnx' -size -2M -exec cp --backup=numbered -t "$out" {} + ;;
    graph_pt2) find tests/data -name '*.pt2' -size -4M -exec cp --backup=numbered -t "$out" {} + ;;
    graph_roundtrip)  # every format the readers accept
      find examples tests/data -name '*.json' -size -2M -exec cp --backup=numbered -t "$out" {} +
      find tests/data -name '*.onnx' -size -2M -exec cp --backup=numbered -t "$out" {} +
      find tests/data -name '*.pt2' -size -4M -exec cp --backup=numbered -t "$out" {} + ;;
    rules)
      local i=0
      for f in rules/*/ops/*.yaml tests/data/loader/*.yaml tests/data/annotate/rules/*/*.yaml; do
        { printf '\0'; cat "$f"; } > "$out/rule$((i++))"; done
      for f in rules/*/backend.yaml; do { printf '\1'; cat "$f"; } > "$out/manifest$((i++))"; done
      { printf '\2'; cat rules/socs.yaml; } > "$out/socs" ;;
    quant_config) cp rules/quant_configs.yaml "$out/" ;;
    recipe) find tests docs examples -name '*recipe*.yaml' -exec cp --backup=numbered -t "$out" {} + 2>/dev/null || true
            printf 'version: 1\noverrides:\n  - {target: aten.conv2d.default, config: "16a8w:per_channel"}\n' > "$out/one" ;;
    backend_options) cp rules/backend_options.yaml "$out/" ;;
    baseline) find tests/golden/expected -name '*.sarif' -size -2M -exec cp --backup=numbered -t "$out" {} +
              find tests/golden/expected -name '*.json' -size -2M -exec cp --backup=numbered -t "$out" {} + ;;
    *) echo "seeds.sh: unknown target $t" >&2; exit 2 ;;
  esac
}

for t in "$@"; do seed "$t"; done
