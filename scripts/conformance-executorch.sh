#!/usr/bin/env bash
# ExecuTorch's own QNN lowering as the oracle (issue 33): quantizes the suite's models with
# ExecuTorch's QnnQuantizer and with qnnrules.torch.Quantizer, lowers each with ExecuTorch's
# to_edge_transform_and_lower_to_qnn on the real x86 HTP backend (the onnxruntime-qnn wheel's
# libQnnHtp.so behind tools/conformance/executorch/shim/), records the verdicts in
# tests/conformance/executorch/lowering/ and regenerates docs/conformance-executorch-lowering.md.
# Run on a machine set up by scripts/setup.sh:
#   scripts/conformance-executorch.sh [options of tools/conformance/executorch/lower.py]
# e.g. --models cnn_bn --configs 8a8w --socs SM8650 for one quick case (no options: the suite's plan). Builds build-et (qnn-validate
# and the Python module) first. Exit status: that of the comparison (1 when a figure got worse).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
[ -x "$PY" ] || { echo "conformance-executorch: no .venv; run scripts/setup.sh first" >&2; exit 2; }
QNNRULES_BUILD_TARGETS="qnn-validate qnnrules_python" ./scripts/build.sh build-et -DQNNRULES_BUILD_PYTHON=ON
# No options: the suite's plan (tests/conformance/executorch/lowering/suite_plan.txt), a failing
# lowering retried with the skip sets of qnnrules.executorch.
[ $# -gt 0 ] || set -- --cases tests/conformance/executorch/lowering/suite_plan.txt --with-skips
echo "== ExecuTorch lowering (each quantization and lowering in its own process)"
QNNRULES_PATH= nice -n 10 "$PY" tools/conformance/executorch/lower.py --python-path build-et/python \
  --validate build-et/tools/qnn-validate/qnn-validate --bias-case "$@"
echo "== skip sets on the failing lowerings (tests/conformance/executorch/lowering/skips.json)"
QNNRULES_PATH= nice -n 10 "$PY" tools/conformance/executorch/skip_cases.py --validate build-et/tools/qnn-validate/qnn-validate
echo "== numeric checks through ONNX Runtime (bias scale, scale range, zero points)"
nice -n 10 "$PY" tools/conformance/executorch/bias_ort.py --validate build-et/tools/qnn-validate/qnn-validate
echo "== comparison and doc"
python3 tools/conformance/executorch/lower_compare.py --validate build-et/tools/qnn-validate/qnn-validate \
  --write-doc
