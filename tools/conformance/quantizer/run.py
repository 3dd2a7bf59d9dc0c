"""Our pt2e Quantizer end to end on the real HTP backend (issue 22): writes tests/conformance/quantizer/.

  .venv/bin/python -m conformance.quantizer.run [--models M,...] [--configs 8a8w,16a8w,16a16w]
      [--socs SM8350,SM8650,SM8750,SM8850] [--redo] [--redo-failed] [--no-oracle]
(with tools/ on PYTHONPATH, and the qnnrules package importable: the build tree's python/ or an
installed wheel; QNNRULES_PATH= so that no overlay changes the rules).

For every model x configuration x SoC (a case):

1. quantize: the model (tools/conformance/models/zoo.py: torchvision CNNs at reduced width on
   64x64 inputs, a `transformers` decoder; random seeded weights, nothing downloaded) goes through
   torch.export -> prepare_pt2e(model, qnnrules.torch.Quantizer(backend="htp", soc=SOC,
   config=CONFIG, strict=False)) -> 4 seeded random calibration batches -> convert_pt2e;
2. predict: the converted GraphModule, as the user's quantizer.validate(converted) reads it
   (qnnrules.torch.to_dict), runs through
   qnnrules.Engine(backend="htp", soc=SOC, strict=True, lowering="ort-qnn").delegation(): per FX
   compute node, delegated or a fallback (reason, code, message), and whether the session fails.
   The lowering is the oracle's (ONNX Runtime's QNN EP), not the GraphModule's default
   (ExecuTorch's): what ORT does to the encodings decides what QNN sees (bisect_gather.py). The
   ExecuTorch judgement is recorded beside it (`qnnrules.executorch`: its outcome, what differs).
   The graph the engine read is saved as graph format v1 JSON
   (tests/conformance/quantizer/graphs/*.json.gz), so the CTest re-validates it
   without torch (tests/python/test_quantizer_oracle.py). The same converted module re-exported
   (torch.export, the `.pt2` path) must give the same verdicts (recorded as `pt2_agrees`);
3. export: torch.onnx.export(dynamo=True, opset 21) of the same program: quantized_decomposed
   quantize/dequantize become QuantizeLinear/DequantizeLinear with the Quantizer's scales and
   offsets. pt2e spells a 16-bit activation as int32 with quant range [0, 65535] (torch has no
   uint16 kernels; ExecuTorch's QnnQuantizer does the same); ONNX would carry that as an int32
   QuantizeLinear, which QNN reads as a 32-bit tensor. So before the ONNX export the
   quantize/dequantize nodes whose (dtype, quant_min, quant_max) is (int32, 0, 65535) are
   relabelled torch.uint16 ((int32, -32768, 32767) -> int16), constants converted with them: the
   same integers, the same scale and offset, the dtype ONNX and QNN name them by. The relabelled
   program is validated again and must give the same verdicts (recorded as `retype_agrees`);
4. oracle: the ONNX model through ONNX Runtime's QNN EP on the wheel's libQnnHtp.so for the SoC,
   graph finalize on, ORT default optimizations (conformance.models.run.run_case, the model-level
   suite's session and log parsing);
5. compare, per FX compute node of the converted GraphModule: its ONNX nodes are found through
   each ONNX node's `pkg.torch.onnx.fx_node` metadata (the FX node of the exporter's decomposed
   program it came from) and that node's meta["from_node"] provenance chain back to the converted
   GraphModule (re-export renames nodes: relu_ -> relu); the backend refused
   the FX node when it refused any of them (QNN's op validation or CPU placement), ran it when
   it accepted them (nodes ORT removed aside), and `removed` when ORT removed them all. Kinds:
   agree, FP (we refuse, the backend runs it), FN (we delegate, the backend refuses it: the
   acceptance wants none), removed (we delegate; ORT removed it before partitioning), not-compared
   (no ONNX node or no backend verdict). ONNX compute nodes that map to no FX node are listed.

--repredict re-judges every recorded graph with today's rules against the recorded backend
states (no torch, no oracle: after a rule change).

Resumable: cases in the output file are skipped (unless --redo / --redo-failed), the file is
rewritten after every case. ONNX models are stored once per distinct content
(tests/conformance/quantizer/onnx/MODEL.CONFIG.SHA8.onnx).
"""
import argparse
import gzip
import hashlib
import logging
import json
import os
import sys
import time
import traceback

