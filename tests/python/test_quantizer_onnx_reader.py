"""The Quantizer suite's exported ONNX models through qnn-validate's ONNX reader, held to the backend.

tests/python/test_quantizer_oracle.py judges the converted FX graphs; the backend ran the ONNX
models torch.onnx exported from them (tests/conformance/quantizer/onnx/). Here qnn-validate reads
those ONNX files, as a user would, for the oracle's path (ort-qnn), and its delegation is compared
with the backend's recorded verdicts per FX compute node (tools/conformance/quantizer/
onnx_reader.py; the ONNX nodes of each FX node are recorded in verdicts.json):

- no false negative: no node the reader's rules delegate was refused by the backend, unless the
  report predicts the graph-finalize failure that refused it;
- no false positive that is not recorded in tests/conformance/quantizer/onnx_reader.json, and per
  case and in total, agreement and whole-graph agreement no worse than recorded.

The gate is checked on a mutated record too. Needs the CLI (QNNRULES_VALIDATE_EXE, set by CTest),
no torch, no oracle; a few seconds. After a change that improves the figures:
    python3 tools/conformance/quantizer/onnx_reader.py --validate build/tools/qnn-validate/qnn-validate --write
"""

import copy
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from conformance.quantizer import onnx_reader as R  # noqa: E402

with open(R.RECORD) as _f:
    RECORDED = json.load(_f)


@pytest.fixture(scope="module")
def today():
    exe = os.environ.get("QNNRULES_VALIDATE_EXE")
    if not exe:
        pytest.fail("QNNRULES_VALIDATE_EXE is not set: run these tests through ctest")
    return R.run(exe, R.load_cases())


def fp_nodes(case):
    return {d["node"] for d in case["disagreements"] if d["kind"] == "FP"}


def regressions(today, recorded):
    """What got worse than the record: a list of sentences (empty when nothing did)."""
    out = []
    missing = sorted(set(recorded["cases"]) - set(today))
    if missing:
        out.append(f"cases no longer compared: {missing[:5]}")
    for cid, t in sorted(today.items()):
        r = recorded["cases"].get(cid)
        if r is None:
            out.append(f"{cid}: not in the record (rerun onnx_reader.py --write)")
            continue
        fn = [d["node"] for d in t["disagreements"] if d["kind"] == "FN"]
        if fn:
            out.append(f"{cid}: false negatives {fn}")
        new_fp = sorted(fp_nodes(t) - fp_nodes(r))
        if new_fp:
            out.append(f"{cid}: new false positives {new_fp}")
        if t["totals"]["agree"] < r["totals"]["agree"]:
            out.append(f"{cid}: {t['totals']['agree']} nodes agree, {r['totals']['agree']} recorded")
        if r["graph_agrees"] and not t["graph_agrees"]:
            out.append(f"{cid}: whole graph {t['outcome']}, backend {t['oracle_outcome']}")
    s = R.summary(today)
    for k in ("agree", "graph_agree"):
        if s.get(k, 0) < recorded["totals"].get(k, 0):
            out.append(f"total {k} {s.get(k, 0)} < recorded {recorded['totals'][k]}")
    if s.get("FP", 0) > recorded["totals"].get("FP", 0):
        out.append(f"total FP {s['FP']} > recorded {recorded['totals']['FP']}")
    return out


def test_record_holds_no_false_negative_and_covers_every_case():
    cases = R.load_cases()
    assert set(RECORDED["cases"]) == {c["id"] for c in cases}
    assert RECORDED["totals"]["FN"] == 0
    assert RECORDED["totals"]["nodes"] >= 10000


def test_no_regression_against_the_record(today):
    assert regressions(today, RECORDED) == []


def test_the_gate_catches_a_new_false_positive_and_a_false_negative(today):
    cid = next(c for c, r in sorted(today.items()) if r["totals"]["agree"] > 0)
    worse = copy.deepcopy(today)
    worse[cid]["disagreements"].append({"node": "x", "kind": "FP", "target": "t", "onnx": [], "code": None,
                                        "message": None, "backend": "accepted"})
    worse[cid]["totals"]["agree"] -= 1
    problems = regressions(worse, RECORDED)
    assert any(p.startswith(f"{cid}: new false positives") and "'x'" in p for p in problems), problems
    worse[cid]["disagreements"][-1]["kind"] = "FN"
    assert any(p.startswith(f"{cid}: false negatives") and "'x'" in p for p in regressions(worse, RECORDED))
