"""Compares qnnrules's per-node verdicts with the recorded oracle verdicts.

  python3 tools/conformance/compare.py --validate PATH/qnn-validate [--data tests/conformance/htp.json]
      [--rules OVERLAY_DIR] [--expect-disagreement CASE_ID] [--report out.json] [--onnx DIR]

Standard library only. For each SoC it writes one graph holding all recorded cases of that SoC
(graph_build.py), runs qnn-validate --format json on it, and calls a case rejected when a
diagnostic of severity error names its node. The graph is judged for the lowering path the oracle
took (--lowering ort-qnn: the encodings ONNX Runtime rewrites before QNN sees them). A disagreement fails the run unless the exceptions
file (tests/conformance/htp-exceptions.json: case id + reason) lists it; an exception that no
longer disagrees fails too, so the list cannot go stale. Cases the oracle could not ask about
(verdict not_asked) are not compared. Exit 0 when everything agrees, 1 otherwise, 2 on bad input.

With --onnx DIR the same comparison runs on the ONNX form of the cases in DIR (the models the
oracle itself was given, named <op>.<config>.<SoC>.onnx): qnn-validate reads each model, so the
ONNX reader and the rules' onnx keys are held to the recorded verdicts too.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from conformance import graph_build  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(path):
    with open(path) as f:
        return json.load(f)


def qnnrules_verdicts(validate, cases, rule_dirs=()):
    """{case id: ("rejected"|"accepted", [diagnostic codes])} from qnn-validate, one run per SoC."""
    by_soc = {}
    for c in cases:
        by_soc.setdefault(c["soc"], []).append(c)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for soc, group in sorted(by_soc.items()):
            path = os.path.join(tmp, f"{soc}.json")
            with open(path, "w") as f:
                json.dump(graph_build.graph(group, f"conformance_{soc}"), f)
            # The oracle is ONNX Runtime's QNN EP: judge the graph form as that path hands it to QNN.
            cmd = [validate, path, "--backend", "htp", "--soc", soc, "--format", "json", "--lowering", "ort-qnn"]
            for d in rule_dirs:
                cmd += ["--rules", d]
            env = dict(os.environ, QNNRULES_PATH="")
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if p.returncode not in (0, 1):
                raise RuntimeError(f"qnn-validate failed on {soc} (exit {p.returncode}):\n{p.stdout}\n{p.stderr}")
            report = json.loads(p.stdout)
            codes = {}
            for d in report["diagnostics"]:
                if d["severity"] == "error":
                    codes.setdefault(d["node"], []).append(d["code"])
            for c in group:
                k = graph_build.key(c)
                out[c["id"]] = ("rejected" if k in codes else "accepted", sorted(set(codes.get(k, []))))
    return out


def onnx_verdicts(validate, directory, rule_dirs=(), jobs=1):
    """{case id: (verdict, codes)} from qnn-validate on each <op>.<config>.<SoC>.onnx in directory
    (`jobs` runs at a time)."""
    def one(name):
        op, config, soc = name[: -len(".onnx")].rsplit(".", 2)
        cmd = [validate, os.path.join(directory, name), "--backend", "htp", "--soc", soc, "--format", "json",
               "--lowering", "ort-qnn"]
        for d in rule_dirs:
            cmd += ["--rules", d]
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, QNNRULES_PATH=""))
        if p.returncode not in (0, 1):
            raise RuntimeError(f"qnn-validate failed on {name} (exit {p.returncode}):\n{p.stdout}\n{p.stderr}")
        codes = sorted({d["code"] for d in json.loads(p.stdout)["diagnostics"] if d["severity"] == "error"})
        return f"{op}/{config}/{soc}", ("rejected" if codes else "accepted", codes)

    names = [n for n in sorted(os.listdir(directory)) if n.endswith(".onnx")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(pool.map(one, names))


def compare(data, exceptions, verdicts):
    """Returns (rows, problems): a row per compared case; problems are unexcepted disagreements
    and stale exceptions."""
    exc = {e["id"]: e["reason"] for e in exceptions}
    rows, problems = [], []
    for c in data["cases"]:
        if c["oracle"] == "not_asked":
            continue
        ours, codes = verdicts[c["id"]]
        agree = ours == c["oracle"]
        rows.append({"id": c["id"], "op": c["op"], "config": c["config"], "arch": c["arch"], "oracle": c["oracle"],
                     "qnnrules": ours, "codes": codes, "agree": agree, "exception": exc.get(c["id"])})
        if not agree and c["id"] not in exc:
            problems.append(f"{c['id']}: oracle {c['oracle']} ({c['message']}), qnnrules {ours} {codes}")
        if agree and c["id"] in exc:
            problems.append(f"{c['id']}: listed as an exception but qnnrules now agrees; remove the exception")
    known = {c["id"] for c in data["cases"]}
    problems += [f"{i}: exception for an unknown case" for i in exc if i not in known]
    return rows, problems


def main(argv=None):
    ap = argparse.ArgumentParser(description="compare qnnrules with the recorded HTP oracle verdicts")
    ap.add_argument("--validate", required=True, help="path of the qnn-validate executable")
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "conformance", "htp.json"))
    ap.add_argument("--exceptions", default=os.path.join(ROOT, "tests", "conformance", "htp-exceptions.json"))
    ap.add_argument("--rules", action="append", default=[], help="overlay rules directory")
    ap.add_argument("--expect-disagreement", action="append", default=[],
                    help="mutation check: pass only if these cases (and no others) disagree")
    ap.add_argument("--report", help="write the per-case rows here (JSON)")
    ap.add_argument("--onnx", help="compare the ONNX models of this directory instead of the graph forms")
    a = ap.parse_args(argv)
    try:
        data, exceptions = load(a.data), load(a.exceptions)["exceptions"]
    except (OSError, ValueError, KeyError) as e:
        print(f"error: cannot read the conformance data: {e}", file=sys.stderr)
        return 2
    try:
        if a.onnx:
            verdicts = onnx_verdicts(a.validate, a.onnx, a.rules)
            unknown = sorted(set(verdicts) - {c["id"] for c in data["cases"]})
            if unknown:
                raise RuntimeError(f"ONNX models of no recorded case: {', '.join(unknown)}")
            data = {"cases": [c for c in data["cases"] if c["id"] in verdicts]}
            exceptions = [e for e in exceptions if e["id"] in verdicts]
        else:
            verdicts = qnnrules_verdicts(a.validate, data["cases"], a.rules)
    except (OSError, RuntimeError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rows, problems = compare(data, exceptions, verdicts)
    agree = sum(r["agree"] for r in rows)
    print(f"{agree}/{len(rows)} cases agree ({100.0 * agree / max(1, len(rows)):.2f}%), "
          f"{sum(1 for r in rows if not r['agree'] and r['exception'])} disagreements excepted")
    if a.report:
        with open(a.report, "w") as f:
            json.dump(rows, f, indent=0)
    if a.expect_disagreement:
        flagged = sorted(p.split(":")[0] for p in problems)
        want = sorted(a.expect_disagreement)
        if flagged == want:
            print("mutation detected as expected:", ", ".join(flagged))
            return 0
        print(f"mutation check failed: expected disagreements {want}, got {flagged}", file=sys.stderr)
        return 1
    for p in problems:
        print("DISAGREE " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