from .. import oracle
from ..cases import SOCS
from ..record import write
from ..models import run as models_run
from . import compare as C

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "tests", "conformance", "quantizer")
QDQ = {"QuantizeLinear", "DequantizeLinear"}
DEFAULT_MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "shufflenet_v2", "squeezenet1_1",
                  "efficientnet_b0", "regnet_y", "llama"]
DEFAULT_CONFIGS = ["8a8w", "16a8w", "16a16w"]
DEFAULT_SOCS = ["SM8350", "SM8650", "SM8750", "SM8850"]
CALIBRATION_BATCHES = 4
OPSET = 21
PREDICTION = "qnnrules.Engine(backend='htp', soc=SOC, strict=True, lowering='ort-qnn').delegation(from_fx(program))"


# --- models -----------------------------------------------------------------------------------

def build_model(name):
    """(eval module, example args, calibration batches), seeded."""
    import torch
    from ..models import zoo
    torch.manual_seed(0)
    builder, inputs = zoo.MODELS[name]
    model = builder().eval()
    if inputs is zoo._tokens:
        # The decoder: input_ids only (transformers builds the causal mask itself).
        def inputs():
            return (torch.randint(0, zoo.VOCAB, (1, zoo.SEQ)),)
    example = inputs()
    batches = []
    for i in range(CALIBRATION_BATCHES):
        torch.manual_seed(100 + i)
        batches.append(inputs())
    return model, example, batches


# --- quantize, predict, export ----------------------------------------------------------------

def _fx_name(node):
    """The FX node an ONNX node came from (torch.onnx's pkg.torch.onnx.fx_node metadata)."""
    for p in node.metadata_props:
        if p.key == "pkg.torch.onnx.fx_node" and p.value.startswith("%"):
            return p.value[1:].split(" ", 1)[0]
    return None


def _fx_from_outputs(node, names):
    """For an ONNX node the optimizer made without metadata (a Split from chunk): the FX node its
    outputs are named after (`split_split_0` -> `split`), trying shorter `_` prefixes."""
    for out in node.output:
        base = out
        while base:
            if base in names:
                return base
            if "_" not in base:
                break
            base = base.rsplit("_", 1)[0]
    return None


def retype_16bit(gm):
    """Relabels 16-bit quantize/dequantize nodes pt2e spells as int32 (see the module doc);
    returns how many were changed."""
    import torch
    labels = {(0, 65535): torch.uint16, (-32768, 32767): torch.int16}
    changed = 0
    for n in gm.graph.nodes:
        if n.op != "call_function" or "quantized_decomposed" not in str(n.target):
            continue
        args = list(n.args)
        if len(args) < 4 or args[-1] != torch.int32:
            continue
        new = labels.get((args[-3], args[-2]))
        if new is None:
            continue
        args[-1] = new
        n.args = tuple(args)
        src = n.args[0]
        if "dequantize" in str(n.target) and getattr(src, "op", None) == "get_attr":
            owner, _, attr = src.target.rpartition(".")
            mod = gm.get_submodule(owner) if owner else gm
            t = getattr(mod, attr)
            setattr(mod, attr, t.to(new))
        changed += 1
    gm.recompile()
    return changed


def strip_metadata(proto):
    """Drops torch.onnx's per-node metadata (stack traces, module scopes: 60% of a file) but the
    FX node each ONNX node came from, written `%name`."""
    for n in proto.graph.node:
        fx = _fx_name(n)
        del n.metadata_props[:]
        n.doc_string = ""
        if fx:
            n.metadata_props.add(key="pkg.torch.onnx.fx_node", value="%" + fx)
    return proto


def _provenance(program, graph):
    """{node name in program: name of the node of ``graph`` it came from}, following each node's
    meta["from_node"] chain (torch.fx's provenance: re-export, decompositions) to ``graph``."""
    out = {}
    want = id(graph)
    names = {n.name for n in graph.nodes}
    for n in program.graph.nodes:
        stack = list(n.meta.get("from_node") or ())
        found = None
        while stack and found is None:
            s = stack.pop(0)
            if s.graph_id == want and s.name in names:
                found = s.name
            stack.extend(s.from_node or ())
        if found is not None:
            out[n.name] = found
    return out


