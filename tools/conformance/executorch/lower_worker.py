"""One step of the ExecuTorch-lowering oracle, in its own process (lower.py runs it with a timeout).

    lower_worker.py quantize MODEL QUANTIZER CONFIG OUT.pt2 [--bias-scale F]
    lower_worker.py lower OUT.pt2 MODEL SOC OUT.json [--skips REPORT.json]

quantize: builds MODEL (lower_models.py), quantizes it with ExecuTorch's QnnQuantizer
("executorch", set up as in et_quantize.quantizer_for) or qnnrules.torch.Quantizer ("qnnrules"),
calibrates on seeded inputs, convert_pt2e, and saves torch.export.export of the converted module
(what `qnn-validate --lowering executorch` reads). --bias-scale F multiplies the scale of every
conv/linear bias encoding by F and requantizes the bias so its float value stays (the bias-scale
oracle case).

lower: loads the .pt2 and runs ExecuTorch's to_edge_transform_and_lower_to_qnn for SOC (HTP,
quantized), the real partitioner and preprocess against the real backend. Records per edge node the
partitioner's verdict (QnnOperatorSupport.is_node_supported: per node the backend's
backendValidateOpConfig through ExecuTorch's op builders) with the log lines the check wrote, its
partition, the .pt2 node it comes from (meta from_node), and the graph's outcome (lowered, or the
exception of the step that failed, with the backend's error lines). --skips: lowered with the
skip sets qnnrules.executorch.skip_sets makes of qnn-validate's report on the .pt2 (issue 33's
"act on the verdict"), recorded under "skips".
"""

import functools
import json
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

QDQ = re.compile(r"(quantize|dequantize)_per_(tensor|channel|channel_group|token)")
ERROR_LINE = re.compile(r"\[(ERROR|WARNING)\] \[Qnn ExecuTorch\]:\s*(.*)|<E>\s*(.*)")


def is_qdq(target):
    return bool(QDQ.search(str(target)))


# --- quantize -----------------------------------------------------------------------------------

def _scale_bias(gm, factor):
    """Multiplies the scale of each conv/linear bias dequantize by factor, requantizing the int32
    bias constant so dequantized values stay (to the rounding). Returns the nodes changed."""
    import torch
    changed = []
    for node in gm.graph.nodes:
        if node.op != "call_function" or len(node.args) < 3 or not hasattr(node.args[2], "target"):
            continue
        if "conv" not in str(node.target) and "linear" not in str(node.target):
            continue
        dq = node.args[2]
        if not is_qdq(dq.target) or dq.args[0].op != "get_attr":
            continue
        q_attr = dq.args[0].target
        q = getattr(gm, q_attr)
        scale = dq.args[1]
        if isinstance(scale, torch.fx.Node):  # per channel: scales tensor constant
            s = getattr(gm, scale.target)
            setattr(gm, scale.target, s * factor)
            div = (s * factor).reshape([-1] + [1] * (q.dim() - 1)) / s.reshape([-1] + [1] * (q.dim() - 1))
        else:
            dq.args = (dq.args[0], float(scale) * factor) + tuple(dq.args[2:])
            div = factor
        setattr(gm, q_attr, torch.round(q.to(torch.float64) / div).to(q.dtype))
        changed.append(node.name)
    gm.recompile()
    return changed


def _train_qat(gm, q, batches, quantizer):
    """prepare_qat_pt2e (torchao's for ExecuTorch's quantizer, qnnrules.torch's for ours, as each
    documents it), a few SGD steps on the output's mean square (seeded batches: the fake-quantize
    observers and the BatchNorm statistics move), then the module in eval mode, ready to convert."""
    import torch
    from torchao.quantization.pt2e import move_exported_model_to_eval
    if quantizer == "executorch":
        from torchao.quantization.pt2e.quantize_pt2e import prepare_qat_pt2e
    else:
        from qnnrules.torch import prepare_qat_pt2e
    gm = prepare_qat_pt2e(gm, q)
    opt = torch.optim.SGD(gm.parameters(), lr=1e-3)
    for batch in batches:
        out = gm(*batch)
        out = out[0] if isinstance(out, (tuple, list)) else out
        loss = out.float().pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return move_exported_model_to_eval(gm)


