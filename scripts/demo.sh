#!/usr/bin/env bash
# Sets up, builds, and runs qnn-validate on the bundled examples.
#
# It builds only what it runs: qnn-validate and its reader modules (ONNX, .pt2), not the tests,
# benchmarks or the Python extension (./scripts/test.sh builds those), and it needs no Python
# venv (QNNRULES_SKIP_VENV=1 for setup.sh; set QNNRULES_DEMO_SETUP=0 to skip setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${QNNRULES_DEMO_SETUP:-1}" != 0 ]; then
  QNNRULES_SKIP_VENV=1 ./scripts/setup.sh
fi
QNNRULES_BUILD_TARGETS="qnn-validate" ./scripts/build.sh "${QNNRULES_DEMO_BUILD_DIR:-build}"
QV=./${QNNRULES_DEMO_BUILD_DIR:-build}/tools/qnn-validate/qnn-validate

echo
echo "\$ qnn-validate examples/tiny_cnn_8a8w.json --backend htp --soc SM8650 --strict"
$QV examples/tiny_cnn_8a8w.json --backend htp --soc SM8650 --strict

echo
echo "\$ qnn-validate examples/lpbq_linear.json --backend htp --soc SM8350 --warn   # block-wise weights on a V68 SoC"
$QV examples/lpbq_linear.json --backend htp --soc SM8350 --warn

echo
echo "\$ qnn-validate examples/violations.json --backend htp --soc SM8650 --warn"
$QV examples/violations.json --backend htp --soc SM8650 --warn

echo
echo "\$ qnn-validate tests/data/pt2/sigmoid_bad_scale.pt2 --soc SM8650 --warn   # a torch.export archive after convert_pt2e"
$QV tests/data/pt2/sigmoid_bad_scale.pt2 --soc SM8650 --warn

echo
echo "\$ qnn-validate tests/data/onnx/linear_16a4w_block.onnx --soc SM8350 --warn   # an ONNX QDQ model"
$QV tests/data/onnx/linear_16a4w_block.onnx --soc SM8350 --warn