def quantize_case(model_name, config, soc, onnx_dir, graph_dir):
    import torch
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    import qnnrules.torch as qt
    from qnnrules.pt2e import Quantizer

    t0 = time.time()
    model, example, batches = build_model(model_name)
    with torch.no_grad():
        gm = torch.export.export(model, example, strict=False).module()
    quantizer = Quantizer(backend="htp", soc=soc, config=config, strict=False)
    prepared = prepare_pt2e(gm, quantizer)
    with torch.no_grad():
        for b in batches:
            prepared(*b)
    converted = convert_pt2e(prepared)
    t_quant = time.time() - t0

    # The prediction: the converted GraphModule as the user validates it (quantizer.validate),
    # judged for the path the oracle takes (ONNX Runtime's QNN EP: compare.LOWERING).
    engine = C.engine(soc)
    structural = C.structural_targets()

    def predictions(program):
        d = qt.to_dict(program)
        return (*C.predict(engine, d, structural), d)

    ours, summary, graph_dict = predictions(converted)
    summary["in_process_diagnostics"] = len(engine.check(qt.from_fx(converted)).diagnostics)
    with torch.no_grad():  # the same program re-exported (the .pt2 path) must say the same
        program = torch.export.export(converted, example, strict=False)
    ours_pt2, _, _ = predictions(program)
    prov = _provenance(program, converted.graph)
    summary["pt2_agrees"] = sorted((prov.get(k, k), v["ours"]) for k, v in ours_pt2.items()) == \
        sorted((k, v["ours"]) for k, v in ours.items())

    retyped = retype_16bit(converted)
    ours2, _, _ = predictions(converted)
    retype_agrees = {k: v["ours"] for k, v in ours.items()} == {k: v["ours"] for k, v in ours2.items()}
    with torch.no_grad():
        program2 = torch.export.export(converted, example, strict=False)

    t1 = time.time()
    onnx_program = torch.onnx.export(program2, example, dynamo=True, opset_version=OPSET, verbose=False)
    prov = _provenance(onnx_program.exported_program, converted.graph)
    proto = strip_metadata(onnx_program.model_proto)
    blob = proto.SerializeToString()
    sha = hashlib.sha256(blob).hexdigest()[:8]
    fname = f"{model_name}.{config}.{sha}.onnx"
    path = os.path.join(onnx_dir, fname)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(blob)
    t_export = time.time() - t1

    # The graph the engine read (graph format v1), for the CTest: one file per case.
    gname = f"{model_name}.{config}.{soc}.json.gz"
    with gzip.open(os.path.join(graph_dir, gname), "wt", compresslevel=9) as f:
        json.dump(graph_dict, f, separators=(",", ":"), sort_keys=True)

    onnx_nodes = []
    exported_names = {n.name for n in onnx_program.exported_program.graph.nodes}
    for n in proto.graph.node:
        if n.op_type in QDQ:
            continue
        fx, how = _fx_name(n), "metadata"
        if fx is None:
            fx, how = _fx_from_outputs(n, exported_names), "output-name"
        onnx_nodes.append({"name": n.name, "op": n.op_type, "exported_fx": fx, "fx": prov.get(fx),
                           "mapped_by": how if fx else None})
    return {"file": fname, "graph": gname, "graph_dict": graph_dict,  # graph_dict: not recorded
            "quantize_seconds": round(t_quant, 1), "export_seconds": round(t_export, 1),
            "retyped_16bit_qdq": retyped, "retype_agrees": retype_agrees, "qnnrules": summary,
            "ours": ours, "onnx_nodes": onnx_nodes}


def repredict(case, graph_dir):
    """A recorded case re-judged with today's rules (its graph, its backend states); the
    Quantizer-side checks (pt2_agrees, retype_agrees, in_process_diagnostics) stay as recorded."""
    with gzip.open(os.path.join(graph_dir, case["graph"]), "rt") as f:
        graph_dict = json.load(f)
    structural = C.structural_targets()
    ours, summary = C.predict(C.engine(case["soc"]), graph_dict, structural)
    rows = C.rejudge(ours, case["nodes"], summary["fails_at_finalize"])
    for k in ("pt2_agrees", "in_process_diagnostics"):
        summary[k] = case["qnnrules"].get(k)
    summary["executorch"] = C.executorch_view(case["soc"], graph_dict, rows, summary, structural)
    return dict(case, qnnrules=summary, nodes=rows, totals=C.totals(rows), ours_outcome=C.outcome(rows, summary))


# --- driver -----------------------------------------------------------------------------------

