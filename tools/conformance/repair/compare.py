"""Checks and tables of the repair suite (tools/conformance/repair/run.py, ort.py).

Shared by the runs (which record) and tests/python/test_repair_oracle.py (which re-checks the
recorded data with today's rules): no torch and no onnxruntime here, only the qnnrules package
and PyYAML (the rules' structural kinds, through conformance.quantizer.compare).

check_case(case, engine) lists what is wrong with one repaired pt2e case, empty when it holds:
  - today's rules still need the recorded repair: the float graph annotated with the config
    alone has errors, and today's suggest_recipe gives the recorded override count and moves
    (else the oracle evidence is about another recipe: rerun run.py);
  - the float graph annotated with the config and the recorded recipe validates clean;
  - the converted graph (what the Quantizer made with the recipe) validates clean and every
    compute node is delegated (conformance.quantizer.compare.predict);
  - the backend ran it: outcome all-qnn, no graph finalize error, every compared FX compute
    node accepted by QNN (none refused, none at finalize).
check_ort(case, engine) does the same for the ONNX Runtime half (ort.py's record).
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DATA = os.path.join(ROOT, "tests", "conformance", "repair")
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # tools/
from conformance.quantizer import compare as QC  # noqa: E402


def load(path=os.path.join(DATA, "verdicts.json")):
    with open(path) as f:
        return json.load(f)


def read_graph(name, data=DATA):
    import qnnrules
    with gzip.open(os.path.join(data, "graphs", name), "rt") as f:
        d = json.load(f)
    return qnnrules.Graph.from_dict(d, d.get("name", name)), d


def moves(choices):
    """{"16a16w -> 16a8w": n, ...}: how many nodes each override kind moved."""
    out = {}
    for c in choices:
        k = f"{c['from']} -> {c['to']}"
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))


def repaired(case):
    """A case with a repair that reached the oracle (not `valid` as is, not a build failure)."""
    return "nodes" in case


def backend_ran_all(case):
    """The backend placed every compute node on QNN and graph finalize succeeded."""
    o = case["oracle"]
    return (o["outcome"] == "all-qnn" and not o["finalize_errors"] and not o["session_error"]
            and all(r["backend"] in ("accepted", "removed") for r in case["nodes"].values()))


def check_case(case, engine, structural, data=DATA, oracle_engine=None):
    """`engine` judges the float graph as the Quantizer does (the pt2e graph's own lowering);
    `oracle_engine` (default: `engine`) the converted graph, for the oracle's path (ONNX Runtime's
    QNN EP: conformance.quantizer.compare.engine where it exists)."""
    problems = []
    graph, _ = read_graph(case["float_graph"], data)
    base = engine.check(engine.annotate(graph, case["config"])).errors
    if not base:
        problems.append("today's rules take the config without a repair")
    fix = engine.suggest_recipe(graph, case["config"])
    got = {"overrides": len(fix.choices), "moves": moves(fix.choices), "on_cpu": len(fix.on_cpu)}
    want = {k: case["suggestion"][k] for k in ("overrides", "moves")}
    want["on_cpu"] = len(case["suggestion"]["on_cpu"])
    if got != want:
        problems.append(f"today's suggestion {got} differs from the recorded {want}: rerun conformance.repair.run")
    errors = engine.check(engine.annotate(graph, case["config"], recipe=os.path.join(data, "recipes", case["recipe"])))
    if errors.errors:
        problems.append(f"the float graph with the recorded recipe has {len(errors.errors)} error(s), first: "
                        f"{str(errors.errors[0]).strip()[:200]}")
    converted, d = read_graph(case["graph"], data)
    judge = oracle_engine or engine
    if judge.check(converted).errors:
        problems.append("the converted graph has errors with today's rules")
    ours, summary = QC.predict(judge, d, structural)
    if summary.get("session_failure"):
        problems.append(f"today's rules predict a session failure of the converted graph: {summary['session_failure']}")
    refused = sorted(n for n, v in ours.items() if v["ours"] != "delegated")
    if refused:
        problems.append(f"today's rules refuse {len(refused)} node(s) of the converted graph: {refused[:5]}")
    if not backend_ran_all(case):
        bad = sorted(n for n, r in case["nodes"].items() if r["backend"] not in ("accepted", "removed"))
        problems.append(f"the backend did not run it all: {case['oracle']['outcome']}, "
                        f"{case['oracle']['finalize_errors'][:1]}, nodes {bad[:5]}")
    return problems


def check_ort(case, engine, data=DATA):
    """The ONNX Runtime half: today's --suggest-overrides on the float ONNX model gives the
    recorded overrides, and the re-quantized model ran on QNN whole."""
    import qnnrules
    problems = []
    graph = qnnrules.Graph.from_file(os.path.join(data, "onnx", case["float_model"]))
    fix = engine.suggest_recipe(graph, case["config"])
    ov = engine.ort_overrides(graph, fix)
    with open(os.path.join(data, "overrides", case["overrides"])) as f:
        recorded = json.load(f)
    if ov.overrides != recorded:
        problems.append("today's overrides differ from the recorded ones: rerun conformance.repair.ort")
    if ov.unexpressed:
        problems.append(f"today's repair has parts the overrides cannot carry: {ov.unexpressed[:3]}")
    for key in ("base", "repaired"):
        if key not in case:
            problems.append(f"no {key} oracle run recorded")
    if case.get("base", {}).get("outcome") == "all-qnn":
        problems.append("the unrepaired ORT quantization ran on QNN: nothing was repaired")
    r = case.get("repaired", {})
    if r.get("outcome") != "all-qnn" or r.get("finalize_errors") or r.get("session_error") or r.get("not_on_qnn"):
        problems.append(f"the re-quantized model did not run on QNN whole: {r}")
    return problems


# --- the tables of docs/repair-recipes.md -----------------------------------------------------

OUTCOME = {"all-qnn": "Q", "cpu-fallback": "C", "session-failure": "F"}


def tables(data, ort=None):
    cases = data["cases"]
    rows = ["| model | config | SoC | nodes the config fails | overrides | moves | backend | compute nodes on QNN |",
            "|---|---|---|---|---|---|---|---|"]
    for c in sorted(cases, key=lambda c: (c["soc"], c["config"], c["model"])):
        if c.get("valid"):
            continue
        s = c.get("suggestion", {})
        mv = ", ".join(f"{k} {v}" for k, v in s.get("moves", {}).items())
        if c.get("build_error"):
            out, on = f"build failed: `{c['build_error'][:80]}`", ""
        elif not repaired(c):
            out, on = "not run", ""
        else:
            t = c["totals"]
            out = OUTCOME[c["oracle"]["outcome"]] + (" (" + c["oracle"]["finalize_errors"][0][:80] + ")"
                                                     if c["oracle"]["finalize_errors"] else "")
            on = f"{sum(r['backend'] == 'accepted' for r in c['nodes'].values())}/{t['nodes']}"
        rows.append(f"| {c['model']} | {c['config']} | {c['soc']} | {c['base_error_nodes']} | {s.get('overrides')} | "
                    f"{mv} | {out} | {on} |")
    valid = sorted({f"{c['config']} on {c['soc']}" for c in cases if c.get("valid")})
    ok = [c for c in cases if repaired(c) and backend_ran_all(c)]
    out = ["## Repaired pt2e graphs on the backend", "",
           f"{len(ok)} of {sum(repaired(c) for c in cases)} repaired graphs ran whole on QNN "
           f"({len({c['model'] for c in ok})} models, SoCs {', '.join(sorted({c['soc'] for c in ok}))}). "
           "Backend: Q all compute nodes on QNN with graph finalize, C CPU fallback, F session failure.", ""]
    out += rows
    if valid:
        out += ["", "Taken as they are (no repair needed): " + ", ".join(valid) + "."]
    if ort:
        out += ["", "## ONNX Runtime overrides on the backend", "",
                "| float model | config | SoC | overrides | unrepaired ORT quantization | re-quantized with the overrides |",
                "|---|---|---|---|---|---|"]
        for c in ort["cases"]:
            b, r = c.get("base", {}), c.get("repaired", {})
            out.append(f"| {c['model']} | {c['config']} | {c['soc']} | {c['override_count']} | "
                       f"{OUTCOME.get(b.get('outcome'), '?')} ({b.get('not_on_qnn', '?')} nodes not on QNN) | "
                       f"{OUTCOME.get(r.get('outcome'), '?')} ({r.get('on_qnn', '?')}/{r.get('compute_nodes', '?')} "
                       f"compute nodes on QNN) |")
    v = data.get("versions", {})
    out += ["", "Versions: " + ", ".join(f"{k} {v[k]}" for k in sorted(v)) + "."]
    return "\n".join(out) + "\n"


def write_doc(path, data, ort=None):
    return QC.splice_tables(path, tables(data, ort))


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description="Prints (or writes into the doc) the tables of the repair suite.")
    ap.add_argument("--write-doc", nargs="?", const=os.path.join(ROOT, "docs", "repair-recipes.md"))
    a = ap.parse_args(argv)
    data = load()
    ort_path = os.path.join(DATA, "ort.json")
    ort = load(ort_path) if os.path.exists(ort_path) else None
    if a.write_doc:
        write_doc(a.write_doc, data, ort)
    else:
        sys.stdout.write(tables(data, ort))


if __name__ == "__main__":
    main()
