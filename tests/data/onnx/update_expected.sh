#!/usr/bin/env bash
# Rewrites the golden outputs tests/data/onnx/expected/<model>.<SoC>.txt from the built
# qnn-validate (review the diff: they are what OnnxCliTest requires). Needed after a rule
# file's lines move, since the diagnostics name rules/<backend>/...yaml:line:column.
# Usage (from the checkout): tests/data/onnx/update_expected.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../../.."
exe="${1:-build}/tools/qnn-validate/qnn-validate"
for golden in tests/data/onnx/expected/*.txt; do
  case_name=$(basename "$golden" .txt)
  model=${case_name%.*}
  soc=${case_name#*.}
  QNNRULES_PATH= "$exe" "tests/data/onnx/$model.onnx" --backend htp --soc "$soc" > "$golden" 2>&1 || true
done
