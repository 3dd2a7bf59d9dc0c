"""Issue 26 item 4 on the real HTP backend: a repair written as ONNX Runtime tensor overrides.

  .venv/bin/python -m conformance.repair.ort [--models resnet18] [--configs 16a16w] [--socs SM8350]
(with tools/ on PYTHONPATH, the qnnrules package importable, QNNRULES_PATH=). Writes
tests/conformance/repair/ort.json, onnx/MODEL.float.onnx, overrides/MODEL.CONFIG.SOC.json and
the same repair as a recipe, recipes/MODEL.onnx.CONFIG.SOC.yaml.

An ONNX Runtime user's flow (tools/conformance/models/build.py, the model-level suite): the float
model exported by torch.onnx, qnn_preprocess_model, then get_qnn_qdq_config + quantize with the
config's activation and weight QuantTypes (models/build.py's CONFIGS). Per case:

1. base: that quantization as is, on the backend (expected: refused on the SoC);
2. the repair: the preprocessed float model (the one get_qnn_qdq_config reads, so the tensor
   names match) through qnnrules.Engine(backend="htp", soc=SOC).suggest_recipe(graph, CONFIG) and
   Engine.ort_overrides: `qnn-validate MODEL --soc SOC --annotate CONFIG --suggest-overrides FILE`;
3. re-quantized: get_qnn_qdq_config(..., init_overrides=the overrides) + quantize, on the backend
   (conformance.models.run.run_case: the QNN EP on libQnnHtp.so, graph finalize on), and
   validated by qnnrules on the quantized model as read (what qnn-validate says on that file).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

from ..cases import SOCS
from ..models import build as B
from ..models import run as models_run
from ..record import write
from . import compare as C

DEFAULT_MODELS = ["resnet18"]
DEFAULT_CONFIGS = ["16a16w"]
DEFAULT_SOCS = ["SM8350"]


def quantize(src, out, config, seed, init_overrides=None):
    """models/build.py's quantize on an already preprocessed model, with optional overrides."""
    from onnxruntime.quantization import QuantType, quantize as ort_quantize
    from onnxruntime.quantization.execution_providers.qnn import get_qnn_qdq_config
    act, weight, per_channel = B.CONFIGS[config]
    cfg = get_qnn_qdq_config(src, B.RandomReader(src, seed), activation_type=getattr(QuantType, act),
                             weight_type=getattr(QuantType, weight), per_channel=per_channel,
                             init_overrides=init_overrides)
    ort_quantize(src, out, cfg)


def oracle(path, soc_id):
    r = models_run.run_case(path, soc_id)
    on = sum(n["placement"] == "QNN" for n in r["nodes"])
    off = [n["name"] for n in r["nodes"] if n["placement"] not in ("QNN", "removed")]
    return {"outcome": r["outcome"], "session_error": r["session_error"], "finalize_errors": r["finalize_errors"],
            "compute_nodes": len(r["nodes"]), "on_qnn": on, "not_on_qnn": len(off), "not_on_qnn_first": off[:5],
            "rejected": sorted({n["op"] for n in r["nodes"] if n.get("verdict") == "rejected"})}


def ours(engine, path):
    """qnnrules on the quantized model as read: errors and delegated compute nodes."""
    import qnnrules
    rep = engine.delegation(qnnrules.Graph.from_file(path))
    return {"errors": len(rep.validation.errors), "compute_nodes": rep.compute_nodes,
            "delegated": rep.delegated_compute_nodes}


def run_case(model, config, soc, data):
    import qnnrules
    from onnxruntime.quantization.execution_providers.qnn import qnn_preprocess_model
    from ..models import zoo
    sid = {s: i for s, i, _ in SOCS}[soc]
    seed = list(zoo.MODELS).index(model)  # build.py's calibration seed
    engine = qnnrules.Engine(backend="htp", soc=soc, strict=True)
    float_name = f"{model}.float.onnx"
    float_path = os.path.join(data, "onnx", float_name)
    if not os.path.exists(float_path):
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, "raw.onnx")
            B.export(model, raw)
            if not qnn_preprocess_model(raw, float_path):
                shutil.copy(raw, float_path)
    graph = qnnrules.Graph.from_file(float_path)
    fix = engine.suggest_recipe(graph, config)
    ov = engine.ort_overrides(graph, fix)
    name = f"{model}.{config}.{soc}.json"
    with open(os.path.join(data, "overrides", name), "w") as f:
        f.write(ov.json)
    recipe = f"{model}.onnx.{config}.{soc}.yaml"  # the same repair as a recipe (docs/repair-recipes.md)
    with open(os.path.join(data, "recipes", recipe), "w") as f:
        f.write(fix.yaml)
    case = {"id": f"{model}/{config}/{soc}", "model": model, "config": config, "soc": soc, "soc_id": sid,
            "float_model": float_name, "overrides": name, "recipe": recipe, "override_count": len(ov.overrides),
            "recipe_overrides": len(fix.choices), "moves": C.moves(fix.choices), "unexpressed": ov.unexpressed,
            "ort_config": dict(zip(("activation_type", "weight_type", "per_channel"), B.CONFIGS[config]))}
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.onnx")
        quantize(float_path, base, config, seed)
        case["base"] = oracle(base, sid)
        case["base"]["qnnrules"] = ours(engine, base)
        fixed = os.path.join(tmp, "repaired.onnx")
        quantize(float_path, fixed, config, seed, ov.init_overrides())
        case["repaired"] = oracle(fixed, sid)
        case["repaired"]["qnnrules"] = ours(engine, fixed)
    return case


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    ap.add_argument("--socs", default=",".join(DEFAULT_SOCS))
    ap.add_argument("--out", default=os.path.join(C.DATA, "ort.json"))
    a = ap.parse_args(argv)
    data = os.path.dirname(a.out)
    for d in ("onnx", "overrides", "recipes"):
        os.makedirs(os.path.join(data, d), exist_ok=True)
    done = models_run.load(a.out)
    head = models_run.header(sorted(set(a.socs.split(",")) | {c["soc"] for c in done.values()}))
    head["repair"] = "qnnrules.Engine(backend='htp', soc=SOC).ort_overrides(graph, suggest_recipe(graph, CONFIG))"
    for m in a.models.split(","):
        for c in a.configs.split(","):
            for s in a.socs.split(","):
                case = run_case(m, c, s, data)
                done[case["id"]] = case
                write(a.out, head, [done[k] for k in sorted(done)])
                print(f"{case['id']}: {case['override_count']} override(s); base {case['base']['outcome']} "
                      f"({case['base']['not_on_qnn']} not on QNN); repaired {case['repaired']['outcome']} "
                      f"({case['repaired']['on_qnn']}/{case['repaired']['compute_nodes']} on QNN)",
                      file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
