#!/usr/bin/env python3
"""Checks qnn-validate's machine-readable reports against their contracts.

- Every golden JSON report (tests/golden/expected/*.json) and the live JSON report of every
  example, on each backend and in warn mode, validates against docs/schemas/report.schema.json,
  and its top-level keys come out in the order the schema lists them.
- An error report (unknown SoC) validates against the same schema.
- Every golden SARIF log (tests/golden/expected/*.sarif) and the live SARIF of every
  example validates against the official SARIF 2.1.0 schema (tests/data/sarif/, vendored).
- Every SARIF log carries its invocation: runs that stop (unknown SoC, missing file, usage
  errors, a bad --baseline) say executionSuccessful false, exit code 2 and the error; others
  their exit code.
- --baseline with a JSON and a SARIF baseline: one new finding reported and failing, the
  others unchanged, one absent.
- Known-bad documents are rejected, so neither schema check is vacuous.

Usage: check_reports.py QNN_VALIDATE. Debian's python3 (python3-jsonschema). Exit 1 on failure.
"""
import copy
import glob
import json
import os
import subprocess
import sys

import jsonschema

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXPECTED = os.path.join(ROOT, "tests", "golden", "expected")


def load(path):
    with open(path) as f:
        return json.load(f)


def run(exe, *args):
    env = dict(os.environ, QNNRULES_PATH="", NO_COLOR="1")
    p = subprocess.run([exe, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout


def from_golden(text):
    """A golden (GoldenReportTest) as the document: its standard output only (a stopped run's
    golden adds its standard error after a "--- stderr" line), placeholders back to values of
    the right shape."""
    text = text.split("\n--- stderr\n", 1)[0]
    return json.loads(text.replace('"DIGEST"', '"fnv1a64:0000000000000000"').replace('"VERSION"', '"0.0.0"'))


def check_baseline(exe, check_report, check_sarif):
    import tempfile
    failures = []
    graph = ["examples/violations.json", "--soc", "SM8650"]
    _, out = run(exe, *graph, "--format", "json")
    full = json.loads(out)
    diags = full["diagnostics"]
    old = copy.deepcopy(full)
    new_finding = old["diagnostics"].pop(1)   # not in the baseline: new now
    gone = dict(diags[0], node="removed_node", message="a finding of a node the model no longer has")
    old["diagnostics"].append(gone)           # in the baseline only: absent now
    _, sarif_out = run(exe, *graph, "--format", "sarif")
    old_sarif = json.loads(sarif_out)
    results = old_sarif["runs"][0]["results"]
    del results[1]
    results.append(dict(copy.deepcopy(results[0]), properties=dict(results[0]["properties"], node="removed_node")))
    ident = lambda d: (d["code"], d["node"], d["port"], d["rule"])
    with tempfile.TemporaryDirectory() as tmp:
        for kind, doc in (("json", old), ("sarif", old_sarif)):
            base = os.path.join(tmp, "baseline." + kind)
            with open(base, "w") as f:
                json.dump(doc, f)
            rc, out = run(exe, *graph, "--baseline", base, "--format", "json")
            report = json.loads(out)
            check_report(f"baseline ({kind}): json", report)
            got = [ident(d) for d in report["diagnostics"]]
            if rc != 1 or got != [ident(new_finding)]:
                failures.append(f"baseline ({kind}): exit {rc}, findings {got}; expected exit 1 and {ident(new_finding)}")
            b = report.get("baseline", {})
            if len(b.get("unchanged", [])) != len(diags) - 1 or [a["node"] for a in b.get("absent", [])] != ["removed_node"]:
                failures.append(f"baseline ({kind}): unchanged {len(b.get('unchanged', []))}, absent {b.get('absent')}")
            rc, out = run(exe, *graph, "--baseline", base, "--format", "sarif")
            log = json.loads(out)
            check_sarif(f"baseline ({kind}): sarif", log)
            states = [r.get("baselineState") for r in log["runs"][0]["results"]]
            want = ["new"] + ["unchanged"] * (len(diags) - 1) + ["absent"]
            if rc != 1 or states != want:
                failures.append(f"baseline ({kind}): sarif exit {rc}, baselineState {states}, expected {want}")
            rc, out = run(exe, *graph, "--baseline", base)
            if rc != 1 or f"baseline {base}: {len(diags) - 1} finding(s) unchanged (not shown), 1 absent" not in out:
                failures.append(f"baseline ({kind}): text exit {rc}:\n{out}")
        # Nothing new: strict mode passes.
        same = os.path.join(tmp, "same.json")
        with open(same, "w") as f:
            json.dump(full, f)
        rc, out = run(exe, *graph, "--baseline", same, "--format", "json")
        if rc != 0 or json.loads(out)["diagnostics"]:
            failures.append(f"baseline equal to the run: exit {rc}, expected 0 and no finding")
    return failures


def main():
    exe = sys.argv[1]
    failures = []
    report_schema = load(os.path.join(ROOT, "docs", "schemas", "report.schema.json"))
    jsonschema.Draft202012Validator.check_schema(report_schema)
    report = jsonschema.Draft202012Validator(report_schema)
    sarif_schema = load(os.path.join(ROOT, "tests", "data", "sarif", "sarif-schema-2.1.0.json"))
    sarif = jsonschema.Draft4Validator(sarif_schema)
    order = list(report_schema["$defs"]["runReport"]["properties"])

    def check_report(name, doc):
        for err in report.iter_errors(doc):
            failures.append(f"{name}: /{'/'.join(map(str, err.absolute_path))}: {err.message[:300]}")
        if "error" not in doc:
            keys = [k for k in doc]
            if keys != [k for k in order if k in doc]:
                failures.append(f"{name}: keys out of order: {keys}")

    def check_sarif(name, doc):
        for err in sarif.iter_errors(doc):
            failures.append(f"{name}: /{'/'.join(map(str, err.absolute_path))}: {err.message[:300]}")
        results = doc["runs"][0]["results"]
        rules = doc["runs"][0]["tool"]["driver"]["rules"]
        for r in results:
            if rules[r["ruleIndex"]]["id"] != r["ruleId"]:
                failures.append(f"{name}: result ruleIndex does not name its ruleId {r['ruleId']}")

    checked = 0
    goldens = sorted(glob.glob(os.path.join(EXPECTED, "*.json")))
    sarifs = sorted(glob.glob(os.path.join(EXPECTED, "*.sarif")))
    if not goldens or not sarifs:
        failures.append("no golden JSON or SARIF reports found in tests/golden/expected")
    for path in goldens:
        with open(path) as f:
            check_report(os.path.relpath(path, ROOT), from_golden(f.read()))
        checked += 1
    for path in sarifs:
        with open(path) as f:
            check_sarif(os.path.relpath(path, ROOT), from_golden(f.read()))
        checked += 1

    examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))
    runs = [("--soc", "SM8650"), ("--soc", "SM8650", "--warn"), ("--soc", "SM8850", "--backend", "lpai"),
            ("--soc", "SM8650", "--backend", "gpu")]
    for ex in examples:
        rel = os.path.relpath(ex, ROOT)
        for args in runs:
            rc, out = run(exe, rel, *args, "--format", "json")
            if rc not in (0, 1):
                failures.append(f"{rel} {' '.join(args)}: exit {rc}")
                continue
            check_report(f"{rel} {' '.join(args)} (json)", json.loads(out))
            rc, out = run(exe, rel, *args, "--format", "sarif")
            check_sarif(f"{rel} {' '.join(args)} (sarif)", json.loads(out))
            checked += 2

    rc, out = run(exe, "examples/tiny_cnn_8a8w.json", "--soc", "SM1234", "--format", "json")
    if rc != 2:
        failures.append(f"unknown SoC: exit {rc}, expected 2")
    check_report("error report (unknown SoC)", json.loads(out))
    rc, out = run(exe, "examples/tiny_cnn_8a8w.json", "--soc", "SM1234", "--format", "sarif")
    check_sarif("error report (unknown SoC, sarif)", json.loads(out))

    # Every SARIF log says how the run ended (invocations): a stopped run is not a clean one.
    def check_invocation(name, doc, rc, successful):
        inv = (doc["runs"][0].get("invocations") or [{}])[0]
        if inv.get("executionSuccessful") is not successful or inv.get("exitCode") != rc:
            failures.append(f"{name}: invocation {inv}, expected executionSuccessful {successful}, exitCode {rc}")
        notes = inv.get("toolExecutionNotifications", [])
        if successful == bool(notes) or any(n.get("level") != "error" or not n["message"]["text"] for n in notes):
            failures.append(f"{name}: toolExecutionNotifications {notes}")

    stopped = [("unknown SoC", ["examples/tiny_cnn_8a8w.json", "--soc", "SM1234"], "SM1234"),
               ("missing file", ["examples/no_such_graph.json", "--soc", "SM8650"], "no_such_graph.json"),
               ("unknown flag", ["examples/tiny_cnn_8a8w.json", "--frobnicate"], "frobnicate"),
               ("no graph", ["--soc", "SM8650"], "graph file is required"),
               ("bad baseline", ["examples/tiny_cnn_8a8w.json", "--baseline", "examples/violations.json"],
                "neither a qnn-validate JSON report")]
    for name, args, says in stopped:
        rc, out = run(exe, *args, "--format", "sarif")
        doc = json.loads(out) if out.strip() else {"runs": [{}]}
        check_sarif(f"{name} (sarif)", doc) if out.strip() else failures.append(f"{name}: no SARIF on stdout")
        check_invocation(f"{name} (sarif)", doc, 2, False)
        if rc != 2:
            failures.append(f"{name}: exit {rc}, expected 2")
        inv = (doc["runs"][0].get("invocations") or [{}])[0]
        if says not in json.dumps(inv.get("toolExecutionNotifications", [])):
            failures.append(f"{name}: the notification does not say '{says}': {inv}")
        checked += 1
    for args, want in [(("examples/tiny_cnn_8a8w.json", "--soc", "SM8650"), 0),
                       (("examples/violations.json", "--soc", "SM8650"), 1),
                       (("examples/violations.json", "--soc", "SM8650", "--warn"), 0)]:
        rc, out = run(exe, *args, "--format", "sarif")
        check_invocation(" ".join(args), json.loads(out), rc, True)
        if rc != want:
            failures.append(f"{' '.join(args)}: exit {rc}, expected {want}")
        checked += 1

    # --baseline: an earlier report with one finding fewer (so that one is new now) and one
    # finding the model no longer has. JSON and SARIF baselines give the same verdict.
    failures.extend(check_baseline(exe, check_report, check_sarif))
    checked += 1

    # Not vacuous: a report missing its verdict, an unknown key, a bad SARIF level are rejected.
    rc, out = run(exe, "examples/violations.json", "--soc", "SM8650", "--format", "json")
    good = json.loads(out)
    bad_reports = [copy.deepcopy(good) for _ in range(3)]
    del bad_reports[0]["verdict"]
    bad_reports[1]["unexpected"] = 1
    bad_reports[2]["diagnostics"][0]["severity"] = "fatal"
    for i, doc in enumerate(bad_reports):
        if report.is_valid(doc):
            failures.append(f"report schema accepts bad report #{i}")
    rc, out = run(exe, "examples/violations.json", "--soc", "SM8650", "--format", "sarif")
    bad_sarif = json.loads(out)
    bad_sarif["runs"][0]["results"][0]["level"] = "fatal"
    if sarif.is_valid(bad_sarif):
        failures.append("SARIF schema accepts a result with level 'fatal'")

    for f in failures:
        print(f)
    print(f"check_reports: {checked} reports checked, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
