#!/usr/bin/env bash
# Re-measures the HTP rules against the real QNN HTP backend (issue 9) and regenerates the data
# and the doc. Run on a machine set up by scripts/setup.sh (the venv holds onnxruntime-qnn):
#   scripts/conformance.sh [--jobs N]
# 1. builds qnn-validate; 2. runs every case through the oracle (ONNX Runtime's QNN EP with the
# wheel's libQnnHtp.so) into tests/conformance/htp.json; 3. rewrites the committed ONNX sample;
# 4. compares qnnrules with the verdicts and regenerates docs/conformance.md; 5. runs ExecuTorch's
# QnnQuantizer on the real models beside qnnrules (docs/conformance-executorch.md).
# Exit status: that of the comparison (1 when a disagreement has no exception).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=2
if [ "${1:-}" = "--jobs" ]; then JOBS="$2"; fi
PY=.venv/bin/python
[ -x "$PY" ] || { echo "conformance: no .venv; run scripts/setup.sh first" >&2; exit 2; }
CMAKE=/usr/bin/cmake
[ -x "$CMAKE" ] || CMAKE=cmake
[ -d build ] || ./scripts/build.sh build
"$CMAKE" --build build --target qnn-validate -j"$JOBS"
VALIDATE=build/tools/qnn-validate/qnn-validate

echo "== oracle (this takes a while: every case through the HTP backend)"
PYTHONPATH=tools "$PY" -m conformance.record --jobs "$JOBS"
echo "== ONNX sample"
PYTHONPATH=tools "$PY" -m conformance.samples
echo "== doc"
python3 tools/conformance/make_doc.py --validate "$VALIDATE"
echo "== ExecuTorch's QnnQuantizer side by side (docs/conformance-executorch.md)"
"$CMAKE" --build build --target _qnnrules -j"$JOBS"
EXECUTORCH_BUILDING_WHEEL=1 PYTHONPATH=build/python QNNRULES_PATH= "$PY" tools/conformance/executorch/run.py
echo "== comparison"
python3 tools/conformance/compare.py --validate "$VALIDATE"
