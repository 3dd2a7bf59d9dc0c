"""Unit tests of tools/conformance/models/compare.py (standard library only; CTest
conformance_models_tools): how a recorded node and a qnn-validate report become agreement, false
positives and false negatives, how the whole-graph outcome is read (including the session-failure
verdict kind), and that the expected-figures gate catches a regression."""
import json
import os
import stat
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tools", "conformance", "models"))
import compare as C  # noqa: E402


def node(name, op="Conv", verdict="accepted", placement="QNN", message=None):
    return {"name": name, "op": op, "domain": "ai.onnx", "verdict": verdict, "placement": placement,
            "message": message}


CASE = {"id": "m/8a8w/SM8650", "model": "m", "config": "8a8w", "soc": "SM8650", "file": "m.8a8w.onnx",
        "outcome": "cpu-fallback", "session_error": None, "nodes": [
            node("ok"),                                            # both accept
            node("fp"),                                            # we refuse, backend runs
            node("fn", verdict="rejected", placement="CPU", message="QNN says no"),
            node("both", verdict="rejected", placement="CPU"),     # both refuse
            node("gone", op="Shape", verdict="not_asked", placement="removed"),   # ORT removed, we accept
            node("gone_fp", op="Shape", verdict="not_asked", placement="removed"),  # ORT removed, we refuse
            node("refused_gone", op="Transpose", verdict="rejected", placement="removed",
                 message="Cannot get shape"),                     # the EP refused it, then ORT removed it
            node("unknown", verdict="not_asked", placement=None),  # no verdict at all
            node("follower", op="Reshape"),                       # follows-cpu: not a refusal
            node("ran_on_qnn", op="Reshape", verdict="rejected"),  # a refused fusion, then QNN alone
        ]}


def fallback(n, reason, code=None, op="aten.conv2d.default"):
    return {"node": n, "op": op, "reason": reason, "code": code, "message": f"{n} refused", "rule": "",
            "location": None, "hint": ""}


def report(fallbacks, kind="invalid", session_failure=None, diagnostics=()):
    d = {"fallbacks": fallbacks}
    if session_failure:
        d["session_failure"] = session_failure
    return {"verdict": {"kind": kind, "text": "INVALID", "cpu_percent": 0}, "delegation": d,
            "diagnostics": list(diagnostics)}


class FakeValidate:
    """A stand-in qnn-validate: prints a canned report (or an error report with exit 2)."""

    def __init__(self, tmp, payload, code):
        self.path = os.path.join(tmp, "fake-validate")
        with open(self.path, "w") as f:
            f.write(f"#!{sys.executable}\nimport sys\nsys.stdout.write({json.dumps(json.dumps(payload))})\n"
                    f"sys.exit({code})\n")
        os.chmod(self.path, os.stat(self.path).st_mode | stat.S_IEXEC)


class CompareTest(unittest.TestCase):
    def predict(self, rep, code=1):
        with tempfile.TemporaryDirectory() as tmp:
            return C.run_validate(FakeValidate(tmp, rep, code).path, "m.onnx", "SM8650", "strict", [])

    def test_node_kinds(self):
        pred = self.predict(report([fallback("fp", "constraint", "symmetric"), fallback("both", "no-rule"),
                                    fallback("gone_fp", "no-rule"), fallback("follower", "follows-cpu"),
                                    fallback("refused_gone", "dynamic-shape", "dynamic-shape")],
                                   diagnostics=[{"node": "fp", "code": "symmetric", "port": "in[1] weight",
                                                 "expected": "symmetric", "severity": "error"}]))
        self.assertEqual(pred["outcome"], "cpu-fallback")
        self.assertNotIn("follower", pred["refused"])
        self.assertIn("[in[1] weight: symmetric]", pred["refused"]["fp"]["message"])
        kinds = {r["node"]: r["kind"] for r in C.compare_case(CASE, pred)}
        self.assertEqual(kinds, {"ok": "agree", "fp": "FP", "fn": "FN", "both": "agree", "gone": "removed",
                                 "gone_fp": "FP", "unknown": "not-compared", "follower": "agree",
                                 "refused_gone": "agree", "ran_on_qnn": "agree"})
        t = C.totals([{"case": CASE, "pred": pred, "rows": C.compare_case(CASE, pred)}])
        self.assertEqual((t["nodes"], t["agree"], t["fp"], t["fn"], t["removed"], t["not_compared"], t["judged"]),
                         (8, 5, 2, 1, 1, 1, 7))
        self.assertEqual(t["graph_agree"], 1)

    def test_whole_graph_outcomes(self):
        self.assertEqual(self.predict(report([], kind="valid"), 0)["outcome"], "all-qnn")
        self.assertEqual(self.predict(report([fallback("x", "follows-cpu")], kind="valid"), 0)["outcome"], "all-qnn")
        sf = {"node": "conv", "op": "Conv", "message": "NHWC"}
        self.assertEqual(self.predict(report([], kind="session-failure", session_failure=sf))["outcome"],
                         "session-failure")
        self.assertEqual(self.predict(report([], kind="invalid", session_failure=sf))["outcome"], "session-failure")

    def test_unreadable_model(self):
        pred = self.predict({"error": {"kind": "graph", "code": "bad", "message": "scale is a missing initializer"}}, 2)
        self.assertEqual(pred["outcome"], "unread")
        self.assertEqual({r["kind"] for r in C.compare_case(CASE, pred)}, {"unread"})

    def test_crash_is_an_input_error(self):
        with self.assertRaises(C.InputError):
            self.predict({"no": "report"}, 139)

    def test_gate(self):
        exp = {"agree": 10, "graph_agree": 2, "fp": 1, "fn": 0, "unread": 0, "judged": 12, "graphs": 3}
        case = dict(CASE, nodes=[node("a"), node("b")], outcome="all-qnn")
        good = {"case": case, "pred": {"outcome": "all-qnn", "refused": {}}, "rows": C.compare_case(
            case, {"outcome": "all-qnn", "refused": {}})}
        problems, better = C.check({"strict": [good]}, {"strict": exp}, False)
        self.assertTrue(any("agree 2 (expected 10)" in p for p in problems))
        self.assertTrue(any("judged" in p for p in problems))
        exp2 = {"agree": 2, "graph_agree": 1, "fp": 1, "fn": 0, "unread": 0, "judged": 2, "graphs": 1}
        problems, better = C.check({"strict": [good]}, {"strict": exp2}, False)
        self.assertEqual(problems, [])
        self.assertEqual(better, ["strict: fp 0 (was 1)"])


if __name__ == "__main__":
    unittest.main()
