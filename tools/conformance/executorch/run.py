"""ExecuTorch's QnnQuantizer side by side with qnnrules (issue 9 part 2): regenerates
tests/conformance/executorch/ (summary.json, cases/) and docs/conformance-executorch.md.

    EXECUTORCH_BUILDING_WHEEL=1 PYTHONPATH=build/python .venv/bin/python tools/conformance/executorch/run.py

For every model x config: ExecuTorch annotates the exported model (et_quantize.py); qnnrules
validates that annotation for HTP on SM8650; qnnrules annotates the same graph (ExecuTorch's
transformed graph with the annotations removed) with the same config and the two annotations
are compared port by port (graphdiff.py). Each diagnostic group and difference class is joined
with its verdict in tests/conformance/executorch/decisions.json (report.py).
"""

import argparse
import copy
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
os.environ.setdefault("EXECUTORCH_BUILDING_WHEEL", "1")

import graphdiff  # noqa: E402
import report  # noqa: E402

# qnnrules configs matching ExecuTorch's set-up in et_quantize.quantizer_for (conv and linear
# weights per channel; 16a4w_block: its default, per-block where the channels split into blocks).
QNNRULES_CONFIG = {
    "8a8w": "8a8w:per_channel",
    "16a8w": "16a8w:per_channel",
    "16a16w": "16a16w:per_channel",
    "16a4w": "16a4w:per_channel",
    "16a4w_block": "16a4w_block",
}
# Configs run on another backend: label -> (ExecuTorch config, backend, SoC). LPAI as ExecuTorch's
# LPAI op tests set it up (tests/rework/lpai/conftest.py: make_quantizer 8a8w, SM8850).
OTHER_BACKENDS = {"lpai-8a8w": ("8a8w", "lpai", "SM8850")}
# Small representative graphs kept as data, re-checked by check_recorded.py in CTest.
CASES = [("tiny_llama", "16a4w_block"), ("tiny_llama", "16a8w"), ("mobilenet_v3_large", "8a8w"),
         ("resnet18", "16a16w"), ("efficientnet_b0", "16a4w")]
SOC = "SM8650"


def _diags(report_or_list):
    items = report_or_list.diagnostics if hasattr(report_or_list, "diagnostics") else report_or_list
    return [d.to_dict() for d in items]


def run_one(qnnrules, et_quantize, gm, model_name, label):
    start = time.time()
    config, backend, soc = OTHER_BACKENDS.get(label, (label, "htp", SOC))
    et_graph, et_annotated = et_quantize.annotate(copy.deepcopy(gm), config, model_name, backend, soc)
    engine = qnnrules.Engine(backend=backend, soc=soc, strict=True, use_environment=False,
                             builtin_rules_dir=os.path.join(ROOT, "rules"))
    checked = engine.check(qnnrules.Graph.from_dict(et_graph, model_name))
    float_graph = graphdiff.strip_annotations(et_graph)
    ann = engine.annotate_report(qnnrules.Graph.from_dict(float_graph, model_name), QNNRULES_CONFIG[config])
    qn_graph = ann.graph.to_dict()
    qn_checked = engine.check(ann.graph)
    calls = sum(1 for n in et_graph["nodes"] if n.get("kind") == "call")
    return et_graph, {
        "backend": backend,
        "soc": soc,
        "call_nodes": calls,
        "executorch_annotated": et_annotated,
        "qnnrules_annotated": ann.nodes_annotated,
        "qnnrules_config": QNNRULES_CONFIG[config],
        "diagnostics": graphdiff.diagnostic_groups(_diags(checked)),
        "qnnrules_annotation_diagnostics": graphdiff.diagnostic_groups(_diags(ann)),
        "qnnrules_own_diagnostics": graphdiff.diagnostic_groups(_diags(qn_checked)),
        "differences": graphdiff.compare(et_graph, qn_graph),
        "seconds": round(time.time() - start, 1),
    }


def _save(summary, path):
    with open(path + ".tmp", "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def versions():
    from importlib import metadata
    return {p: metadata.version(p) for p in ("executorch", "torch", "torchao", "torchvision")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=None, help="comma-separated (default: every model of models.py)")
    ap.add_argument("--configs", default=",".join(list(QNNRULES_CONFIG) + list(OTHER_BACKENDS)))
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "conformance", "executorch"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "conformance-executorch.md"))
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the doc from the recorded summary.json and decisions.json (no models run)")
    a = ap.parse_args()
    if a.report_only:
        report.write(report.load(os.path.join(a.data, "summary.json")), os.path.join(a.data, "decisions.json"), a.doc)
        print(f"wrote {a.doc}")
        return

    import torch
    import qnnrules
    import et_quantize
    import models

    summary_path = os.path.join(a.data, "summary.json")
    summary = {"versions": versions(), "soc": SOC, "results": {}}
    if os.path.exists(summary_path):  # a partial run (--models) updates the recorded results
        with open(summary_path) as f:
            summary["results"] = json.load(f).get("results", {})
    os.makedirs(os.path.join(a.data, "cases"), exist_ok=True)
    total = time.time()
    for name in (a.models.split(",") if a.models else models.MODELS):
        model, args = models.build(name)
        gm = torch.export.export(model, args, strict=False).module()
        for config in a.configs.split(","):
            et_graph, result = run_one(qnnrules, et_quantize, gm, name, config)
            summary["results"].setdefault(name, {})[config] = result
            print(f"{name} {config}: {result['executorch_annotated']} annotated, "
                  f"{sum(result['diagnostics'].values())} diagnostics, "
                  f"{sum(result['differences'].values())} port differences, {result['seconds']} s", flush=True)
            _save(summary, summary_path)  # after every result, so an interrupted run keeps its work
            if (name, config) in CASES:
                with open(os.path.join(a.data, "cases", f"{name}.{config}.json"), "w") as f:
                    json.dump(et_graph, f, indent=None, separators=(",", ":"))
                    f.write("\n")
    summary["seconds"] = round(time.time() - total, 1)
    _save(summary, summary_path)
    report.write(summary, os.path.join(a.data, "decisions.json"), a.doc)
    print(f"wrote {summary_path} and {a.doc} in {summary['seconds']} s")


if __name__ == "__main__":
    main()
