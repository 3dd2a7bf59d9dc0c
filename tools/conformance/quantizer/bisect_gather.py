"""Bisects the V68 graph-finalize failure of our Quantizer's Llama (issue 22) on the real backend.

  .venv/bin/python -m conformance.quantizer.bisect_gather [--socs SM8350,SM8650] [--out FILE]
(with tools/ on PYTHONPATH). Writes tests/conformance/quantizer/bisect_gather.json.

The quantizer suite's llama/<config>/SM8350 sessions fail at graph finalize ("could not create
op: q::Gather", QNN_COMMON_ERROR_MEM_ALLOC) although QNN's op validation accepted every node. In
the exported model the embedding is DQ(table) -> Gather -> Q(s1) -> DQ(s1) -> Q(s2) -> DQ(s2):
the converted GraphModule has a no-op `aten.to.dtype` (transformers' RMSNorm casts its input to
float32) between the two pairs, annotated with its own encoding s2 (as ExecuTorch's quantizer
annotates a cast), and torch.onnx drops the no-op cast. Each case below is a small ONNX model
around one Gather, run through the oracle (conformance.worker: ONNX Runtime's QNN EP on the
wheel's libQnnHtp.so for the SoC, graph finalize on), with ORT's default optimizations (as users
run it) or none. Per run it records whether the graph finalized, the datatypes QNN's op
validation logged for the Gather (FLOAT_32 when ORT did not group DQ -> Gather -> Q into one
quantized op), the QNN op types the EP composed, and the finalize errors.

The encodings are the Llama's (8a8w: table scale 0.0006054315, zero point 136; the cast's scale
0.0005714113; 16a8w: 2.3557645e-06, 35029 and the same ratio); the table is 128 x 64 with seeded
random values unless a case says otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from .. import logparse
from .. import oracle
from ..cases import SOCS
from ..record import write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(ROOT, "tests", "conformance", "quantizer", "bisect_gather.json")
OPSET = 21
ENC = {8: (0.0006054315017536283, 136, 0.0005714112776331604),
       16: (2.3557645e-06, 35029, 2.3557645e-06 * 0.0005714112776331604 / 0.0006054315017536283)}

# name: (what it tests, builder arguments). `after` is what follows the Gather's Q(s1) -> DQ(s1):
#   none      DQ(s1) feeds the consumer: the Gather's output keeps the table's encoding
#   requant   DQ(s1) -> Q(s2) -> DQ(s2): the exported Llama (torch.onnx dropped the no-op cast)
#   cast      DQ(s1) -> Cast(float32) -> Q(s2) -> DQ(s2): the model suite's qwen2 / gpt2 (a Cast ORT
#             removes, CastElimination)
#   fanout    as requant, and DQ(s1) also feeds a second consumer (Q1 -> DQ1 has two readers)
#   equal     DQ(s1) -> Q(s1) -> DQ(s1): a requantization to the same encoding
# `direct` writes the Gather's Q with scale s2 (no pair in between: the rule
# gather-ungrouped-on-scale-change's own case).
CASES = {
    "shared": ("the Gather's output keeps the table's encoding", dict(after="none")),
    "requant": ("the exported Llama: Q(s1) -> DQ(s1) -> Q(s2) -> DQ(s2) after the Gather", dict(after="requant")),
    "requant_no_ort_opt": ("the same model with ORT's graph optimizations off (ExecuTorch's lowering: "
                           "the pair stays a QNN Convert)", dict(after="requant", optimize=False)),
    "requant_cast": ("a Cast to float32 between the pairs (the model suite's qwen2 / gpt2)", dict(after="cast")),
    "requant_fanout": ("as requant, DQ(s1) also read by a second consumer", dict(after="fanout")),
    "requant_equal": ("a requantization to the same encoding", dict(after="equal")),
    "direct_scale_change": ("the Gather's Q has scale s2 directly", dict(after="none", direct=True)),
    "requant_16bit": ("as requant, 16-bit table and activations (16a8w's encodings)", dict(after="requant", bits=16)),
    "shared_16bit": ("as shared, 16-bit", dict(after="none", bits=16)),
    "requant_int32_index": ("as requant, int32 indices", dict(after="requant", index="int32")),
    "requant_small_table": ("as requant, a 16 x 8 table", dict(after="requant", rows=16, cols=8)),
    "requant_activation_table": ("as requant, the table a graph input (Q -> DQ), not a constant",
                                 dict(after="requant", table_input=True)),
}


def build(after, bits=8, index="int64", rows=128, cols=64, direct=False, table_input=False, optimize=True):
    """The ONNX model of one case (bytes)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    del optimize  # a session option, not part of the model
    s1, z, s2 = ENC[bits]
    qt = TensorProto.UINT8 if bits == 8 else TensorProto.UINT16
    npq = np.uint8 if bits == 8 else np.uint16
    rng = np.random.default_rng(0)
    hi = 255 if bits == 8 else 65535
    inits = [numpy_helper.from_array(np.array(s1, np.float32), "s1"),
             numpy_helper.from_array(np.array(s2, np.float32), "s2"),
             numpy_helper.from_array(np.array(z, npq), "z"),
             numpy_helper.from_array(np.array(1 / 256 if bits == 8 else 1 / 65536, np.float32), "s_sig"),
             numpy_helper.from_array(np.array(0, npq), "z0")]
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64 if index == "int64" else TensorProto.INT32, [1, 16])
    inputs, nodes = [ids], []
    if table_input:
        inputs.append(helper.make_tensor_value_info("table_f", TensorProto.FLOAT, [rows, cols]))
        nodes.append(helper.make_node("QuantizeLinear", ["table_f", "s1", "z"], ["table_q"], name="q_table"))
    else:
        inits.append(numpy_helper.from_array(rng.integers(0, hi + 1, (rows, cols)).astype(npq), "table_q"))
    nodes += [helper.make_node("DequantizeLinear", ["table_q", "s1", "z"], ["table"], name="dq_table"),
              helper.make_node("Gather", ["table", "ids"], ["g"], name="gather", axis=0),
              helper.make_node("QuantizeLinear", ["g", "s2" if direct else "s1", "z"], ["g_q"], name="q1"),
              helper.make_node("DequantizeLinear", ["g_q", "s2" if direct else "s1", "z"], ["g_dq"], name="dq1")]
    outputs = ["y"]
    last = "g_dq"
    if after in ("requant", "fanout", "equal", "cast"):
        src = "g_dq"
        if after == "cast":
            nodes.append(helper.make_node("Cast", ["g_dq"], ["g_cast"], name="cast", to=TensorProto.FLOAT))
            src = "g_cast"
        s = "s1" if after == "equal" else "s2"
        nodes += [helper.make_node("QuantizeLinear", [src, s, "z"], ["r_q"], name="q2"),
                  helper.make_node("DequantizeLinear", ["r_q", s, "z"], ["r_dq"], name="dq2")]
        last = "r_dq"
        if after == "fanout":
            nodes += [helper.make_node("Sigmoid", ["g_dq"], ["f"], name="sigmoid_fanout"),
                      helper.make_node("QuantizeLinear", ["f", "s_sig", "z0"], ["f_q"], name="q_fanout"),
                      helper.make_node("DequantizeLinear", ["f_q", "s_sig", "z0"], ["y2"], name="dq_fanout")]
            outputs.append("y2")
    # A quantized consumer, so that the last pair is inside the QNN graph as in the Llama.
    nodes += [helper.make_node("Sigmoid", [last], ["sg"], name="sigmoid"),
              helper.make_node("QuantizeLinear", ["sg", "s_sig", "z0"], ["sg_q"], name="q_out"),
              helper.make_node("DequantizeLinear", ["sg_q", "s_sig", "z0"], ["y"], name="dq_out")]
    outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, [1, 16, cols]) for o in outputs]
    g = helper.make_graph(nodes, "bisect_gather", inputs, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = 10
    onnx.checker.check_model(m)
    return m.SerializeToString()


_GATHER_TYPES = re.compile(r"Checking input and output constraints for Gather with input datayptes = "
                           r"\[\[<QnnDatatype\.QNN_DATATYPE_(\w+):")
_COMPOSED = re.compile(r"ComposeQnnGraph\] Qnn_OpConfig node name: \S+ package_name: \S+ QNN_op_type: (\w+)")


def run(model_bytes, soc_id, optimize):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.onnx")
        with open(path, "wb") as f:
            f.write(model_bytes)
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        args = [sys.executable, "-m", "conformance.worker", path, str(soc_id)] + (["default"] if optimize else [])
        p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    out = p.stdout.strip().splitlines()
    result = json.loads(out[-1]) if out else {"error": f"worker exited {p.returncode}", "assigned": {}}
    _, finalize = logparse.parse(p.stderr)
    gather_types = _GATHER_TYPES.findall(p.stderr)
    return {"outcome": "session-failure" if result["error"] else "finalized",
            "session_error": result["error"].splitlines()[0][:300] if result["error"] else None,
            # The last validation of the Gather counts (the EP asks twice, around its layout pass).
            "qnn_gather_data_type": gather_types[-1] if gather_types else None,
            "qnn_ops": sorted(set(_COMPOSED.findall(p.stderr))),
            "finalize_errors": sorted(set(finalize.values())),
            "placement": {n: ep for n, ep in sorted(result["assigned"].items()) if n in ("gather",)}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socs", default="SM8350,SM8650")
    ap.add_argument("--only", default=None, help="comma-separated case names")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args(argv)
    socs = {s: (sid, arch) for s, sid, arch in SOCS}
    names = a.only.split(",") if a.only else list(CASES)
    records = []
    if os.path.exists(a.out):  # cases not selected are kept as recorded
        with open(a.out) as f:
            records = [r for r in json.load(f)["cases"] if r["case"] not in names]
    for name in names:
        what, kw = CASES[name]
        blob = build(**kw)
        for soc in a.socs.split(","):
            sid, arch = socs[soc]
            r = run(blob, sid, kw.get("optimize", True))
            records.append({"id": f"{name}/{soc}", "case": name, "what": what, "soc": soc, "arch": arch,
                            "ort_optimizations": "default" if kw.get("optimize", True) else "off",
                            "model": {k: v for k, v in kw.items() if k != "optimize"}, **r})
            print(f"{name}/{soc}: {r['outcome']} gather={r['qnn_gather_data_type']} ops={r['qnn_ops']}",
                  file=sys.stderr, flush=True)
    head = {"about": "tools/conformance/quantizer/bisect_gather.py: the V68 finalize failure of the quantizer "
                     "suite's Llama, bisected around one Gather", "versions": oracle.versions(), "opset": OPSET,
            "encodings": {str(k): {"table_scale": v[0], "zero_point": v[1], "requant_scale": v[2]}
                          for k, v in ENC.items()}}
    order = list(CASES)
    write(a.out, head, sorted(records, key=lambda r: (order.index(r["case"]), r["soc"])))


if __name__ == "__main__":
    main()
