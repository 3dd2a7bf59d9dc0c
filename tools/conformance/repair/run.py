"""Issue 26's repair recipes on the real HTP backend: writes tests/conformance/repair/.

  .venv/bin/python -m conformance.repair.run [--models M,...] [--configs 16a16w,16a4w_block]
      [--socs SM8350,SM8450] [--redo] [--no-oracle]
(with tools/ on PYTHONPATH, the qnnrules package importable, QNNRULES_PATH= so that no overlay
changes the rules). The ONNX half (--suggest-overrides on a float ONNX model, re-quantized by
ONNX Runtime) is conformance.repair.ort.

For every model x SoC x config (a case), the pt2e flow of tools/conformance/quantizer/run.py with
the engine's own repair in the middle:

1. the float graph: the model (tools/conformance/models/zoo.py, built, seeded and exported
   exactly as the Quantizer suite does) as torch.export gives it to prepare_pt2e, read by
   qnnrules.torch.from_fx: the graph the Quantizer annotates. Saved (graph format v1,
   graphs/MODEL.SOC.float.json.gz) so the CTest re-runs the search without torch;
2. the repair: qnnrules.Engine(backend="htp", soc=SOC).suggest_recipe(graph, CONFIG). A config
   the rules take on the SoC (no override needed) is no case: it is recorded as `valid` and
   skipped. The recipe is saved (recipes/MODEL.CONFIG.SOC.yaml);
3. quantize, export, oracle, compare: conformance.quantizer.run.quantize_case with the Quantizer
   given the recipe (Quantizer(soc, config, recipe=FILE)), then the model-level suite's ONNX
   Runtime QNN EP session (graph finalize on) and the per-FX-node comparison of
   conformance.quantizer.compare, as that suite does. The converted graph the engine read is
   saved as graphs/MODEL.CONFIG.SOC.json.gz, the ONNX model as onnx/MODEL.CONFIG.SHA8.onnx.

A repaired case passes when the converted graph validates clean (no diagnostic error, every
compute node delegated) and the backend ran every compute node on QNN with graph finalize
succeeding (outcome all-qnn). tests/python/test_repair_oracle.py holds the data to that.
"""
import argparse
import contextlib
import gzip
import json
import logging
import os
import sys
import time
import traceback

from ..cases import SOCS
from ..record import write
from ..models import run as models_run
from ..quantizer import compare as C
from ..quantizer import run as Q
from . import compare as RC

ROOT = Q.ROOT
DATA = os.path.join(ROOT, "tests", "conformance", "repair")
DEFAULT_MODELS = Q.DEFAULT_MODELS
# Configs some HTP SoC refuses: 16-bit weights of conv / linear / matmul before V73, block-wise
# (LPBQ) weights before V69.
DEFAULT_CONFIGS = ["16a16w", "16a4w_block"]
DEFAULT_SOCS = ["SM8350", "SM8450"]


@contextlib.contextmanager
def recipe_quantizer(recipe):
    """quantizer/run.py's quantize_case builds `qnnrules.pt2e.Quantizer(backend, soc, config,
    strict=False)` itself and has no recipe parameter (that file belongs to the Quantizer suite):
    for the duration, the name it imports is a Quantizer whose recipe defaults to `recipe`."""
    import qnnrules.pt2e as P
    base = P.Quantizer

    class WithRecipe(base):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("recipe", recipe)
            super().__init__(*args, **kwargs)

    P.Quantizer = WithRecipe
    try:
        yield
    finally:
        P.Quantizer = base


def float_graph(model_name, graph_dir, soc):
    """The graph the Quantizer annotates (graph format v1 dict), saved once per model and SoC."""
    import torch
    import qnnrules.torch as qt
    model, example, _ = Q.build_model(model_name)
    with torch.no_grad():
        gm = torch.export.export(model, example, strict=False).module()
    d = qt.to_dict(gm)
    name = f"{model_name}.{soc}.float.json.gz"
    with gzip.open(os.path.join(graph_dir, name), "wt", compresslevel=9) as f:
        json.dump(d, f, separators=(",", ":"), sort_keys=True)
    return d, name


def suggestion_record(fix):
    return {"base": fix.base, "overrides": len(fix.choices), "on_cpu": [list(x) for x in fix.on_cpu],
            "validates_clean": fix.validates_clean, "runs": fix.runs,
            "moves": RC.moves(fix.choices)}


