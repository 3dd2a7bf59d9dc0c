"""The Quantizer suite's exported ONNX models through qnn-validate's ONNX reader, against the backend.

The suite (run.py, verdicts.json) judges the converted FX graph; the backend ran the ONNX model
torch.onnx exported from it (tests/conformance/quantizer/onnx/*.onnx). This reads that ONNX file
as a user would (`qnn-validate MODEL.onnx --backend htp --soc SOC --lowering ort-qnn --format
json`, strict) and compares its delegation with the backend's recorded verdicts:

- per FX compute node of the case (verdicts.json `nodes`: the backend's state over the ONNX nodes
  exported from it): ours is `refused` when the report lists any of those ONNX nodes as a
  fallback for a reason other than `follows-cpu`, `aside` when it sets every one aside (constant,
  dead or no-op: nothing to judge), else `delegated`; the kind is compare.node_kind's (FP: we
  refuse, the backend ran it; FN: we delegate, the backend refused it; a graph-finalize failure
  agrees when the report predicts it);
- the ONNX compute nodes that map to no FX compute node (`unmapped_onnx_nodes`) likewise, one by
  one;
- the whole graph: the report's outcome (session failure, CPU fallback, all on QNN) against the
  backend's.

  python3 tools/conformance/quantizer/onnx_reader.py --validate build/tools/qnn-validate/qnn-validate [--write]

prints the totals and every disagreement; --write records them in
tests/conformance/quantizer/onnx_reader.json, which tests/python/test_quantizer_onnx_reader.py
holds today's reader to (no FN, no FP that was not recorded, totals no worse).
No torch, no oracle: only the recorded data and the CLI (about 5 seconds for 96 cases).
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DATA = os.path.join(ROOT, "tests", "conformance", "quantizer")
RECORD = os.path.join(DATA, "onnx_reader.json")
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # tools/
from conformance.quantizer.compare import REFUSED, fails_at_finalize, node_kind  # noqa: E402


def report(exe, path, soc):
    """qnn-validate's JSON report of one ONNX model for the oracle's path (strict, no overlays)."""
    env = dict(os.environ, QNNRULES_PATH="")
    p = subprocess.run([exe, path, "--backend", "htp", "--soc", soc, "--lowering", "ort-qnn", "--format", "json"],
                       capture_output=True, text=True, env=env, check=False)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"qnn-validate {path} --soc {soc} exited {p.returncode}: {p.stderr[-600:]}")
    return json.loads(p.stdout)


def verdicts(rep):
    """{ONNX node: "refused" | "delegated" | "aside"} and {ONNX node: fallback} of one report."""
    d = rep["delegation"]
    out = {}
    for p in d["partitions"]:
        for n in p["nodes"]:
            out[n] = "delegated"
    fallbacks = {f["node"]: f for f in d["fallbacks"]}
    for n, f in fallbacks.items():
        out[n] = "delegated" if f["reason"] == "follows-cpu" else "refused"
    for n in d["constant_nodes"] + d["dead_nodes"] + d["noop_nodes"]:
        out[n] = "aside"
    return out, fallbacks


def ours_of(names, ours):
    states = [ours.get(n) for n in names]
    if "refused" in states:
        return "refused"
    if "delegated" in states:
        return "delegated"
    if states and all(s == "aside" for s in states):
        return "aside"
    return None  # the reader does not see the node (folded Q/DQ, or missing)


def outcome(rep, ours):
    if rep["delegation"].get("session_failure"):
        return "session-failure"
    return "cpu-fallback" if "refused" in ours.values() else "all-qnn"


def compare_case(case, rep):
    """(rows [{node, onnx, target, ours, backend, kind, code, message}], our outcome)."""
    ours, fallbacks = verdicts(rep)
    finalize = fails_at_finalize(rep["delegation"].get("session_failure"))
    rows = []

    def row(name, onnx, target, backend):
        o = ours_of(onnx, ours)
        if o == "aside" or o is None:
            kind = "aside" if o == "aside" else "unseen"
        else:
            kind = node_kind(o, backend, finalize)
        f = next((fallbacks[x] for x in onnx if ours.get(x) == "refused"), None)
        rows.append({"node": name, "onnx": onnx, "target": target, "ours": o, "backend": backend, "kind": kind,
                     "code": f.get("code") if f else None, "message": f["message"][:200] if f else None})

    for name, r in sorted(case["nodes"].items()):
        row(name, r["onnx"], r["target"], r["backend"])
    for u in case.get("unmapped_onnx_nodes", []):
        row(u["name"], [u["name"]], "onnx::" + u["op"], u["backend"])
    return rows, outcome(rep, ours)


def graph_agrees(ours, backend):
    return ours == backend or (ours == "cpu-fallback" and backend == "session-failure")


def run(exe, cases):
    """{case id: {"totals", "outcome", "oracle_outcome", "graph_agrees", "disagreements"}}."""
    out = {}
    reports = {}
    for c in cases:
        key = (c["file"], c["soc"])
        if key not in reports:
            reports[key] = report(exe, os.path.join(DATA, "onnx", c["file"]), c["soc"])
        rows, ours = compare_case(c, reports[key])
        t = collections.Counter(r["kind"] for r in rows)
        t["nodes"] = t["agree"] + t["FP"] + t["FN"]
        out[c["id"]] = {
            "file": c["file"], "soc": c["soc"],
            "totals": {k: t[k] for k in ("nodes", "agree", "FP", "FN", "removed", "not-compared", "aside", "unseen")},
            "outcome": ours, "oracle_outcome": c["oracle"]["outcome"],
            "graph_agrees": graph_agrees(ours, c["oracle"]["outcome"]),
            "disagreements": [{k: r[k] for k in ("node", "kind", "target", "onnx", "code", "message", "backend")}
                              for r in rows if r["kind"] in ("FP", "FN")],
        }
    return out


def summary(result):
    t = collections.Counter()
    for r in result.values():
        t.update(r["totals"])
        t["graphs"] += 1
        t["graph_agree"] += r["graph_agrees"]
    return dict(t)


def classes(result):
    """Disagreements by (kind, op, code, message with numbers kept): {class: [case ids]}."""
    out = collections.defaultdict(list)
    for cid, r in result.items():
        for d in r["disagreements"]:
            out[(d["kind"], d["target"], d["code"] or "", (d["message"] or "")[:120])].append(f"{cid}:{d['node']}")
    return out


def load_cases():
    with open(os.path.join(DATA, "verdicts.json")) as f:
        return [c for c in json.load(f)["cases"] if "nodes" in c]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--validate", required=True, help="the qnn-validate executable")
    ap.add_argument("--write", action="store_true", help=f"record the result in {os.path.relpath(RECORD, ROOT)}")
    a = ap.parse_args(argv)
    result = run(a.validate, load_cases())
    s = summary(result)
    print(f"{s['graphs']} cases, {s['nodes']} FX compute nodes compared: {s['agree']} agree, "
          f"FP {s['FP']}, FN {s['FN']}; {s['aside']} set aside as constants; whole graph "
          f"{s['graph_agree']}/{s['graphs']}")
    for (kind, op, code, msg), where in sorted(classes(result).items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(where):4d} {kind} {op} {code}: {msg}  e.g. {where[0]}")
    if a.write:
        with open(RECORD, "w") as f:
            json.dump({"command": "python3 tools/conformance/quantizer/onnx_reader.py --validate "
                                  "build/tools/qnn-validate/qnn-validate --write",
                       "totals": s, "cases": result}, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