def quantize(model, quantizer, config, out, bias_scale=None):
    import torch
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    import lower_models
    start = time.time()
    m, args = lower_models.build(model)
    gm = torch.export.export(m, args, strict=False).module()
    if quantizer == "executorch":
        import et_quantize
        q = et_quantize.quantizer_for(config, gm)
    else:
        import qnnrules.torch as qt
        from run import QNNRULES_CONFIG
        # QAT (this suite only): prepare_qat_pt2e and a few training steps (_train_qat).
        configs = {**QNNRULES_CONFIG, "8a8w_qat": "8a8w:per_channel,qat", "16a8w_qat": "16a8w:per_channel,qat"}
        q = qt.Quantizer(backend="htp", soc="SM8650", config=configs[config])
    if config.endswith("_qat"):
        # QAT exports the model in training mode (torchao's QAT flow: the batch_norm then takes
        # the form its conv + batch_norm fusion and the fold at convert match).
        gm = torch.export.export(m.train(), args, strict=False).module()
        gm = _train_qat(gm, q, lower_models.calibration(model), quantizer)
    else:
        gm = prepare_pt2e(gm, q)
        with torch.no_grad():
            for batch in lower_models.calibration(model):
                gm(*batch)
    if config.endswith("_qat") and quantizer != "executorch":
        import qnnrules.torch as qt
        gm = qt.convert_pt2e(gm)  # its documented QAT flow (the fold with the graph's conv patterns)
    else:
        gm = convert_pt2e(gm)
    changed = _scale_bias(gm, bias_scale) if bias_scale else []
    ep = torch.export.export(gm, args, strict=False)
    torch.export.save(ep, out)
    compute = [n.name for n in ep.graph.nodes if n.op == "call_function" and not is_qdq(n.target)]
    return {"pt2": os.path.basename(out), "compute_nodes": len(compute), "bias_scaled": changed,
            "seconds": round(time.time() - start, 1)}


# --- lower --------------------------------------------------------------------------------------

class LogTap:
    """fd 2 (where the QNN backend's and ExecuTorch's C++ logs go) redirected into a file, read by
    offset so each partitioner check gets the lines it wrote."""

    def __init__(self, path):
        self.path = path
        sys.stderr.flush()
        self.saved = os.dup(2)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        os.dup2(fd, 2)
        os.close(fd)

    def mark(self):
        sys.stderr.flush()
        return os.path.getsize(self.path)

    def since(self, pos):
        sys.stderr.flush()
        with open(self.path, errors="replace") as f:
            f.seek(pos)
            return f.read()


def backend_lines(text, limit=12):
    """The backend's and ExecuTorch's error/warning lines of a log excerpt, deduplicated, in order."""
    out = []
    for line in text.splitlines():
        m = ERROR_LINE.search(line)
        if not m:
            continue
        msg = (m.group(2) or m.group(3) or "").strip()
        if not msg or "option 66" in msg or "API version" in msg or msg in out:
            continue  # "unexpected GraphHtpSettings option 66": the x86 library's own, on every graph
        out.append(msg[:400])
    return out[:limit]


def origin_names(node):
    """The node's own name, then the names of the nodes it was made from (meta from_node, newest
    first, depth first): qnnrules.executorch.origin_names."""
    return _skip_module().origin_names(node)


