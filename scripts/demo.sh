#!/usr/bin/env bash
# Sets up, builds, and runs qnn-validate on the bundled examples.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh build
QV=./build/tools/qnn-validate/qnn-validate

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
