"""The skip sets measured on lowerings that fail (issue 33, "act on the verdict").

    .venv/bin/python tools/conformance/executorch/skip_cases.py [--cases ID,...] [--validate PATH/qnn-validate]

For each case (MODEL/QUANTIZER/CONFIG/SOC of the suite whose lowering fails), qnn-validate's strict
report on its .pt2, plus the refusals of this file's own list of ExecuTorch behaviours
(proposed_refusals: a quantized binary element-wise op with a Python number operand; a quantized op
ExecuTorch decomposes after quantization; max_pool2d without its stride — written before the engine
checked them, rules/lowering/executorch.yaml; they now add nothing to its verdict) and the nodes
--refuse names, is handed to
qnnrules.executorch.skip_sets,
and the case is lowered again with the sets (lower_worker.py lower ... --skips). The outcome with
and without is written to tests/conformance/executorch/lowering/skips.json.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lower  # noqa: E402
import lower_env  # noqa: E402

ROOT = lower_env.ROOT
OUT = os.path.join(lower.DATA, "skips.json")
# Ops ExecuTorch decomposes after quantization, leaving the new tensors float32 (executorch.yaml, 5).
DECOMPOSED_LATE = {"aten.silu.default", "aten.softplus.default", "aten.addmm.default", "aten.leaky_relu.default"}
SCALAR_BINARY = {"aten.add.Tensor", "aten.add.Scalar", "aten.sub.Tensor", "aten.sub.Scalar", "aten.rsub.Scalar",
                 "aten.rsub.Tensor", "aten.mul.Tensor", "aten.mul.Scalar", "aten.div.Tensor", "aten.div.Scalar"}


def proposed_refusals(pt2):
    """[(node, op, code, message)] of the two path behaviours the engine does not check yet."""
    import torch
    import executorch.backends.qualcomm.partition.qnn_partitioner  # noqa: F401  (registers the Q/DQ ops)
    ep = torch.export.load(pt2)
    out = []
    for n in ep.graph.nodes:
        if n.op != "call_function":
            continue
        t = str(n.target)
        if t in SCALAR_BINARY and any(isinstance(a, (int, float)) for a in n.args[:2]):
            quantized = any(isinstance(a, torch.fx.Node) and "dequantize" in str(a.target) for a in n.args[:2])
            if quantized:
                out.append((n.name, t, "lowering-check", "a Python number operand becomes a float32 tensor "
                                                         "(LiftConstantScalarOperands); QNN refuses the mixed datatypes"))
        if t in DECOMPOSED_LATE and any(isinstance(a, torch.fx.Node) and "dequantize" in str(a.target)
                                        for a in n.args[:3]):
            out.append((n.name, t, "lowering-check", "decomposed by ExecuTorch after quantization: its new "
                                                     "tensors are float32 and QNN refuses the mix"))
        if t == "aten.max_pool2d.default" and len(n.args) < 3:
            out.append((n.name, t, "lowering-check", "max_pool2d without its stride: ExecuTorch's builder raises"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="act_probe/qnnrules/8a8w/SM8650,cnn_plain/executorch/8a8w/SM8550,"
                                       "distilbert_layer/executorch/16a8w/SM8350,gpt2_layer/qnnrules/8a8w/SM8850,"
                                       "llama_layer/qnnrules/8a8w/SM8350,mlp/executorch/8a8w/SM8650")
    ap.add_argument("--validate", default=os.path.join(ROOT, "build", "tools", "qnn-validate", "qnn-validate"))
    ap.add_argument("--build", default=lower_env.DEFAULT_BUILD)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--refuse", default="mlp/executorch/8a8w/SM8650=linear_1",
                    help="CASE=NODE,...: also refuse these .pt2 nodes of a case, as a verdict might (e.g. "
                         "mlp/executorch/8a8w/SM8650=linear_1: what skipping a node that reads a quantized weight does)")
    a = ap.parse_args()
    env = lower_env.prepare(a.build)
    verdicts = lower.load(os.path.join(lower.DATA, "verdicts.json"))["cases"]
    doc = lower.load(OUT) or {}
    doc["about"] = ("The skip sets of qnnrules.executorch measured on ExecuTorch's lowering (issue 33): each case "
                    "lowered with skip_node_id_set from qnnrules.executorch.skip_sets; recorded by "
                    "tools/conformance/executorch/skip_cases.py")
    doc.setdefault("cases", {})
    for cid in a.cases.split(","):
        model, _, _, soc = cid.split("/")
        case = verdicts[cid]
        pt2 = os.path.join(a.build, "pt2", case["pt2"])
        if not os.path.exists(pt2):  # unpacked from the data (lower.store_pt2)
            import lower_compare
            lower_compare.unpack(os.path.join(lower.DATA, "pt2"), [{"file": case["pt2"]}], os.path.dirname(pt2))
        p = subprocess.run([a.validate, pt2, "--backend", "htp", "--soc", soc, "--format", "json"],
                           capture_output=True, text=True, env=dict(env, QNNRULES_PATH=""))
        report = json.loads(p.stdout)
        extra = proposed_refusals(pt2)
        for item in filter(None, a.refuse.split(";")):
            rc_id, nodes = item.split("=")
            if rc_id == cid:
                extra += [(n, "", "forced", "refused by --refuse") for n in nodes.split(",")]
        fallbacks = report.setdefault("delegation", {}).setdefault("fallbacks", [])
        known = {f.get("node") for f in fallbacks}
        for node, op, code, msg in extra:
            if node not in known:
                fallbacks.append({"node": node, "op": op, "code": code, "reason": code, "message": msg})
        rpath = os.path.join(a.build, "records", f"{case['pt2'][:-4]}.{soc}.skips-report.json")
        with open(rpath, "w") as f:
            json.dump(report, f)
        rec = os.path.join(a.build, "records", f"{case['pt2'][:-4]}.{soc}.skips.json")
        rc, _ = lower.run([sys.executable, lower.WORKER, "lower", pt2, model, soc, rec, "--skips", rpath], env,
                          a.timeout, os.path.join(a.build, "logs", f"{case['pt2'][:-4]}.{soc}.skips.lower.log"))
        raw = lower.load(rec) if rc != "timeout" else {"outcome": "error", "exception": "timeout"}
        s = lower.summarize(raw, rc)
        doc["cases"][cid] = {
            "without": {"outcome": case["outcome"], "stage": case.get("stage"), "exception": (case.get("exception") or "")[:300]},
            "verdict": {"qnn_validate": report.get("verdict", {}).get("kind"),
                        "qnn_validate_refused": sorted(known - {None}),
                        "proposed_refused": sorted(n for n, *_ in extra)},
            "with": {"outcome": s["outcome"], "partitions": s.get("partitions"), "skips": raw.get("skips"),
                     "exception": s.get("exception"), "backend_errors": (s.get("backend_errors") or [])[:3]},
        }
        lower.save(doc, OUT)
        print(cid, case["outcome"], "->", s["outcome"], s.get("partitions"), (raw.get("skips") or {}).get("node_ids"),
              flush=True)


if __name__ == "__main__":
    main()