def repair_case(model_name, config, soc, dirs, graph_cache):
    """The case's record up to the oracle, or {"valid": True} when the config needs no repair."""
    import qnnrules
    engine = qnnrules.Engine(backend="htp", soc=soc, strict=True)
    if (model_name, soc) not in graph_cache:
        graph_cache[(model_name, soc)] = float_graph(model_name, dirs["graphs"], soc)
    d, float_name = graph_cache[(model_name, soc)]
    graph = qnnrules.Graph.from_dict(d, d.get("name", model_name))
    t0 = time.time()
    base_errors = sorted({x.node for x in engine.check(engine.annotate(graph, config)).errors})
    fix = engine.suggest_recipe(graph, config)
    out = {"float_graph": float_name, "base_error_nodes": len(base_errors),
           "suggestion": suggestion_record(fix), "suggest_seconds": round(time.time() - t0, 1)}
    if not fix.choices and not fix.on_cpu:
        out["valid"] = True  # the rules take the config as it is: nothing to repair
        return out
    recipe = f"{model_name}.{config}.{soc}.yaml"
    path = os.path.join(dirs["recipes"], recipe)
    with open(path, "w") as f:
        f.write(fix.yaml)
    out["recipe"] = recipe
    with recipe_quantizer(path):
        out.update(Q.quantize_case(model_name, config, soc, dirs["onnx"], dirs["graphs"]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    ap.add_argument("--socs", default=",".join(DEFAULT_SOCS))
    ap.add_argument("--out", default=os.path.join(DATA, "verdicts.json"))
    ap.add_argument("--redo", action="store_true", help="rerun the selected cases")
    ap.add_argument("--no-oracle", action="store_true", help="suggest, quantize and export only")
    a = ap.parse_args(argv)
    logging.getLogger("qnnrules").setLevel(logging.ERROR)
    base = os.path.dirname(a.out)
    dirs = {k: os.path.join(base, k) for k in ("onnx", "graphs", "recipes")}
    for p in dirs.values():
        os.makedirs(p, exist_ok=True)
    socs = {s: (sid, arch) for s, sid, arch in SOCS}
    done = models_run.load(a.out)
    todo = [(m, c, s) for m in a.models.split(",") for s in a.socs.split(",") for c in a.configs.split(",")]
    if a.redo:
        for m, c, s in todo:
            done.pop(f"{m}/{c}/{s}", None)
    head = Q.header(sorted({s for _, _, s in todo} | {c["soc"] for c in done.values()}))
    head["repair"] = "qnnrules.Engine(backend='htp', soc=SOC, strict=True).suggest_recipe(float graph, CONFIG)"
    graph_cache = {}
    for i, (model, config, soc) in enumerate(todo):
        cid = f"{model}/{config}/{soc}"
        old = done.get(cid, {})
        if old and ("oracle" in old or old.get("valid") or old.get("build_error") or a.no_oracle):
            continue
        t0 = time.time()
        sid, arch = socs[soc]
        case = {"id": cid, "model": model, "config": config, "soc": soc, "soc_id": sid, "arch": arch}
        try:
            case.update(repair_case(model, config, soc, dirs, graph_cache))
        except Exception as e:  # a failure is data: recorded with its error
            case["build_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:500] if str(e) else ''}"
            case["build_traceback"] = traceback.format_exc()[-1500:]
        if "file" in case and not a.no_oracle:
            r = models_run.run_case(os.path.join(dirs["onnx"], case["file"]), sid)
            rows, unmapped = C.compare(case["ours"], case["onnx_nodes"], r["nodes"])
            case["oracle"] = {"outcome": r["outcome"], "session_error": r["session_error"],
                              "finalize_errors": r["finalize_errors"]}
            case["nodes"] = rows
            case["unmapped_onnx_nodes"] = unmapped
            case["totals"] = C.totals(rows)
            case["ours_outcome"] = C.outcome(rows)
            case.pop("ours", None)
            case.pop("onnx_nodes", None)
        done[cid] = case
        write(a.out, head, [done[k] for k in sorted(done)])
        s = case.get("suggestion", {})
        what = ("valid as is" if case.get("valid") else case.get("build_error")
                or case.get("oracle", {}).get("outcome"))
        print(f"[{i + 1}/{len(todo)}] {cid}: {s.get('overrides')} override(s) {s.get('moves')} -> {what}"
              f" ours={case.get('ours_outcome')} {case.get('totals', {})} {time.time() - t0:.1f} s",
              file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