@functools.lru_cache(maxsize=None)
def _skip_module():
    """qnnrules.executorch from the source tree (it imports nothing else of the package), so a
    build tree that predates it still measures it."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "python", "qnnrules", "executorch.py")
    spec = importlib.util.spec_from_file_location("qnnrules_executorch_skips", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass looks its module up
    spec.loader.exec_module(mod)
    return mod


def lower(pt2, model, soc, out_json, skip_report=None):
    tap = LogTap(out_json + ".log")
    record = {"soc": soc, "pt2": os.path.basename(pt2), "nodes": [], "outcome": None}
    start = time.time()
    try:
        import torch
        import lower_models
        from executorch.backends.qualcomm.partition import qnn_partitioner as qp
        from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
        from executorch.backends.qualcomm.utils.utils import (
            generate_htp_compiler_spec, generate_qnn_executorch_compiler_spec, to_edge_transform_and_lower_to_qnn)

        ep = torch.export.load(pt2)
        pt2_compute = [n.name for n in ep.graph.nodes if n.op == "call_function" and not is_qdq(n.target)]
        record["pt2_compute_nodes"] = pt2_compute
        checks = {}

        original_check = qp.QnnOperatorSupport.is_node_supported

        def check(self, submodules, node):
            pos = tap.mark()
            err = None
            try:
                ok = original_check(self, submodules, node)
            except Exception as e:  # an op builder that raises: ExecuTorch's lowering fails there
                ok, err = None, f"{type(e).__name__}: {e}"
                raise
            finally:
                if node.op == "call_function" and node.name not in checks:
                    text = tap.since(pos)
                    checks[node.name] = {
                        "name": node.name, "target": str(node.target), "supported": ok,
                        "origin": origin_names(node), "qdq": is_qdq(node.target),
                        "messages": backend_lines(text), "exception": err,
                        "partitioner": [ln.split("| ", 1)[1].strip() for ln in text.splitlines()
                                        if "[QnnPartitioner]" in ln and "| " in ln][:1],
                    }
            return ok

        original_partition = qp.QnnPartitioner.partition

        def partition(self, edge_program):
            result = original_partition(self, edge_program)
            for n in edge_program.graph_module.graph.nodes:
                if n.op == "call_function" and n.name in checks:
                    checks[n.name]["partition"] = n.meta.get("delegation_tag")
            record["partitions"] = len({c.get("partition") for c in checks.values() if c.get("partition")})
            record["partitioned_at"] = round(time.time() - start, 1)
            return result

        qp.QnnOperatorSupport.is_node_supported = check
        qp.QnnPartitioner.partition = partition
        spec = generate_qnn_executorch_compiler_spec(
            soc_model=getattr(QcomChipset, soc), backend_options=generate_htp_compiler_spec(use_fp16=False))
        _, args = lower_models.build(model)
        skips = {}
        if skip_report:
            # The skip sets of qnnrules.executorch from qnn-validate's report on this .pt2 and SoC.
            t = time.time()
            sets = _skip_module().skip_sets(skip_report, program=ep, inputs=args)
            skips = {"skip_node_id_set": set(sets.node_ids), "skip_node_op_set": set()}
            record["skips"] = {"node_ids": sorted(sets.node_ids), "refused": sets.refused,
                               "unmatched": sets.unmatched, "blocking": sets.blocking,
                               "seconds": round(time.time() - t, 1)}
        pos = tap.mark()
        try:
            edge = to_edge_transform_and_lower_to_qnn(ep.module(), args, spec, **skips)
            graph = edge.exported_program().graph_module
            lowered = [m for name, m in graph.named_children() if name.startswith("lowered_module")]
            record["outcome"] = "lowered"
            record["context_binaries"] = [len(m.processed_bytes) for m in lowered]
            record["delegates"] = len(lowered)
        except Exception as e:
            record["outcome"] = "failed"
            record["stage"] = "partition" if "partitioned_at" not in record else "preprocess"
            record["exception"] = f"{type(e).__name__}: {str(e)[:800]}"
            record["traceback_tail"] = traceback.format_exc().splitlines()[-6:]
        record["backend_errors"] = backend_lines(tap.since(pos), limit=20)
        record["nodes"] = list(checks.values())
    except Exception as e:
        record["outcome"] = "error"
        record["exception"] = f"{type(e).__name__}: {str(e)[:800]}"
        record["traceback_tail"] = traceback.format_exc().splitlines()[-8:]
    record["seconds"] = round(time.time() - start, 1)
    with open(out_json, "w") as f:
        json.dump(record, f, indent=1)
    return record


def main():
    task = sys.argv[1]
    if task == "quantize":
        bias = None
        argv = sys.argv[2:]
        if "--bias-scale" in argv:
            i = argv.index("--bias-scale")
            bias = float(argv[i + 1])
            argv = argv[:i] + argv[i + 2:]
        model, quantizer, config, out = argv
        print(json.dumps(quantize(model, quantizer, config, out, bias)))
    elif task == "lower":
        pt2, model, soc, out = sys.argv[2:6]
        skip_report = sys.argv[sys.argv.index("--skips") + 1] if "--skips" in sys.argv else None
        r = lower(pt2, model, soc, out, skip_report)
        print(json.dumps({"outcome": r["outcome"], "seconds": r["seconds"]}))
    else:
        raise SystemExit(f"unknown task {task}")


if __name__ == "__main__":
    main()
