"""The explorer's cases in their ONNX form: what qnn-validate says on the ONNX models the oracle ran.

  .venv/bin/python -m conformance.explore_onnx --validate PATH/qnn-validate --dimension attrs
      [--socs SM8350,SM8650] [--exceptions tests/conformance/explore/attrs-onnx-exceptions.json] [--jobs 2]

(with tools/ on PYTHONPATH). The graph form of a case (compare.py, what the other explorer CTests
check) carries no ONNX attribute, so the lowering path's own refusals (rules/lowering/ort-qnn.yaml
`cpu_forms`: Resize modes, Gemm alpha, Einsum equations, pool dilations...) and the rules' `onnx`
bindings are only held to the oracle here. It writes each case of one SoC of the dimension's data
(tests/conformance/explore/<dimension>.json) as the ONNX model the oracle was given
(onnx_build.py, the same bytes), runs qnn-validate on each, and compares like compare.py --onnx:
a disagreement the exceptions file does not list fails, and so does an exception that no longer
disagrees. Needs onnx and numpy (the venv). Exit 0 when everything agrees, 1 otherwise.
"""
import argparse
import json
import os
import sys
import tempfile

from . import compare
from . import onnx_build

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPLORE = os.path.join(ROOT, "tests", "conformance", "explore")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--validate", required=True)
    ap.add_argument("--dimension", required=True)
    ap.add_argument("--socs", default="SM8350,SM8650", help="comma-separated SoCs whose cases are compared")
    ap.add_argument("--exceptions")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    with open(os.path.join(EXPLORE, a.dimension + ".json")) as f:
        data = json.load(f)
    socs = a.socs.split(",")
    cases = [c for c in data["cases"] if c["soc"] in socs]
    if not cases:
        print(f"error: no case of {a.dimension} on {a.socs}", file=sys.stderr)
        return 2
    exc_path = a.exceptions or os.path.join(EXPLORE, f"{a.dimension}-onnx-exceptions.json")
    exceptions = []
    if os.path.exists(exc_path):
        with open(exc_path) as f:
            exceptions = [e for e in json.load(f) if e["id"].rsplit("/", 1)[-1] in socs]
    with tempfile.TemporaryDirectory() as d:
        for c in cases:
            with open(os.path.join(d, onnx_build.key(c) + ".onnx"), "wb") as f:
                f.write(onnx_build.model_bytes([c]))
        verdicts = compare.onnx_verdicts(a.validate, d, jobs=a.jobs)
    rows, problems = compare.compare({"cases": cases}, exceptions, verdicts)
    agree = sum(r["agree"] for r in rows)
    excepted = sum(1 for r in rows if not r["agree"] and r["exception"])
    print(f"{a.dimension} on {a.socs}, ONNX form: {agree}/{len(rows)} cases agree "
          f"({100.0 * agree / max(1, len(rows)):.2f}%), {excepted} disagreements excepted")
    for p in problems:
        print("DISAGREE " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
