#!/usr/bin/env python3
"""Checks that the JSON Schemas in docs/schemas/ agree with the files the engine accepts.

Every graph under examples/ and tests/rules/ must validate against graph.schema.json, and
every rule file under rules/<backend>/ against rules.schema.json (when that schema exists), so an
editor using the schemas never flags a file the loader takes. A few known-bad graphs must
be rejected, so the schema is not vacuously permissive. Exit 1 on any mismatch.
Run with Debian's python3 (python3-jsonschema, python3-yaml).
"""
import glob
import json
import os
import sys

import jsonschema
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_schema(name):
    path = os.path.join(ROOT, "docs", "schemas", name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def main():
    failures = []
    checked = 0
    graph = load_schema("graph.schema.json")
    if graph is None:
        sys.exit("check_schemas: docs/schemas/graph.schema.json is missing")
    graph_files = sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.json"), recursive=True))
    graph_files += sorted(glob.glob(os.path.join(ROOT, "tests", "rules", "**", "*.json"), recursive=True))
    for path in graph_files:
        with open(path) as f:
            doc = json.load(f)
        # Fixture files may wrap graphs: {"cases": [{"graph": {...}}, ...]} or {"graph": {...}}.
        graphs = [doc] if doc.get("format") == "qnnrules-graph" else []
        for case in doc.get("cases", []) if isinstance(doc, dict) else []:
            if isinstance(case, dict) and isinstance(case.get("graph"), dict):
                graphs.append(case["graph"])
        if isinstance(doc.get("graph"), dict):
            graphs.append(doc["graph"])
        for g in graphs:
            checked += 1
            for err in graph.iter_errors(g):
                failures.append(f"{os.path.relpath(path, ROOT)}: {'/'.join(map(str, err.absolute_path))}: {err.message}")

    bad = [
        {"format": "qnnrules-graph", "version": 2, "nodes": []},
        {"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "x", "kind": "call"}]},
        {"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "x", "kind": "input", "outptus": []}]},
        {"format": "qnnrules-graph", "version": 1,
         "nodes": [{"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "qspec": {"dtype": "uint8", "scale": -1}}]}]},
    ]
    for i, g in enumerate(bad):
        if graph.is_valid(g):
            failures.append(f"graph.schema.json accepts known-bad graph #{i}: {json.dumps(g)}")

    rules = load_schema("rules.schema.json")
    if rules is not None:
        for path in sorted(glob.glob(os.path.join(ROOT, "rules", "*", "**", "*.yaml"), recursive=True)):
            if os.path.relpath(path, ROOT).startswith(os.path.join("rules", "lowering")):
                continue  # lowering paths (docs/rule-format.md): strict-loaded by the engine, not rule files
            with open(path) as f:
                doc = yaml.safe_load(f)
            if doc is None:
                continue
            checked += 1
            for err in rules.iter_errors(doc):
                failures.append(f"{os.path.relpath(path, ROOT)}: {'/'.join(map(str, err.absolute_path))}: {err.message}")

    for f in failures:
        print(f)
    print(f"check_schemas: {checked} file(s) checked, {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
