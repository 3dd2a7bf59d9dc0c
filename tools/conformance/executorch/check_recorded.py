"""Re-checks the recorded ExecuTorch comparison against the current rules (CTest
conformance_executorch; standard library only, no venv, seconds).

    /usr/bin/python3 tools/conformance/executorch/check_recorded.py --qnn-validate build/tools/qnn-validate/qnn-validate

For every recorded case (tests/conformance/executorch/cases/MODEL.CONFIG.json, ExecuTorch's
annotation as graph format v1):
1. qnn-validate (the recorded backend and SoC, strict, JSON) on ExecuTorch's annotation must give exactly the
   diagnostic groups recorded in summary.json for that model and config;
2. qnn-validate --annotate with the matching config on the same graph without annotations must
   give an annotation whose port differences from ExecuTorch's are exactly the recorded classes;
3. every recorded diagnostic group and difference class (all models) must have a verdict in
   decisions.json, and none may be "qnnrules-bug" without being listed in the doc as such
   (the check is that nothing is "unclassified").
A rule change that adds, removes or moves a diagnostic, or changes what the annotator writes,
fails this test until the data is regenerated with run.py and the new verdicts are written.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)

import graphdiff  # noqa: E402
import report  # noqa: E402


def qnn_validate(exe, graph_path, recorded, extra):
    cmd = [exe, graph_path, "--backend", recorded.get("backend", "htp"), "--soc", recorded.get("soc", "SM8650"),
           "--format", "json"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def diff_maps(what, recorded, now):
    problems = []
    for key in sorted(set(recorded) | set(now)):
        if recorded.get(key) != now.get(key):
            problems.append(f"  {what}: {key}: recorded {recorded.get(key, 0)}, now {now.get(key, 0)}")
    return problems


def check_case(exe, rules_dir, data, case_file, summary, tmp):
    model, config = os.path.basename(case_file)[:-len(".json")].split(".", 1)
    recorded = summary["results"][model][config]
    with open(case_file) as f:
        et_graph = json.load(f)
    rules = ["--rules", rules_dir] if rules_dir else []
    problems = []
    out = qnn_validate(exe, case_file, recorded, rules)
    problems += diff_maps("diagnostic", recorded["diagnostics"], graphdiff.diagnostic_groups(out["diagnostics"]))

    float_path = os.path.join(tmp, f"{model}.{config}.float.json")
    annotated_path = os.path.join(tmp, f"{model}.{config}.qnnrules.json")
    with open(float_path, "w") as f:
        json.dump(graphdiff.strip_annotations(et_graph), f)
    qnn_validate(exe, float_path, recorded, rules + ["--warn", "--annotate", recorded["qnnrules_config"], "--output", annotated_path])
    with open(annotated_path) as f:
        qn_graph = json.load(f)
    problems += diff_maps("difference", recorded["differences"], graphdiff.compare(et_graph, qn_graph))
    return [f"{model} {config}:"] + problems if problems else []


def unclassified(summary, decisions):
    problems = []
    for key in report.aggregate(summary, "diagnostics"):
        if report.decide(decisions["diagnostics"], report.parse_diag(key))[1]["verdict"] == "unclassified":
            problems.append(f"  diagnostic group without a verdict: {key}")
    for key in report.aggregate(summary, "differences"):
        if report.decide(decisions["differences"], report.parse_diff(key))[1]["verdict"] == "unclassified":
            problems.append(f"  difference class without a verdict: {key}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qnn-validate", required=True, help="path of the qnn-validate executable")
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "conformance", "executorch"))
    ap.add_argument("--rules", default=None, help="an overlay rule directory (the mutation test uses one)")
    a = ap.parse_args()
    summary = report.load(os.path.join(a.data, "summary.json"))
    decisions = report.load(os.path.join(a.data, "decisions.json"))
    cases_dir = os.path.join(a.data, "cases")
    cases = sorted(os.path.join(cases_dir, f) for f in os.listdir(cases_dir) if f.endswith(".json"))
    if not cases:
        print(f"no recorded cases in {cases_dir}", file=sys.stderr)
        return 2
    problems = unclassified(summary, decisions)
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            problems += check_case(a.qnn_validate, a.rules, a.data, case, summary, tmp)
    if problems:
        print("recorded ExecuTorch comparison no longer holds (regenerate with run.py and review):")
        print("\n".join(problems))
        return 1
    print(f"{len(cases)} recorded cases agree with the current rules; every recorded group has a verdict")
    return 0


if __name__ == "__main__":
    sys.exit(main())