def header(socs):
    import torch
    import torchao
    v = oracle.versions()
    v["torch"] = torch.__version__
    v["torchao"] = torchao.__version__
    for mod in ("transformers", "torchvision", "onnx", "onnxscript"):
        try:
            v[mod] = __import__(mod).__version__
        except ImportError:
            pass
    return {"backend": "htp", "versions": v, "opset": OPSET, "calibration_batches": CALIBRATION_BATCHES,
            "session": {"graph_optimization_level": "ORT default", "ep.context_enable": "1",
                        "provider": "QNN plugin EP, libQnnHtp.so"},
            "prediction": PREDICTION,
            "socs": socs}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    ap.add_argument("--socs", default=",".join(DEFAULT_SOCS))
    ap.add_argument("--out", default=os.path.join(DATA, "verdicts.json"))
    ap.add_argument("--redo", action="store_true", help="rerun the selected cases")
    ap.add_argument("--redo-failed", action="store_true", help="rerun the cases whose build failed")
    ap.add_argument("--no-oracle", action="store_true", help="quantize, predict and export only")
    ap.add_argument("--repredict", action="store_true",
                    help="no torch, no oracle: re-judge every recorded graph with today's rules against the "
                         "recorded backend states (after a rule change)")
    a = ap.parse_args(argv)
    # The Quantizer's annotation warnings (e.g. 16a16w on V68) are in the data as diagnostics.
    logging.getLogger("qnnrules").setLevel(logging.ERROR)
    onnx_dir = os.path.join(os.path.dirname(a.out), "onnx")
    graph_dir = os.path.join(os.path.dirname(a.out), "graphs")
    os.makedirs(onnx_dir, exist_ok=True)
    os.makedirs(graph_dir, exist_ok=True)
    socs = {s: (sid, arch) for s, sid, arch in SOCS}
    done = models_run.load(a.out)  # cases not selected are kept as recorded
    if a.repredict:
        with open(a.out) as f:
            head = json.load(f)
        head.pop("cases")
        head["prediction"] = PREDICTION
        for cid in sorted(done):
            if "nodes" in done[cid]:
                done[cid] = repredict(done[cid], graph_dir)
        write(a.out, head, [done[k] for k in sorted(done)])
        return
    want_socs = a.socs.split(",")
    todo = [(m, c, s) for m in a.models.split(",") for c in a.configs.split(",") for s in want_socs]
    for m, c, s in todo:
        cid = f"{m}/{c}/{s}"
        if a.redo or (a.redo_failed and done.get(cid, {}).get("build_error")):
            done.pop(cid, None)
    head = header(sorted(set(want_socs) | {c["soc"] for c in done.values()}))
    for i, (model, config, soc) in enumerate(todo):
        cid = f"{model}/{config}/{soc}"
        if cid in done and ("oracle" in done[cid] or a.no_oracle or done[cid].get("build_error")):
            continue
        t0 = time.time()
        sid, arch = socs[soc]
        case = {"id": cid, "model": model, "config": config, "soc": soc, "soc_id": sid, "arch": arch}
        try:
            case.update(quantize_case(model, config, soc, onnx_dir, graph_dir))
        except Exception as e:  # a build failure is data: recorded with its error
            case["build_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:500] if str(e) else ''}"
            case["build_traceback"] = traceback.format_exc()[-1500:]
        if "file" in case and not a.no_oracle:
            r = models_run.run_case(os.path.join(onnx_dir, case["file"]), sid)
            summary = case["qnnrules"]
            rows, unmapped = C.compare(case["ours"], case["onnx_nodes"], r["nodes"], summary["fails_at_finalize"])
            case["oracle"] = {"outcome": r["outcome"], "session_error": r["session_error"],
                              "finalize_errors": r["finalize_errors"]}
            case["nodes"] = rows
            case["unmapped_onnx_nodes"] = unmapped
            case["totals"] = C.totals(rows)
            case["ours_outcome"] = C.outcome(rows, summary)
            summary["executorch"] = C.executorch_view(soc, case["graph_dict"], rows, summary, C.structural_targets())
        case.pop("graph_dict", None)
        if "oracle" in case:
            case.pop("ours", None)
            case.pop("onnx_nodes", None)
        done[cid] = case
        write(a.out, head, [done[k] for k in sorted(done)])
        t = case.get("totals", {})
        print(f"[{i + 1}/{len(todo)}] {cid}: {case.get('build_error') or case.get('oracle', {}).get('outcome')}"
              f" ours={case.get('ours_outcome')} {t} {time.time() - t0:.1f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
