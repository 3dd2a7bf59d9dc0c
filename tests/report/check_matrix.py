#!/usr/bin/env python3
"""Checks the compatibility matrix's JSON (qnn-validate --soc all --configs all --format json)
against its contract, docs/schemas/matrix.schema.json (docs/compatibility-matrix.md).

- The golden matrix of tests/unit/MatrixHtmlTest.cpp (tests/golden/matrix/mixed.json) and live
  matrices validate: the annotation test graph and the model suite's llama exported float
  (tests/data/matrix/llama.float.json), strict and warn, on HTP, LPAI and GPU; keys come out in
  the order the schema lists them, at the top and in every cell.
- What the schema cannot say holds too: the cells are socs x configs, row-major; a cell's
  diagnostics_of names a SoC of the same hardware whose cell (same config) holds diagnostics;
  one validation per such holder; a holder's error and warning counts are its diagnostics'.
- Planted wrong documents are rejected (no kind, an unknown verdict, a cell with both or
  neither of diagnostics and diagnostics_of, an unknown key, a share over 100), so the check
  is not vacuous.

Usage: check_matrix.py QNN_VALIDATE. Debian's python3 (python3-jsonschema). Exit 1 on failure.
"""
import copy
import json
import os
import subprocess
import sys

import jsonschema

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMAS = os.path.join(ROOT, "docs", "schemas")


