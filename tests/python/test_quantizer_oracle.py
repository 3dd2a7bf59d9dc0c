"""Our Quantizer's graphs on the real HTP backend, held to the recorded data (issue 22).

tools/conformance/quantizer/run.py quantized every model x config x SoC with
qnnrules.torch.Quantizer (prepare_pt2e -> calibrate -> convert_pt2e), recorded qnnrules' verdict
per FX compute node, exported the converted program to ONNX QDQ and ran it through ONNX Runtime's
QNN EP on libQnnHtp.so (tests/conformance/quantizer/verdicts.json, docs/conformance-quantizer.md).
It saved the graph the engine read (graph format v1, graphs/*.json.gz). Here each recorded graph
is re-validated with today's rules (qnnrules.Engine.delegation for the oracle's lowering path,
ort-qnn; no torch) and compared node by node with the backend's recorded verdicts:

- no false negative: every compute node the rules delegate was accepted by QNN's op validation
  (and placed on QNN when the session was created), and when graph finalize failed on it (the
  session fails), the rules predicted that failure (a `gate_fails_at: finalize` variant);
- per case, the compared nodes are the recorded ones (the reader and the engine still see the
  same compute nodes), and node agreement / FP are no worse than recorded;
- the totals (cases, compared nodes, agreement, FP) are no worse than the recorded totals;
- the bisection of the V68 finalize failure (tools/conformance/quantizer/bisect_gather.py,
  bisect_gather.json): each of its ONNX models, judged by the rules, fails or runs as it did on
  the backend.
"""

import gzip
import json
import os
import sys

import pytest

import qnnrules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "conformance", "quantizer")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from conformance.quantizer import compare as C  # noqa: E402

with open(os.path.join(DATA, "verdicts.json")) as _f:
    RECORDED = json.load(_f)
CASES = [c for c in RECORDED["cases"] if "nodes" in c]
STRUCTURAL = C.structural_targets()
_ENGINES = {}


def engine(soc):
    if soc not in _ENGINES:
        _ENGINES[soc] = C.engine(soc)
    return _ENGINES[soc]


def revalidate(case):
    """Rows {node: row} of today's verdicts against the recorded backend states."""
    with gzip.open(os.path.join(DATA, "graphs", case["graph"]), "rt") as f:
        graph = json.load(f)
    ours, summary = C.predict(engine(case["soc"]), graph, STRUCTURAL)
    return C.rejudge(ours, case["nodes"], summary["fails_at_finalize"])


_TODAY = {}


def today(case):
    if case["id"] not in _TODAY:
        _TODAY[case["id"]] = revalidate(case)
    return _TODAY[case["id"]]


def test_recorded_data_is_complete():
    assert len(CASES) >= 8 * 3 * 3, f"only {len(CASES)} cases recorded"
    models = {c["model"] for c in CASES}
    assert len(models) >= 8 and "llama" in models
    assert {"8a8w", "16a8w", "16a16w"} <= {c["config"] for c in CASES}
    assert len({c["soc"] for c in CASES}) >= 3
    for c in CASES:
        assert os.path.exists(os.path.join(DATA, "graphs", c["graph"])), c["graph"]
        assert c["retype_agrees"] and c["qnnrules"]["pt2_agrees"], c["id"]
    # Recorded: no false negative, at op validation or at graph finalize.
    assert sum(c["totals"]["fn"] for c in CASES) == 0


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_no_false_negative_with_todays_rules(case):
    rows = today(case)
    fn = {n: r for n, r in rows.items() if r["kind"] == "FN"}
    assert not fn, "the rules delegate nodes the HTP backend refused:\n" + "\n".join(
        f"  {n} ({r['target']}): {r['backend_message']}" for n, r in fn.items())
    # The same compute nodes are compared as when recorded (nothing silently dropped).
    recorded = {n for n, r in case["nodes"].items() if r["kind"] in ("agree", "FP", "FN")}
    compared = {n for n, r in rows.items() if r["kind"] in ("agree", "FP", "FN")}
    assert compared == recorded, f"compared nodes changed: lost {sorted(recorded - compared)[:10]}, " \
                                 f"new {sorted(compared - recorded)[:10]}"
    t = C.totals(rows)
    assert t["agree"] >= case["totals"]["agree"] and t["fp"] <= case["totals"]["fp"], (t, case["totals"])


def test_totals_no_worse_than_recorded():
    rec = {"nodes": 0, "agree": 0, "fp": 0, "fn": 0, "fn_finalize": 0}
    now = dict(rec)
    for c in CASES:
        t = C.totals(today(c))
        for k in rec:
            rec[k] += c["totals"][k]
            now[k] += t[k]
    assert now["fn"] == 0, (now, rec)
    assert now["nodes"] == rec["nodes"] and now["agree"] >= rec["agree"] and now["fp"] <= rec["fp"], (now, rec)


def test_a_refusal_the_rules_miss_is_caught():
    """The gate works: a node the rules delegate, recorded as refused by the backend, is an FN."""
    case = next(c for c in CASES if any(r["ours"] == "delegated" and r["kind"] == "agree" for r in c["nodes"].values()))
    name = next(n for n, r in case["nodes"].items() if r["ours"] == "delegated" and r["kind"] == "agree")
    mutated = dict(case, id=case["id"] + "/mutated",
                   nodes=dict(case["nodes"], **{name: dict(case["nodes"][name], backend="refused")}))
    rows = revalidate(mutated)
    assert rows[name]["kind"] == "FN"
    assert C.totals(rows)["fn"] == 1


def test_a_finalize_failure_the_rules_miss_is_caught():
    """A node graph finalize failed on agrees only when the rules predict the finalize failure."""
    assert C.node_kind("delegated", "refused-at-finalize", finalize_predicted=True) == "agree"
    assert C.node_kind("delegated", "refused-at-finalize", finalize_predicted=False) == "FN"
    assert C.node_kind("delegated", "refused", finalize_predicted=True) == "FN"


with open(os.path.join(DATA, "bisect_gather.json")) as _f:
    BISECT = json.load(_f)["cases"]


@pytest.mark.parametrize("run", BISECT, ids=[r["id"] for r in BISECT])
def test_bisect_gather_runs_as_the_rules_say(run, tmp_path):
    """Each model of the bisection, judged for the path it ran on (ORT's default optimizations:
    ort-qnn; none: the encodings stay as written, as on ExecuTorch's path), fails at graph
    finalize exactly when it did on the backend."""
    pytest.importorskip("onnx")
    from conformance.quantizer import bisect_gather as B
    kw = B.CASES[run["case"]][1]
    path = tmp_path / "case.onnx"
    path.write_bytes(B.build(**kw))
    lowering = "ort-qnn" if run["ort_optimizations"] == "default" else "executorch"
    rep = qnnrules.Engine(backend="htp", soc=run["soc"], strict=True, lowering=lowering,
                          use_environment=False).delegation(qnnrules.Graph.from_file(str(path)))
    sf = rep.to_dict()["session_failure"]
    assert C.fails_at_finalize(sf) == (run["outcome"] == "session-failure"), (run, sf)
    # The cause the bisection isolated: V68 cannot finalize the float32 Gather ORT hands QNN.
    assert (run["outcome"] == "session-failure") == (run["arch"] == "V68" and run["qnn_gather_data_type"] == "FLOAT_32")