def load(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        return json.load(f)


def validator():
    report, matrix = load("report.schema.json"), load("matrix.schema.json")
    jsonschema.Draft202012Validator.check_schema(matrix)
    # matrix.schema.json borrows the report's diagnostics, counts and version by relative $ref.
    resolver = jsonschema.RefResolver.from_schema(matrix, store={report["$id"]: report})
    return matrix, jsonschema.Draft202012Validator(matrix, resolver=resolver)


def run(exe, *args):
    env = dict(os.environ, QNNRULES_PATH="", NO_COLOR="1")
    p = subprocess.run([exe, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def consistency(doc):
    """What the schema cannot say; a list of problems."""
    problems = []
    socs, configs, cells = doc["socs"], doc["configs"], doc["cells"]
    if len(cells) != len(socs) * len(configs):
        return [f"{len(cells)} cells for {len(socs)} SoCs x {len(configs)} configs"]
    at = {}
    for i, cell in enumerate(cells):
        want = (socs[i // len(configs)], configs[i % len(configs)])
        if (cell["soc"], cell["config"]) != want:
            problems.append(f"cell {i} is {cell['soc']}/{cell['config']}, expected {want[0]}/{want[1]}")
        at[(cell["soc"], cell["config"])] = cell
    holders = 0
    for cell in cells:
        if "diagnostics" in cell:
            holders += 1
            diags = cell["diagnostics"]
            for sev, key in (("error", "errors"), ("warning", "warnings")):
                n = sum(1 for d in diags if d["severity"] == sev)
                if n != cell[key]:
                    problems.append(f"{cell['soc']}/{cell['config']}: {key} {cell[key]}, its diagnostics have {n}")
            continue
        holder = at.get((cell["diagnostics_of"], cell["config"]))
        if holder is None or "diagnostics" not in holder:
            problems.append(f"{cell['soc']}/{cell['config']}: diagnostics_of {cell['diagnostics_of']} holds none")
            continue
        if holder["hardware"] != cell["hardware"]:
            problems.append(f"{cell['soc']}/{cell['config']}: shares {holder['soc']}'s validation on other hardware")
        same = {k: v for k, v in cell.items() if k not in ("soc", "diagnostics_of")}
        if same != {k: v for k, v in holder.items() if k not in ("soc", "diagnostics")}:
            problems.append(f"{cell['soc']}/{cell['config']}: differs from {holder['soc']}, whose validation it shares")
    if holders != doc["validations"]:
        problems.append(f"{holders} cells hold diagnostics, {doc['validations']} validations")
    return problems


def main():
    exe = sys.argv[1]
    schema, matrix = validator()
    failures, checked = [], 0
    top = list(schema["properties"])
    cell_keys = list(schema["$defs"]["cell"]["properties"])

    def check(name, doc):
        for err in matrix.iter_errors(doc):
            failures.append(f"{name}: /{'/'.join(map(str, err.absolute_path))}: {err.message[:300]}")
        if list(doc) != [k for k in top if k in doc]:
            failures.append(f"{name}: keys out of order: {list(doc)}")
        for cell in doc.get("cells", []):
            if list(cell) != [k for k in cell_keys if k in cell]:
                failures.append(f"{name}: cell keys out of order: {list(cell)}")
                break
        failures.extend(f"{name}: {p}" for p in consistency(doc))

    # The golden of MatrixHtmlTest (its version written VERSION).
    golden = os.path.join(ROOT, "tests", "golden", "matrix", "mixed.json")
    with open(golden) as f:
        check("tests/golden/matrix/mixed.json", json.loads(f.read().replace('"VERSION"', '"0.0.0"')))
    checked += 1

    graphs = ["tests/data/annotate/mixed.json", "tests/data/matrix/llama.float.json"]
    runs = [("--soc", "all", "--configs", "all"), ("--soc", "all", "--configs", "all", "--warn"),
            ("--backend", "lpai", "--soc", "SM8850,SAR2230P", "--configs", "8a8w", "16a8w"),
            ("--backend", "gpu", "--soc", "SM8650,SM8750", "--configs", "all", "--warn"),
            ("--soc", "SM8350,SM8650", "--configs", "8a8w:per_tensor", "16a4w_block")]
    kept = None
    for graph in graphs:
        for args in runs:
            name = f"{graph} {' '.join(args)}"
            rc, out, err = run(exe, graph, *args, "--format", "json")
            if rc not in (0, 1):
                failures.append(f"{name}: exit {rc}: {err[:500]}")
                continue
            doc = json.loads(out)
            check(name, doc)
            checked += 1
            if kept is None and any("diagnostics_of" in c for c in doc["cells"]) and \
                    any(c["diagnostics"] for c in doc["cells"] if "diagnostics" in c):
                kept = doc
    if kept is None:
        failures.append("no run gave a matrix with a shared cell and diagnostics")
        kept = {"cells": [{}]}

    # Not vacuous: planted wrong documents are rejected.
    holder = next(i for i, c in enumerate(kept["cells"]) if c.get("diagnostics"))
    shared = next(i for i, c in enumerate(kept["cells"]) if "diagnostics_of" in c)
    bad = {}
    bad["no kind"] = copy.deepcopy(kept)
    bad["no kind"].pop("kind", None)
    bad["another kind"] = dict(copy.deepcopy(kept), kind="report")
    bad["unknown verdict"] = copy.deepcopy(kept)
    bad["unknown verdict"]["cells"][0]["verdict"] = "probably"
    bad["both diagnostics and diagnostics_of"] = copy.deepcopy(kept)
    bad["both diagnostics and diagnostics_of"]["cells"][shared]["diagnostics"] = []
    bad["neither diagnostics nor diagnostics_of"] = copy.deepcopy(kept)
    del bad["neither diagnostics nor diagnostics_of"]["cells"][shared]["diagnostics_of"]
    bad["unknown key"] = dict(copy.deepcopy(kept), unexpected=1)
    bad["share over 100"] = copy.deepcopy(kept)
    bad["share over 100"]["cells"][0]["cpu_percent"] = 101
    bad["bad diagnostic severity"] = copy.deepcopy(kept)
    bad["bad diagnostic severity"]["cells"][holder]["diagnostics"][0]["severity"] = "fatal"
    for name, doc in bad.items():
        if matrix.is_valid(doc):
            failures.append(f"the matrix schema accepts a document with {name}")
    # ... and so does the consistency check.
    wrong = {}
    wrong["a dangling diagnostics_of"] = copy.deepcopy(kept)
    wrong["a dangling diagnostics_of"]["cells"][shared]["diagnostics_of"] = "SM0000"
    wrong["a miscounted holder"] = copy.deepcopy(kept)
    wrong["a miscounted holder"]["cells"][holder]["errors"] += 1
    wrong["a cell out of place"] = copy.deepcopy(kept)
    cells = wrong["a cell out of place"]["cells"]
    cells[0], cells[-1] = cells[-1], cells[0]
    for name, doc in wrong.items():
        if not consistency(doc):
            failures.append(f"the consistency check accepts a document with {name}")

    for f in failures:
        print(f)
    print(f"check_matrix: {checked} matrices checked, {len(bad) + len(wrong)} planted wrong documents, "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
