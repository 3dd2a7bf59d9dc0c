#!/usr/bin/env python3
"""Writes the hand-written rule fixtures of tests/rules/htp/ (graph format v1, docs/graph-format.md).

One graph per op family of rules/htp/ops/*.yaml. Each call node is one case taken from the
reference quantizer's behaviour (shared/reference/executorch-qnn-quantizer.md, [ET §n]) or
from the QNN constraint sources (qnn-constraints.md, [QC §n]): either it must pass, or it must
produce exactly the diagnostics listed for it. The expectations live in the graph's top-level
"meta" object, which the graph reader ignores:

  "meta": {"soc": "SM8650",
           "expect": [{"node": "sig_bad", "code": "fixed-scale", "rule": "htp.sigmoid",
                       "port": "out[0] output", "message": "output must have ..."}],
           "notes": {"<node>": "why this case exists / where the rule and a source differ"}}

Every node not listed must produce no diagnostic at all (warnings included). Messages are written
out here in full, as the text a user reads; tests/unit/RuleFixtureTest.cpp compares them exactly.

A family whose cases depend on the architecture (gates) is also written for older SoCs as
<family>.<soc>.json: the same nodes, with that SoC's expectations.

Run: python3 tests/rules/make_fixtures.py [OUT_DIR]. The JSON files are committed; edit the cases
here and regenerate, never the JSON by hand.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

MAIN_SOC = "SM8650"  # V75: every non-gated variant available, the V73 and V69 gates open


# --- quant specs, spelled the way the reference quantizer writes them [ET §4] ---------------------

def u8(scale=0.02, zp=128):
    return {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine",
            "scale": scale, "zero_point": zp}


def u8_per_channel(scale, zp, channels=8):
    # A per-channel activation: activations are per-tensor in every config of the reference [ET §4].
    return {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_channel_affine", "ch_axis": 1,
            "scale": [scale] * channels, "zero_point": [zp] * channels}


def u16(scale=0.0005, zp=32768):
    # 16-bit activations are torch.int32 with range 0..65535 [ET §4].
    return {"dtype": "int32", "quant_min": 0, "quant_max": 65535, "qscheme": "per_tensor_affine",
            "scale": scale, "zero_point": zp}


def s16_sym(scale=0.0003):
    # 16a16w weight spec: int16 -32767..32767 per-tensor symmetric [ET §4.1].
    return {"dtype": "int16", "quant_min": -32767, "quant_max": 32767, "qscheme": "per_tensor_symmetric",
            "scale": scale, "zero_point": 0}


def w8_pt(scale=0.01):
    return {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_tensor_symmetric",
            "scale": scale, "zero_point": 0}


def w8_pc(channels, axis=0):
    return {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric",
            "ch_axis": axis, "scale": [0.01] * channels, "zero_point": [0] * channels}


def w4_pc(channels, axis=0):
    return {"dtype": "int8", "quant_min": -7, "quant_max": 7, "qscheme": "per_channel_symmetric",
            "ch_axis": axis, "scale": [0.05] * channels, "zero_point": [0] * channels}


def w4_block(channels, block):
    # get_ptq_per_block_quant_config: int4 as int8 -7..7, per_channel_symmetric, block_size [ET §4.2, §4.4].
    return {"dtype": "int8", "quant_min": -7, "quant_max": 7, "qscheme": "per_channel_symmetric",
            "ch_axis": 0, "block_size": block, "scale": [0.05] * channels, "zero_point": [0] * channels}


def w2_pc(channels):
    # 16a2w per-channel weight: int8 -2..1 [ET §4.2].
    return {"dtype": "int8", "quant_min": -2, "quant_max": 1, "qscheme": "per_channel_symmetric",
            "ch_axis": 0, "scale": [0.1] * channels, "zero_point": [0] * channels}


def bias32(scale=0.0002):
    # Bias: int32 symmetric, offset 0 [ET §4.1, §4.2].
    return {"dtype": "int32", "qscheme": "per_tensor_symmetric", "scale": scale, "zero_point": 0}


def shared_node(node, output=0):
    ref = {"node": node}
    if output:
        ref["output"] = output
    return {"shared_with": ref}


def shared_edge(producer, consumer):
    return {"shared_with": {"edge": [producer, consumer]}}


# --- expected diagnostic messages (the engine's sentences, written out) ---------------------------

def no_variant(rule, qnn_op):
    return f"no variant of {rule} ({qnn_op}) accepts these port datatypes."


def symmetric(port):
    return f"{port} must be symmetrically quantized (offset 0 for SFIXED, -2^(n-1) for UFIXED)."


def axis(port, a):
    return f"{port} must be quantized per channel along axis {a}."


def encoding(port, encodings):
    return f"{port} must use {encodings} encoding."


def shared(port, other):
    return f"{port} must share the encoding of {other} (math-invariant)."


def fixed(port, scale_text, value, offset):
    return f"{port} must have scale {scale_text} ({'%.9g' % value}) and offset {offset}."


GATE_16X16 = "16-bit activations with 16-bit weights need HTP V73 or newer."
GATE_LPBQ = "Block-wise (LPBQ) weights need HTP V69 or newer."


def E(code, rule, message, port=None):
    e = {"code": code, "rule": rule}
    if port is not None:
        e["port"] = port
    e["message"] = message
    return e


def recommended(e):
    """A recommended constraint (`recommended:` in the rule) missed: a warning with its sentence."""
    return dict(e, message="recommended: " + e["message"] + " The backend accepts the node without it.")


def derive_bias(args):
    """conv/linear(input, weight, bias): the int32 bias edge gets scale = input scale x weight
    scale, as the reference derives it [ET §4.1] (qnn-validate reports any other as bias-scale)."""
    if len(args) < 3 or not all(isinstance(a, dict) and "qspec" in a for a in args[:3]):
        return args
    x, w, b = (a["qspec"] for a in args[:3])
    if b.get("dtype") != "int32" or "scale" not in x or "scale" not in w or "scale" not in b:
        return args
    ws = w["scale"] if isinstance(w["scale"], list) else [w["scale"]]
    scales = [x["scale"] * s for s in ws]
    bias = dict(b)
    if isinstance(b["scale"], list):
        bias["scale"] = scales[:len(b["scale"])]
    else:
        bias["scale"] = scales[0]
    return [args[0], args[1], dict(args[2], qspec=bias)] + list(args[3:])


class Fixture:
    """One family's graph; `socs` lists the SoCs it is written for (the first is <family>.json)."""

    def __init__(self, family, description, socs=(MAIN_SOC,)):
        self.family = family
        self.description = description
        self.socs = list(socs)
        self.nodes = []
        self.out_qspec = {}
        self.expect = {soc: [] for soc in self.socs}
        self.notes = {}
        self.names = set()

    def _add(self, node):
        assert node["name"] not in self.names, node["name"]
        self.names.add(node["name"])
        self.nodes.append(node)
        return node["name"]

    def input(self, name, shape, qspec=None, dtype="float32"):
        out = {"dtype": dtype, "shape": shape}
        if qspec is not None:
            out["qspec"] = qspec
        self.out_qspec[name] = qspec
        return self._add({"name": name, "kind": "input", "outputs": [out]})

    def param(self, name, shape, qspec=None, dtype="float32"):
        out = {"dtype": dtype, "shape": shape}
        if qspec is not None:
            out["qspec"] = qspec
        self.out_qspec[name] = qspec
        return self._add({"name": name, "kind": "parameter", "outputs": [out]})

    def ref(self, producer, qspec="same", output=0):
        """A tensor argument; by default the edge carries the producer's output encoding."""
        r = {"ref": producer}
        if output:
            r["output"] = output
        q = self.out_qspec.get(producer) if qspec == "same" else qspec
        if q is not None:
            r["qspec"] = q
        return r

    def case(self, name, target, args, outputs, expect=(), note=None, kwargs=None):
        """A call node. `outputs`: list of (dtype, shape, qspec|None). `expect`: a list of E(...)
        on every SoC, or {soc: [E...], "*": [E...]} per SoC ("*" for the others)."""
        outs = []
        for dtype, shape, q in outputs:
            o = {"dtype": dtype, "shape": shape}
            if q is not None:
                o["qspec"] = q
            outs.append(o)
        self.out_qspec[name] = outputs[0][2] if outputs else None
        if target.startswith(("aten.conv", "aten.linear")):
            args = derive_bias(args)
        node = {"name": name, "kind": "call", "target": target, "args": args, "outputs": outs}
        if kwargs:
            node["kwargs"] = kwargs
        self._add(node)
        per_soc = expect if isinstance(expect, dict) else {"*": list(expect)}
        for soc in self.socs:
            for e in per_soc.get(soc, per_soc.get("*", [])):
                self.expect[soc].append(dict({"node": name}, **e))
        if note:
            self.notes[name] = note
        return name

    def write(self, out_dir):
        written = []
        for i, soc in enumerate(self.socs):
            file = f"{self.family}.json" if i == 0 else f"{self.family}.{soc.lower()}.json"
            calls = [n["name"] for n in self.nodes if n["kind"] == "call"]
            doc = {"format": "qnnrules-graph", "version": 1, "name": f"fixture_{self.family}_{soc.lower()}",
                   "meta": {"description": self.description, "generator": "tests/rules/make_fixtures.py",
                            "backend": "htp", "soc": soc, "expect": self.expect[soc]},
                   "nodes": self.nodes + [{"name": "output", "kind": "output",
                                           "args": [[{"ref": c} for c in calls]]}]}
            if self.notes:
                doc["meta"]["notes"] = self.notes
            path = os.path.join(out_dir, file)
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
            os.replace(tmp, path)
            written.append(path)
        return written


T = [1, 8, 16, 16]  # activation shape used throughout


def std_inputs(fx):
    fx.input("x8", T, u8())
    fx.input("x16", T, u16())


def elementwise():
    fx = Fixture("elementwise", "Element-wise arithmetic and unary math (rules/htp/ops/elementwise.yaml).",
                 socs=(MAIN_SOC, "SM8350"))
    std_inputs(fx)
    fx.input("x8b", T, u8(0.03, 100))
    fx.input("ids", [1, 16], dtype="int64")
    fx.input("xf", T)
    # Binary ops: both operands and the output take the activation spec (BIN [ET §1]).
    fx.case("add8", "aten.add.Tensor", [fx.ref("x8"), fx.ref("x8b")], [("float32", T, u8(0.04, 120))])
    fx.case("mul16", "aten.mul.Tensor", [fx.ref("x16"), fx.ref("x16")], [("float32", T, u16(0.0009, 30000))])
    # A number operand is lifted to a constant tensor (LiftConstantScalarOperands [ET §0]) of
    # float32 with no encoding, so QNN refuses the mix with the quantized input (lowering oracle
    # scalar_probe/qnnrules/8a8w/SM8650: 1.0 - h refused; rules/lowering/executorch.yaml
    # number_operands_float32). A quantizer that lifts and annotates it first is delegated.
    fx.case("rsub_scalar", "aten.rsub.Tensor", [fx.ref("x8"), 1.0], [("float32", T, u8(0.02, 60))],
            expect=[E("no-matching-variant", "htp.sub", no_variant("htp.sub", "ElementWiseSubtract"), port="in[1] other")])
    # Aliases torch.export keeps, sub/div after the core-ATen decompositions ExecuTorch applies
    # (lowering oracle alias_probe/qnnrules/8a8w/SM8650, scalar_probe/executorch/8a8w/SM8650).
    fx.case("subtract8", "aten.subtract.Tensor", [fx.ref("x8"), fx.ref("x8b")], [("float32", T, u8(0.04, 120))])
    fx.case("true_divide8", "aten.true_divide.Tensor", [fx.ref("x8"), fx.ref("x8b")], [("float32", T, u8(0.04, 120))])
    fx.case("rsub_number8", "aten.rsub.Scalar", [fx.ref("x8"), 1.0], [("float32", T, u8(0.02, 60))],
            expect=[E("no-matching-variant", "htp.sub", no_variant("htp.sub", "ElementWiseSubtract"), port="in[1] other")])
    # Integer arithmetic on position ids is never annotated (float tensors only [ET §1]).
    fx.case("sub_ids", "aten.sub.Tensor", [fx.ref("ids"), fx.ref("ids")], [("int64", [1, 16], None)])
    # pow: only the base is annotated, the exponent stays a constant (SISO [ET §2 Pow]).
    fx.case("pow_sq", "aten.pow.Tensor_Scalar", [fx.ref("x8"), 2.0], [("float32", T, u8(0.05, 0))])
    # rsqrt: qnn_op=None in the reference (never validated); checked here as ElementWiseRsqrt.
    fx.case("rsqrt16", "aten.rsqrt.default", [fx.ref("x16")], [("float32", T, u16(0.001, 0))])
    fx.case("asin8", "aten.asin.default", [fx.ref("x8")], [("float32", T, u8(0.012, 128))])
    # Float (fp16 on HTP): [QC §1.1] said V69+, the conformance oracle runs it on V68 too.
    fx.case("div_float", "aten.div.Tensor", [fx.ref("xf"), fx.ref("xf")], [("float32", T, None)],
            note="The conformance oracle validates and finalizes float16 on V68 (div/fp32/SM8350), so no arch gate.")
    fx.case("asin16", "aten.asin.default", [fx.ref("x16")], [("float32", T, u16(0.0001, 32768))],
            note="AIMET's V75 kernel table lists ElementWiseAsin as a8 only [QC §4.4], but the conformance "
                 "oracle accepts 16 bits (asin/16a/<SoC>).")
    # Ops ONNX graphs carry (issue 21), each measured on the oracle.
    fx.case("reciprocal8", "aten.reciprocal.default", [fx.ref("x8")], [("float32", T, u8(0.05, 0))],
            note="ONNX Reciprocal: ORT's QNN EP builds ElementWiseDivide(1, x); accepted (reciprocal/8a/<SoC>).")
    fx.case("tan16", "aten.tan.default", [fx.ref("x16")], [("float32", T, u16(0.001, 32768))])
    fx.case("softplus_float", "aten.softplus.default", [fx.ref("xf")], [("float32", T, None)])
    fx.case("div_ids", "aten.div.Tensor", [fx.ref("ids"), fx.ref("ids")], [("int64", [1, 16], None)],
            note="Integer division of shape values (torch.onnx's int64 Div): accepted (div/int64/<SoC>).")
    fx.case("reciprocal_mixed", "aten.reciprocal.default", [fx.ref("x8")], [("float32", T, u16(0.001, 0))],
            expect=[E("no-matching-variant", "htp.reciprocal", no_variant("htp.reciprocal", "ElementWiseDivide"))])
    # One config per node: mixed 8-/16-bit operands need a requantize first.
    fx.case("add_mixed", "aten.add.Tensor", [fx.ref("x8"), fx.ref("x16")], [("float32", T, u8(0.04, 120))],
            expect=[E("no-matching-variant", "htp.add", no_variant("htp.add", "ElementWiseAdd"))])
    # Activations are per-tensor: a per-channel output encoding is rejected.
    fx.case("add_pc_out", "aten.add.Tensor", [fx.ref("x8"), fx.ref("x8b")],
            [("float32", T, u8_per_channel(0.04, 120))],
            expect=[E("encoding", "htp.add", encoding("output", "SCALE_OFFSET"), port="out[0] output")])
    fx.case("remainder_ids", "aten.remainder.Tensor", [fx.ref("ids"), fx.ref("ids")], [("int64", [1, 16], None)],
            expect={"SM8350": [E("arch-gate", "htp.remainder", "Integer remainder (QNN ElementWiseMod) needs HTP V69 or "
                                                               "newer (V68 cannot finalize it).")]},
            note="ONNX Mod (fmod=0): mod/int32/SM8350 fails finalize, V69+ accept it.")
    # Rank 4 is ElementWiseLog's limit in every datatype (explore cases log.r4, log.r5/<config>/<SoC>).
    R5 = [1, 2, 4, 16, 16]
    fx.input("x8_r5", R5, u8())
    fx.case("log_r4", "aten.log.default", [fx.ref("x8")], [("float32", T, u8(0.04, 200))])
    fx.case("log_r5", "aten.log.default", [fx.ref("x8_r5")], [("float32", R5, u8(0.04, 200))],
            expect=[E("rank", "htp.log", "QNN ElementWiseLog takes tensors of rank 4 or less.", port="in[0] input")])
    return fx


def activation():
    fx = Fixture("activation", "Activations with fixed output encodings (rules/htp/ops/activation.yaml).",
                 socs=(MAIN_SOC, "SM8350"))
    std_inputs(fx)
    fx.input("xf", T)
    fx.param("slope", [8], u8(0.001, 0))
    # Sigmoid / hardsigmoid: scale 1/(qmax-qmin+1), zero point 0 [ET §2].
    fx.case("sig8", "aten.sigmoid.default", [fx.ref("x8")], [("float32", T, u8(1 / 256, 0))])
    fx.case("sig16", "aten.sigmoid.default", [fx.ref("x16")], [("float32", T, u16(1 / 65536, 0))])
    fx.case("hsig8", "aten.hardsigmoid.default", [fx.ref("x8")], [("float32", T, u8(1 / 256, 0))])
    # 16-bit tanh: scale 1/32768, zero point 32768 (QNN offset -32768) [ET §2, QC §1.3].
    fx.case("tanh16", "aten.tanh.default", [fx.ref("x16")], [("float32", T, u16(1 / 32768, 32768))])
    # 8-bit tanh: a plain calibrated activation [ET §2 Tanh].
    fx.case("tanh8", "aten.tanh.default", [fx.ref("x8")], [("float32", T, u8(0.0078, 128))])
    # Softmax: no fixed encoding in the reference's annotation [ET §2 Softmax].
    fx.case("softmax8", "aten.softmax.int", [fx.ref("x8"), -1], [("float32", T, u8(0.0037, 0))])
    fx.case("relu8", "aten.relu.default", [fx.ref("x8")], [("float32", T, u8(0.01, 0))])
    fx.case("hardtanh16", "aten.hardtanh.default", [fx.ref("x16"), 0.0, 6.0], [("float32", T, u16(0.0001, 0))])
    fx.case("relu6_8", "aten.relu6.default", [fx.ref("x8")], [("float32", T, u8(6 / 255, 0))],
            note="ExecuTorch's to_edge rewrites relu6 to hardtanh(0, 6) (core-ATen decompositions): QNN "
                 "ReluMinMax, delegated (lowering oracle cnn_bn/executorch/<config>/<SoC>).")
    # PReLU: the slope gets the activation spec [ET §2 PReLU].
    fx.case("prelu8", "aten.prelu.default", [fx.ref("x8"), fx.ref("slope")], [("float32", T, u8(0.02, 120))])
    # 16-bit PReLU only with a one-value slope (max_elements: 1; conformance cases leaky_relu/16a/<SoC>
    # accepted, prelu/16a/<SoC> with a [1, 8, 1, 1] slope "could not create op"; lowering oracle
    # act_probe/executorch/16a8w/SM8650, a 0-d slope delegated).
    fx.param("slope1_16", [], u16(0.0001, 0))
    fx.param("slope8_16", [8], u16(0.0001, 0))
    fx.case("prelu16_one_slope", "aten.prelu.default", [fx.ref("x16"), fx.ref("slope1_16")],
            [("float32", T, u16(0.0009, 30000))])
    fx.case("prelu16_channel_slope", "aten.prelu.default", [fx.ref("x16"), fx.ref("slope8_16")],
            [("float32", T, u16(0.0009, 30000))],
            expect=[E("elements", "htp.prelu", "slope must hold at most 1 element.", port="in[1] slope")])
    fx.case("sig_float", "aten.sigmoid.default", [fx.ref("xf")], [("float32", T, None)],
            note="The conformance oracle validates and finalizes float16 on V68 (sigmoid/fp32/SM8350), so no arch gate.")
    s8 = fixed("output", "1/256", 1 / 256, 0)
    s16 = fixed("output", "1/65536", 1 / 65536, 0)
    t16 = fixed("output", "1/32768", 1 / 32768, -32768)
    fx.case("sig8_aimet", "aten.sigmoid.default", [fx.ref("x8")], [("float32", T, u8(1 / 255, 0))],
            expect=[recommended(E("fixed-scale", "htp.sigmoid", s8, port="out[0] output"))],
            note="AIMET V73+ fixes the sigmoid range [0, 1.0], scale 1/255; the reference and AI Hub use 1/256 "
                 "[QC §6.1]. The rule follows the reference.")
    fx.case("sig8_zp", "aten.sigmoid.default", [fx.ref("x8")], [("float32", T, u8(1 / 256, 128))],
            expect=[recommended(E("fixed-offset", "htp.sigmoid", s8, port="out[0] output"))])
    fx.case("sig16_aimet", "aten.sigmoid.default", [fx.ref("x16")], [("float32", T, u16(1 / 65535, 0))],
            expect=[E("fixed-scale", "htp.sigmoid", s16, port="out[0] output")])
    fx.case("hsig8_calibrated", "aten.hardsigmoid.default", [fx.ref("x8")], [("float32", T, u8(0.0035, 3))],
            expect=[recommended(E("fixed-scale", "htp.hardsigmoid", s8, port="out[0] output")),
                    recommended(E("fixed-offset", "htp.hardsigmoid", s8, port="out[0] output"))])
    fx.case("tanh16_zp0", "aten.tanh.default", [fx.ref("x16")], [("float32", T, u16(1 / 32768, 0))],
            expect=[E("fixed-offset", "htp.tanh", t16, port="out[0] output")],
            note="QNN SDK 2.28-2.30's validator demanded offset 0 for 16-bit Tanh, a validator bug "
                 "(onnxruntime #23432, [QC §6.3]); the documented encoding is offset -32768.")
    # Annotated before calibration: the fixed scale cannot be checked yet (a warning, not silence).
    unannotated16 = {"dtype": "int32", "quant_min": 0, "quant_max": 65535, "qscheme": "per_tensor_affine"}
    fx.case("sig16_uncalibrated", "aten.sigmoid.default", [fx.ref("x16")], [("float32", T, unannotated16)],
            expect=[E("unverifiable", "htp.sigmoid",
                      s16 + " This cannot be checked: the annotation has no scale yet.", port="out[0] output")])
    # Selu and ThresholdedRelu (issue 21): V68 finalizes them only in float16.
    gate_v69 = "This op needs HTP V69 or newer except in float16 (V68 cannot finalize it)."
    fx.input("xh_act", T, dtype="float16")
    fx.case("selu8", "aten.selu.default", [fx.ref("x8")], [("float32", T, u8(0.03, 60))],
            expect={"SM8350": [E("arch-gate", "htp.selu", gate_v69)]},
            note="selu/8a/SM8350: could not create op q::QNN_Elu; accepted from V69.")
    fx.case("threshold_half", "aten.threshold.default", [fx.ref("xh_act"), 1.0, 0.0], [("float16", T, None)],
            note="thresholded_relu/fp16/SM8350 is accepted: no gate in float16.")
    return fx


def conv():
    fx = Fixture("conv", "Convolution, linear and matmul: weights, bias and the V69/V73/V81 gates "
                         "(rules/htp/ops/conv.yaml).", socs=(MAIN_SOC, "SM8450", "SM8350", "SM8850"))
    std_inputs(fx)
    fx.input("v8", [1, 64], u8(0.02, 128))
    fx.input("v16", [1, 64], u16())
    fx.input("x16_5d", [1, 8, 4, 16, 16], u16())
    fx.input("xh", T, dtype="float16")
    fx.input("k8", [1, 8, 16, 16], u8(0.03, 110))
    fx.input("k16s", T, s16_sym())
    fx.input("k16_asym", T, u16(0.0004, 30000))
    fx.input("k16_usym", T, dict(u16(0.0004, 32768), qscheme="per_tensor_symmetric"))
    fx.param("w8", [16, 8, 3, 3], w8_pc(16))
    fx.param("w8_axis1", [16, 8, 3, 3], w8_pc(8, axis=1))
    fx.param("w8_pt", [16, 8, 1, 1], w8_pt())
    fx.param("w8_asym", [16, 8, 3, 3], {"dtype": "int8", "quant_min": -127, "quant_max": 127,
                                        "qscheme": "per_tensor_affine", "scale": 0.01, "zero_point": 3})
    fx.param("w4", [16, 8, 3, 3], w4_pc(16))
    fx.param("w16", [16, 8, 3, 3], s16_sym())
    fx.param("w16_3d", [16, 8, 3, 3, 3], s16_sym())
    fx.param("wt8", [8, 16, 3, 3], w8_pc(16, axis=1))  # transposed layout: (in, out, kh, kw)
    fx.param("wt8_axis0", [8, 16, 3, 3], w8_pc(8, axis=0))
    fx.param("wt16", [8, 16, 3, 3], s16_sym())
    fx.param("fc_w8u", [32, 64], {"dtype": "uint8", "qscheme": "per_tensor_symmetric", "scale": 0.01, "zero_point": 128})
    fx.param("fc_w16", [32, 64], s16_sym())
    fx.param("fc_wblock", [32, 64], w4_block(32, [1, 16]))
    fx.param("fc_w2", [32, 64], w2_pc(32))
    fx.param("fc_w2_pt", [32, 64], {"dtype": "int8", "quant_min": -2, "quant_max": 1,
                                    "qscheme": "per_tensor_symmetric", "scale": 0.1, "zero_point": 0})
    fx.param("wt1d_axis0", [8, 16, 3], w8_pc(8, axis=0))
    fx.param("b16", [16], bias32())
    fx.param("b32", [32], bias32())
    fx.param("b16_asym", [16], {"dtype": "int32", "qscheme": "per_tensor_affine", "scale": 0.0002, "zero_point": 5})
    fx.param("b16_float", [16])
    O16 = [1, 16, 16, 16]
    # 8a8w conv: per-channel weight on axis 0, int32 symmetric bias [ET §4.2, §4.3].
    fx.case("conv8", "aten.conv2d.default", [fx.ref("x8"), fx.ref("w8"), fx.ref("b16"), [1, 1], [1, 1]],
            [("float32", O16, u8(0.05, 120))])
    fx.case("conv8a4w", "aten.conv2d.default", [fx.ref("x8"), fx.ref("w4"), fx.ref("b16"), [1, 1], [1, 1]],
            [("float32", O16, u8(0.05, 120))])
    # Transposed conv: per-channel weight on axis 1 (op_axis_dict [ET §4.3]; ORT [QC §2]).
    fx.case("convt8", "aten.conv_transpose2d.input", [fx.ref("x8"), fx.ref("wt8"), fx.ref("b16")],
            [("float32", [1, 16, 18, 18], u8(0.05, 120))])
    # 16a8w PTQ weight: uint8 symmetric, zero point 128 [ET §4.1].
    fx.case("fc_16a8w", "aten.linear.default", [fx.ref("v16"), fx.ref("fc_w8u"), fx.ref("b32")],
            [("float32", [1, 32], u16(0.0007, 30000))])
    # 8-bit second matmul input: the activation spec, asymmetric [ET §2 MatMul].
    fx.case("mm8", "aten.matmul.default", [fx.ref("x8"), fx.ref("k8")], [("float32", T, u8(0.1, 128))])
    # fp16 activations with int8 weights: Conv2d 1x1 and Linear (PR #19537 [ET §4.1]).
    fx.case("conv_fp16a8w", "aten.conv2d.default", [fx.ref("xh"), fx.ref("w8_pt"), fx.ref("b16_float")],
            [("float16", O16, None)],
            note="The conformance oracle validates and finalizes float16 on V68 (conv2d/fp16a8w_pc/SM8350), so no arch gate.")
    # LPBQ (block-wise) weights: V69 or newer [ET §2 Linear, §8].
    fx.case("fc_lpbq", "aten.linear.default", [fx.ref("v16"), fx.ref("fc_wblock"), fx.ref("b32")],
            [("float32", [1, 32], u16(0.0007, 30000))],
            expect={"SM8350": [E("arch-gate", "htp.linear", GATE_LPBQ)]})
    # 16a16w: V73 or newer on conv, transpose-conv, linear and matmul. The reference compares the
    # weight dtype with int32, so its own check never fires [ET §11.1]; ours must.
    note16 = ("The reference's validate_16a16w_support never fires for conv/linear/transpose-conv (it compares "
              "the int16 weight with int32 [ET §11.1]); the V73 gate is from [ET §2] and AIMET [QC §4.3].")
    gate16 = {"SM8450": None, "SM8350": None}
    for name, target, args, shape, rule in (
            ("conv_16a16w", "aten.conv2d.default", [fx.ref("x16"), fx.ref("w16"), fx.ref("b16")], O16, "htp.conv2d"),
            ("convt_16a16w", "aten.conv_transpose2d.input", [fx.ref("x16"), fx.ref("wt16"), fx.ref("b16")],
             [1, 16, 18, 18], "htp.conv_transpose2d"),
            ("fc_16a16w", "aten.linear.default", [fx.ref("v16"), fx.ref("fc_w16"), fx.ref("b32")], [1, 32],
             "htp.linear")):
        fx.case(name, target, args, [("float32", shape, u16(0.0007, 30000))],
                expect={soc: [E("arch-gate", rule, GATE_16X16)] for soc in gate16}, note=note16)
    gate_mm = "16-bit activations with a 16-bit second input need HTP V73 or newer."
    fx.case("mm_16a16w", "aten.matmul.default", [fx.ref("x16"), fx.ref("k16s")], [("float32", T, u16(0.001, 32768))],
            expect={soc: [E("arch-gate", "htp.matmul", gate_mm)] for soc in gate16})
    # A uint16 second input is symmetric with zero point 32768 (offset -32768, ORT PR #765 [QC §2]).
    fx.case("mm_16a16w_usym", "aten.matmul.default", [fx.ref("x16"), fx.ref("k16_usym")],
            [("float32", T, u16(0.001, 32768))],
            note="No V73 gate for an unsigned symmetric second input: the oracle accepts it from V68 "
                 "(conformance case matmul/16a16a/SM8350); only a signed one needs V73.")
    # 16a2w: PR #19632 says SM8850 (V81) only [ET §8, §10]; the oracle accepts it from V68.
    fx.case("fc_16a2w", "aten.linear.default", [fx.ref("v16"), fx.ref("fc_w2"), fx.ref("b32")],
            [("float32", [1, 32], u16(0.0007, 30000))],
            note="Rule follows the conformance oracle, not PR #19632: linear/16a2w_pc/SM8350 is accepted.")
    # Failures on every SoC.
    fx.case("conv_axis1", "aten.conv2d.default", [fx.ref("x8"), fx.ref("w8_axis1"), fx.ref("b16")],
            [("float32", O16, u8(0.05, 120))],
            expect=[E("axis", "htp.conv2d", axis("weight", 0), port="in[1] weight")])
    fx.case("convt_axis0", "aten.conv_transpose2d.input", [fx.ref("x8"), fx.ref("wt8_axis0"), fx.ref("b16")],
            [("float32", [1, 16, 18, 18], u8(0.05, 120))],
            expect=[E("axis", "htp.conv_transpose2d", axis("weight", 1), port="in[1] weight")])
    fx.case("conv_w_asym", "aten.conv2d.default", [fx.ref("x8"), fx.ref("w8_asym"), fx.ref("b16")],
            [("float32", O16, u8(0.05, 120))],
            note="Accepted: 8-bit weights need not be symmetric (conformance case conv2d/8a8w_asym/<SoC>).")
    fx.case("conv_bias_asym", "aten.conv2d.default", [fx.ref("x8"), fx.ref("w8"), fx.ref("b16_asym")],
            [("float32", O16, u8(0.05, 120))],
            expect=[E("symmetric", "htp.conv2d", symmetric("bias"), port="in[2] bias")])
    # "SFIXED_POINT_16 Input1 must have UFIXED_POINT_16 Input0 and must be symmetric" [ET §2 MatMul].
    mm_asym = [E("symmetric", "htp.matmul", symmetric("other"), port="in[1] other")]
    fx.case("mm16_in1_asym", "aten.matmul.default", [fx.ref("x16"), fx.ref("k16_asym")],
            [("float32", T, u16(0.001, 32768))],
            expect=mm_asym)
    # addmm(bias, input, weight): checked as the MatMul (plus add) it is decomposed into [ET §0].
    fx.input("am_b8", [1, 32], u8(0.02, 128))
    fx.input("am_w8", [64, 32], u8(0.03, 110))
    fx.input("am_b16", [1, 32], u16())
    fx.input("am_w16_asym", [64, 32], u16(0.0004, 30000))
    # A quantized addmm reaches ExecuTorch's lowering whole only from a quantizer that does not
    # decompose it first, and the lowering's own decomposition then leaves the product without an
    # encoding (rules/lowering/executorch.yaml cpu form addmm-decomposed-after-quantization;
    # lowering oracle gpt2_layer/qnnrules/<config>/<SoC>).
    am_et = [E("lowering-check", "htp.addmm",
               "ExecuTorch decomposes addmm into mm and add when it lowers (DecomposeAddmm), after quantization; "
               "the product has no encoding and QNN refuses the quantized add of the bias")]
    fx.case("addmm8", "aten.addmm.default", [fx.ref("am_b8"), fx.ref("v8"), fx.ref("am_w8")],
            [("float32", [1, 32], u8(0.1, 128))], expect=am_et)
    am_asym = [E("symmetric", "htp.addmm", symmetric("weight"), port="in[2] weight")] + am_et
    fx.case("addmm16_w_asym", "aten.addmm.default", [fx.ref("am_b16"), fx.ref("v16"), fx.ref("am_w16_asym")],
            [("float32", [1, 32], u16(0.001, 32768))],
            expect={"*": am_asym, **{soc: [E("arch-gate", "htp.addmm", gate_mm)] + am_asym for soc in gate16}})
    # No a16w16 on Conv3d (AIMET V75 kernel table [QC §4.4, §6.11]).
    fx.case("conv3d_16a16w", "aten.conv3d.default", [fx.ref("x16_5d"), fx.ref("w16_3d"), fx.ref("b16")],
            [("float32", [1, 16, 2, 14, 14], u16(0.0007, 30000))],
            expect=[E("no-matching-variant", "htp.conv3d", no_variant("htp.conv3d", "Conv3d"))],
            note="The reference has no 16a16w check on Conv3d; AIMET's V75 backend-aware table lists a8w8, a16w8, "
                 "f16 and f32 for Conv3d and no a16w16 [QC §4.4]. The rule follows AIMET.")
    # conv_transpose1d is missing from the reference's op_axis_dict, so its per-channel config falls
    # back to axis 0 [ET §4.3]; the transposed weight's output channels are axis 1 [QC §2].
    fx.case("convt1d_axis0", "aten.conv_transpose1d.default", [fx.ref("v8"), fx.ref("wt1d_axis0"), fx.ref("b16")],
            [("float32", [1, 16, 66], u8(0.05, 120))],
            expect=[E("axis", "htp.conv_transpose2d", axis("weight", 1), port="in[1] weight")],
            note="Reference bug, rule right: op_axis_dict has no conv_transpose1d, so the reference quantizes its "
                 "weight per channel on axis 0 (get(target, 0)) [ET §4.3]; QNN TransposeConv needs axis 1 [QC §2].")
    # Per-tensor 2-bit weights: the reference raises "2-bit quantization ... does not support
    # per-tensor encoding. Use per-channel quantization instead." [ET §5].
    fx.case("fc_16a2w_per_tensor", "aten.linear.default", [fx.ref("v16"), fx.ref("fc_w2_pt"), fx.ref("b32")],
            [("float32", [1, 32], u16(0.0007, 30000))],
            expect=[E("encoding", "htp.linear", encoding("weight", "BW_AXIS_SCALE_OFFSET"), port="in[1] weight")],
            note="The nearest variant is a16w2 (same bit width, only per-tensor vs per-channel differs), so the "
                 "message names the fix, as the reference's error does: quantize per channel.")
    # fp16 x int8 takes only a signed weight (QNN 2.44, aimet #4090 [QC §1.3]).
    fx.param("w8u_pt", [16, 8, 1, 1], {"dtype": "uint8", "qscheme": "per_tensor_symmetric", "scale": 0.01,
                                       "zero_point": 128})
    fx.case("conv_fp16a8w_unsigned", "aten.conv2d.default", [fx.ref("xh"), fx.ref("w8u_pt"), fx.ref("b16_float")],
            [("float16", O16, None)],
            expect=[E("no-matching-variant", "htp.conv2d", no_variant("htp.conv2d", "Conv2d"))])
    # 3-D transposed convolution: float needs V69 (conv_transpose3d/fp16/SM8350 could not be created).
    fx.input("xh_5d", [1, 8, 2, 2, 2], dtype="float16")
    fx.param("wt3_f", [8, 4, 2, 2, 2], dtype="float16")
    fx.case("convt3d_float", "aten.conv_transpose3d.input", [fx.ref("xh_5d"), fx.ref("wt3_f"), None, [2, 2, 2]],
            [("float16", [1, 4, 4, 4, 4], None)],
            expect={"SM8350": [E("arch-gate", "htp.conv_transpose3d",
                                 "Float 3-D transposed convolution needs HTP V69 or newer.")]})
    return fx


def pooling():
    fx = Fixture("pooling", "Pooling (rules/htp/ops/pooling.yaml).", socs=(MAIN_SOC, "SM8350"))
    std_inputs(fx)
    fx.input("xf5", [1, 8, 4, 16, 16])
    P = [1, 8, 8, 8]
    # SISO: the output has its own observer, not the input's [ET §2 MaxPool2d].
    fx.case("maxpool8", "aten.max_pool2d.default", [fx.ref("x8"), [2, 2], [2, 2]], [("float32", P, u8(0.019, 125))])
    fx.case("avgpool16", "aten.avg_pool2d.default", [fx.ref("x16"), [2, 2], [2, 2]], [("float32", P, u16(0.0004, 32000))])
    fx.case("gap8", "aten.adaptive_avg_pool2d.default", [fx.ref("x8"), [1, 1]], [("float32", [1, 8, 1, 1], u8(0.01, 120))])
    # A tuple output: only the values are an activation; the int64 indices stay unannotated.
    fx.case("maxpool_indices", "aten.max_pool2d_with_indices.default", [fx.ref("x8"), [2, 2], [2, 2]],
            [("float32", P, u8(0.02, 128)), ("int64", P, None)])
    fx.case("avgpool3d_float", "aten.avg_pool3d.default", [fx.ref("xf5"), [2, 2, 2]],
            [("float32", [1, 8, 2, 8, 8], None)],
            note="No float16 arch gate: the conformance oracle runs float on V68 (<op>/fp16/SM8350).")
    fx.case("avgpool_mixed", "aten.avg_pool2d.default", [fx.ref("x8"), [2, 2], [2, 2]],
            [("float32", P, u16(0.0004, 32000))],
            expect=[E("no-matching-variant", "htp.avg_pool2d", no_variant("htp.avg_pool2d", "PoolAvg2d"))])
    fx.case("maxpool_pc_out", "aten.max_pool2d.default", [fx.ref("x8"), [2, 2], [2, 2]],
            [("float32", P, u8_per_channel(0.02, 128))],
            expect=[E("encoding", "htp.max_pool2d", encoding("output", "SCALE_OFFSET"), port="out[0] output")])
    return fx


def normalization():
    fx = Fixture("normalization", "Batch, instance, layer, group and RMS norm (rules/htp/ops/normalization.yaml).",
                 socs=(MAIN_SOC, "SM8450"))
    S = [1, 16, 64]
    fx.input("t8", S, u8())
    fx.input("t16", S, u16())
    fx.input("x8", T, u8())
    fx.input("x16", T, u16())
    fx.param("ln_w16", [64], s16_sym())
    fx.param("ln_w16_asym", [64], {"dtype": "int16", "quant_min": -32767, "quant_max": 32767,
                                   "qscheme": "per_tensor_affine", "scale": 0.0003, "zero_point": 100})
    fx.param("ln_w8", [64], u8(0.004, 0))
    fx.param("ln_w16u", [64], u16(0.00002, 0))
    fx.param("ln_b", [64], bias32())
    fx.param("ln_b_asym", [64], {"dtype": "int32", "qscheme": "per_tensor_affine", "scale": 0.0002, "zero_point": 7})
    fx.param("bn_w8", [8], u8(0.004, 0))
    fx.param("bn_w8s", [8], w8_pt())
    fx.param("bn_w16", [8], s16_sym())
    fx.param("bn_b", [8], bias32())
    fx.param("bn_mean", [8])
    fx.param("bn_var", [8])
    fx.param("gn_w8", [8], w8_pt())
    def ln(name, x, w, b, out, **kw):
        args = [fx.ref(x), [64]] + ([fx.ref(w)] if w else []) + ([fx.ref(b)] if b else []) + ([1e-5] if w else [])
        return fx.case(name, "aten.layer_norm.default", args, [("float32", S, out)], **kw)
    # LayerNorm: 16-bit activations take the 16a16w weight spec (int16 symmetric) [ET §2 LayerNorm].
    gate_ln = "16-bit activations with 16-bit layer-norm weights need HTP V73 or newer."
    ln("ln_16a16w", "t16", "ln_w16", "ln_b", u16(0.0006, 32768),
       expect={"SM8450": [E("arch-gate", "htp.layer_norm", gate_ln)]},
       note="The reference's LayerNorm validate reads the weight from args[1] (normalized_shape), so its V73 check "
            "never fires [ET §11.1]; the rule binds the weight to argument 2 and gates it.")
    # 16-bit weight following AIMET V73+ (asymmetric unsigned 16-bit LayerNorm weight [QC §4.2]).
    ln("ln_16a16w_unsigned", "t16", "ln_w16u", "ln_b", u16(0.0006, 32768),
       expect={"*": [E("symmetric", "htp.layer_norm", symmetric("weight"), port="in[2] weight")],
               "SM8450": [E("arch-gate", "htp.layer_norm", gate_ln),
                          E("symmetric", "htp.layer_norm", symmetric("weight"), port="in[2] weight")]},
       note="QNN wants an unsigned 16-bit LayerNorm weight symmetric: 'incorrect Value -30000, expected equal "
            "to -32768' (conformance case layer_norm/16a16w/<SoC>); AIMET's asymmetric weight is refused.")
    # 8-bit weights: the activation spec (uint8) [ET §2 LayerNorm].
    ln("ln_16a8w", "t16", "ln_w8", "ln_b", u16(0.0006, 32768))
    ln("ln8", "t8", "ln_w8", "ln_b", u8(0.03, 128))
    # No weight and bias: the reference's HTP annotator raises IndexError here [ET §2]; QNN takes it.
    ln("ln8_no_affine", "t8", None, None, u8(0.03, 128))
    ln_sym = [E("symmetric", "htp.layer_norm", symmetric("weight"), port="in[2] weight")]
    ln("ln_16a16w_asym", "t16", "ln_w16_asym", "ln_b", u16(0.0006, 32768),
       expect={"*": ln_sym, "SM8450": [E("arch-gate", "htp.layer_norm", gate_ln)] + ln_sym})
    ln("ln8_bias_asym", "t8", "ln_w8", "ln_b_asym", u8(0.03, 128),
       expect=[E("symmetric", "htp.layer_norm", symmetric("bias"), port="in[3] bias")])
    # BatchNorm: at 8 bits the weight takes the activation spec, "QNN requires uint8 instead of
    # int8 in 'weight'" [ET §2 BatchNorm]; at 16 bits the 16a16w weight spec, gated on V73 by the
    # conformance oracle.
    bn_tail = [fx.ref("bn_mean"), fx.ref("bn_var"), False, 0.1, 1e-5, True]
    fx.case("bn8", "aten.batch_norm.default", [fx.ref("x8"), fx.ref("bn_w8"), fx.ref("bn_b")] + bn_tail,
            [("float32", T, u8(0.03, 128))])
    fx.case("bn16", "aten.batch_norm.default", [fx.ref("x16"), fx.ref("bn_w16"), fx.ref("bn_b")] + bn_tail,
            [("float32", T, u16(0.0006, 32768))],
            expect={"SM8450": [E("arch-gate", "htp.batch_norm",
                                 "16-bit activations with 16-bit batch-norm weights need HTP V73 or newer.")]},
            note="QNN refuses 16-bit Batchnorm weights before V73: 'incorrect Value 69, expected >= 73' "
                 "(conformance case batch_norm/16a16w_s16/SM8450).")
    fx.case("bn8_signed_weight", "aten.batch_norm.default", [fx.ref("x8"), fx.ref("bn_w8s"), fx.ref("bn_b")] + bn_tail,
            [("float32", T, u8(0.03, 128))],
            note="The reference asks for uint8 [ET §2 BatchNorm], but the conformance oracle accepts a signed "
                 "symmetric 8-bit weight (batch_norm/8a8w_s8/<SoC>).")
    # InstanceNorm takes no signed scale (ORT #24952 [QC §2]).
    fx.case("in8_signed_weight", "aten.instance_norm.default",
            [fx.ref("x8"), fx.ref("bn_w8s"), fx.ref("bn_b"), None, None, False, 0.1, 1e-5, False],
            [("float32", T, u8(0.03, 128))],
            note="Accepted: the conformance oracle takes a signed symmetric 8-bit InstanceNorm weight "
                 "(instance_norm/8a8w_s8/<SoC>); ORT #24952's 'no SFIXED scale' holds at 16 bits.")
    # What the reference annotates at 16a4w / 16a16w, and QNN (per ORT's HTP tuples) rejects.
    fx.param("w4_pt", [8], {"dtype": "int8", "quant_min": -7, "quant_max": 7, "qscheme": "per_tensor_symmetric",
                            "scale": 0.05, "zero_point": 0})
    fx.case("bn16_4bit_weight", "aten.batch_norm.default", [fx.ref("x16"), fx.ref("w4_pt"), fx.ref("bn_b")] + bn_tail,
            [("float32", T, u16(0.0006, 32768))],
            expect=[E("no-matching-variant", "htp.batch_norm", no_variant("htp.batch_norm", "Batchnorm"))],
            note="Rule and reference disagree: at 16-bit activations the reference gives the BatchNorm weight the "
                 "config's weight spec [ET §2 BatchNorm], int8 -7..7 at 16a4w; ORT's HTP BatchNorm tuples take a "
                 "U16 input only with a U8, U16 or S16 scale [QC §2]. The rule follows ORT.")
    fx.case("in16_signed_weight", "aten.instance_norm.default",
            [fx.ref("x16"), fx.ref("bn_w16"), fx.ref("bn_b"), None, None, False, 0.1, 1e-5, False],
            [("float32", T, u16(0.0006, 32768))],
            expect=[E("no-matching-variant", "htp.instance_norm", no_variant("htp.instance_norm", "InstanceNorm"))],
            note="Rule and reference disagree: at 16a16w the reference gives the InstanceNorm weight the int16 "
                 "symmetric weight spec [ET §2 BatchNorm]; HTP InstanceNorm takes no SFIXED scale (ORT #24952 "
                 "[QC §2]). The rule follows ORT.")
    fx.case("gn16_4bit_weight", "aten.group_norm.default", [fx.ref("x16"), 2, fx.ref("w4_pt"), fx.ref("bn_b"), 1e-5],
            [("float32", T, u16(0.0006, 32768))],
            expect=[E("encoding", "htp.group_norm", encoding("weight", "SCALE_OFFSET"), port="in[2] weight")],
            note="Rule and reference disagree: at 16a4w the reference gives the GroupNorm weight the 4-bit weight "
                 "spec [ET §2 GroupNorm]; the rule takes 8- or 16-bit norm parameters only (AIMET V73+ makes them "
                 "follow the output quantizer [QC §4.3]).")
    # GroupNorm: the config's weight spec (int8 symmetric at 8a8w) [ET §2 GroupNorm].
    fx.case("gn8", "aten.group_norm.default", [fx.ref("x8"), 2, fx.ref("gn_w8"), fx.ref("bn_b"), 1e-5],
            [("float32", T, u8(0.03, 128))])
    # RmsNorm: activation and weight both take the activation spec [ET §2 RmsNorm].
    fx.case("rms16", "aten.rms_norm.default", [fx.ref("t16"), [64], fx.ref("ln_w16u"), 1e-6],
            [("float32", S, u16(0.0006, 32768))])
    return fx


def reduction():
    fx = Fixture("reduction", "Reductions, arg-reductions and cumulative sums (rules/htp/ops/reduction.yaml).")
    std_inputs(fx)
    fx.input("ids", [1, 16], dtype="int64")
    fx.case("mean8", "aten.mean.dim", [fx.ref("x8"), [-1], True], [("float32", [1, 8, 16, 1], u8(0.02, 128))])
    fx.case("sum16", "aten.sum.dim_IntList", [fx.ref("x16"), [1]], [("float32", [1, 16, 16], u16(0.004, 1000))])
    fx.case("amax8", "aten.amax.default", [fx.ref("x8"), [1]], [("float32", [1, 16, 16], u8(0.02, 128))])
    # Argmax/argmin: SIN, only the input is annotated; the int output stays unannotated [ET §2].
    fx.case("argmax8", "aten.argmax.default", [fx.ref("x8"), 1], [("int64", [1, 16, 16], None)])
    fx.case("argmin16", "aten.argmin.default", [fx.ref("x16"), 1], [("int64", [1, 16, 16], None)])
    # max.dim: "validate only the inputs" [ET §2 ReduceMax]; its outputs are read through getitem.
    fx.case("maxdim8", "aten.max.dim", [fx.ref("x8"), 1], [("float32", [1, 16, 16], None), ("int64", [1, 16, 16], None)])
    fx.case("cumsum_ids", "aten.cumsum.default", [fx.ref("ids"), 1], [("int64", [1, 16], None)])
    fx.case("argmax_quantized_out", "aten.argmax.default", [fx.ref("x8"), 1], [("int64", [1, 16, 16], u8(1.0, 0))],
            expect=[E("no-matching-variant", "htp.argmax", no_variant("htp.argmax", "Argmax"))],
            note="Argmax outputs integer indices (AIMET V75: a32 only [QC §4.4]); a quantized index output is wrong.")
    fx.input("ids32", [1, 16], dtype="int32")
    fx.case("argmax_int32", "aten.argmax.default", [fx.ref("ids32"), 1], [("int64", [1], None)],
            note="Argmax takes int32 input (argmax/int32/<SoC>); Argmin refuses it (argmin/int32/<SoC>).")
    fx.case("argmin_int32", "aten.argmin.default", [fx.ref("ids32"), 1], [("int64", [1], None)],
            expect=[E("no-matching-variant", "htp.argmin", no_variant("htp.argmin", "Argmin"))])
    fx.case("mean_mixed", "aten.mean.dim", [fx.ref("x16"), [-1], True], [("float32", [1, 8, 16, 1], u8(0.02, 128))],
            expect=[E("no-matching-variant", "htp.mean", no_variant("htp.mean", "ReduceMean"))])
    return fx


def shape():
    fx = Fixture("shape", "Layout and data movement: math-invariant sharing (rules/htp/ops/shape.yaml).",
                 socs=(MAIN_SOC, "SM8350"))
    std_inputs(fx)
    fx.input("c8", T, u8(0.03, 100))
    fx.input("ids", [1, 16], dtype="int64")
    fx.input("xf", T)
    F = [1, 2048]
    # SHARE: the output shares the producer's encoding [ET §1]; node- and edge-shared forms.
    fx.case("view_shared", "aten.view.default", [fx.ref("x8"), [1, -1]], [("float32", F, shared_node("x8"))])
    fx.case("permute_shared", "aten.permute.default", [fx.ref("x16"), [0, 2, 3, 1]],
            [("float32", [1, 16, 16, 8], shared_edge("x16", "permute_shared"))])
    # An independent spec with identical numbers is the same encoding.
    fx.case("view_same_numbers", "aten.view.default", [fx.ref("x8"), [1, -1]], [("float32", F, u8())])
    fx.case("pixel_shuffle", "aten.pixel_shuffle.default", [fx.ref("x8"), 2],
            [("float32", [1, 2, 32, 32], shared_node("x8"))])
    # Concat: ConcatObserver gives every input and the output one range [ET §7].
    one = u8(0.04, 110)
    fx.case("cat_one_range", "aten.cat.default", [[fx.ref("x8", one), fx.ref("c8", one)], 1],
            [("float32", [1, 16, 16, 16], one)])
    # Stack: inputs[0] takes the activation spec, the rest and the output share it [ET §2 Stack].
    fx.case("stack_shared", "aten.stack.default",
            [[fx.ref("x8"), fx.ref("c8", shared_edge("x8", "stack_shared"))]],
            [("float32", [2, 1, 8, 16, 16], shared_edge("x8", "stack_shared"))])
    # Split: every output shares the input (Shared((input, node)) [ET §2 Chunk]).
    H = [1, 4, 16, 16]
    fx.case("split_shared", "aten.split.Tensor", [fx.ref("x8"), 4, 1],
            [("float32", H, shared_edge("x8", "split_shared")), ("float32", H, shared_edge("x8", "split_shared"))])
    # StridedSlice and Pad are SISO with their own output observer [ET §2 StrideSlice, Pad].
    fx.case("slice_own", "aten.slice.Tensor", [fx.ref("x8"), 1, 0, 4], [("float32", H, u8(0.015, 130))])
    fx.case("pad_own", "aten.pad.default", [fx.ref("x16"), [1, 1, 1, 1]], [("float32", [1, 8, 18, 18], u16(0.0005, 30000))])
    # An int -> float cast: the int input is never annotated, the float output is [ET §1].
    fx.case("cast_ids", "aten.to.dtype", [fx.ref("ids"), "torch.float32"], [("float32", [1, 16], u8(0.1, 0))])
    fx.case("view_ids", "aten.view.default", [fx.ref("ids"), [16]], [("int64", [16], None)])
    fx.case("view_float", "aten.view.default", [fx.ref("xf"), [1, -1]], [("float32", F, None)],
            note="No float16 arch gate: the conformance oracle runs float on V68 (reshape/fp16/SM8350).")
    # Signed 16-bit data movement, and 8-bit in to 16-bit out (explore cases reshape_own/16a_s16,
    # split_own/8a_to_16a, slice_own/8a_to_16a/<SoC>); 16-bit in to 8-bit out was not measured.
    fx.input("xs16", T, s16_sym(0.0005))
    fx.case("view_s16", "aten.view.default", [fx.ref("xs16"), [1, -1]], [("float32", F, shared_node("xs16"))])
    fx.case("split_8_to_16", "aten.split.Tensor", [fx.ref("x8"), 4, 1],
            [("float32", H, u16(0.0005, 32768)), ("float32", H, u16(0.0005, 32768))])
    fx.case("slice_8_to_16", "aten.slice.Tensor", [fx.ref("x8"), 1, 0, 4], [("float32", H, u16(0.0005, 32768))])
    fx.case("slice_16_to_8", "aten.slice.Tensor", [fx.ref("x16"), 1, 0, 4], [("float32", H, u8(0.015, 130))],
            expect=[E("no-matching-variant", "htp.slice", no_variant("htp.slice", "StridedSlice"))])
    # Failures: math-invariant outputs with their own encoding.
    fx.case("view_own", "aten.view.default", [fx.ref("x8"), [1, -1]], [("float32", F, u8(0.5, 7))],
            expect=[E("shared", "htp.reshape", shared("output", "input"), port="out[0] output")])
    fx.case("permute16_own", "aten.permute.default", [fx.ref("x16"), [0, 2, 3, 1]],
            [("float32", [1, 16, 16, 8], u16(0.001, 32768))],
            expect=[E("shared", "htp.permute", shared("output", "input"), port="out[0] output")])
    fx.case("cat_unshared", "aten.cat.default", [[fx.ref("x8"), fx.ref("c8")], 1],
            [("float32", [1, 16, 16, 16], one)],
            expect=[recommended(E("shared", "htp.cat", shared("output", "tensors"), port="out[0] output"))],
            note="The Qualcomm checker and the reference share Concat's encodings; AIMET and ORT's quantization "
                 "tool quantize its output independently [QC §6.8]. The rule follows the checker and the reference.")
    # ExecuTorch's edge-dialect copies take the rules of their plain forms.
    fx.case("select_copy_shared", "aten.select_copy.int", [fx.ref("x8"), 1, 0],
            [("float32", [1, 16, 16], shared_node("x8"))])
    fx.case("permute_copy_own", "aten.permute_copy.default", [fx.ref("x16"), [0, 2, 3, 1]],
            [("float32", [1, 16, 16, 8], u16(0.001, 32768))],
            expect=[E("shared", "htp.permute", shared("output", "input"), port="out[0] output")])
    fx.case("cast_float_to_int", "aten.to.dtype", [fx.ref("xf"), "torch.int32"], [("int32", T, None)],
            note="Float <-> integer casts run on every architecture (cast/fp32_to_int32/<SoC>).")
    fx.input("xs8", T, {"dtype": "int8", "quant_min": -128, "quant_max": 127, "qscheme": "per_tensor_affine",
                        "scale": 0.02, "zero_point": 0})
    fx.case("split_s8", "aten.split.Tensor", [fx.ref("xs8"), 4, 1],
            [("float32", H, shared_edge("xs8", "split_s8")), ("float32", H, shared_edge("xs8", "split_s8"))],
            note="Split takes signed 8-bit data (split/8a_signed/<SoC>).")
    fx.case("split_second_own", "aten.split.Tensor", [fx.ref("x8"), 4, 1],
            [("float32", H, shared_edge("x8", "split_second_own")), ("float32", H, u8(0.01, 0))],
            expect=[recommended(E("shared", "htp.split", shared("outputs", "input"), port="out[1] outputs"))],
            note="Split's shared output encoding is recommended: QNN Split takes outputs with encodings of their "
                 "own (explore cases split_own/8a_own, 16a_own/<SoC>).")
    return fx


def gather():
    fx = Fixture("gather", "Gather, embedding, scatter and indexing (rules/htp/ops/gather.yaml).",
                 socs=(MAIN_SOC, "SM8350"))
    std_inputs(fx)
    fx.input("xf", T)
    fx.input("xs8", T, {"dtype": "int8", "quant_min": -128, "quant_max": 127, "qscheme": "per_tensor_affine",
                        "scale": 0.02, "zero_point": 0})
    fx.input("ids", [1, 16], dtype="int64")
    fx.input("idx", T, dtype="int64")
    fx.input("buf", [1, 8, 16, 16])
    fx.input("vals", [16, 16], u8(0.02, 128))
    fx.param("table8", [100, 64], u8(0.01, 128))
    fx.param("table_pc", [100, 64], w8_pc(100))
    fx.param("table_pc_axis1", [100, 64], w8_pc(64, axis=1))
    E2 = [1, 16, 64]
    # Embedding, per-tensor: table takes the activation spec, the output shares it [ET §2 Embedding].
    fx.case("emb_per_tensor", "aten.embedding.default", [fx.ref("table8"), fx.ref("ids")],
            [("float32", E2, shared_edge("table8", "emb_per_tensor"))])
    # per_channel_embedding: per-channel table (axis 0 [ET §4.3]), the output takes the activation spec.
    fx.case("emb_per_channel", "aten.embedding.default", [fx.ref("table_pc"), fx.ref("ids")],
            [("float32", E2, u8(0.02, 128))])
    # Gather family: SHARE [ET §2 Gather]; the int64 index is never annotated.
    fx.case("index_select", "aten.index_select.default", [fx.ref("x8"), 1, fx.ref("ids")],
            [("float32", [1, 16, 16, 16], shared_node("x8"))])
    fx.case("gather_elements", "aten.gather.default", [fx.ref("x16"), 1, fx.ref("idx")],
            [("float32", T, shared_edge("x16", "gather_elements"))])
    fx.case("index_tensor", "aten.index.Tensor", [fx.ref("x8"), [None, fx.ref("ids")]],
            [("float32", [1, 1, 16, 16, 16], shared_node("x8"))])
    # index_put: only `values` is annotated and the output shares it; the buffer stays float [ET §2].
    fx.case("index_put", "aten.index_put.default", [fx.ref("buf"), [fx.ref("ids")], fx.ref("vals"), False],
            [("float32", [1, 8, 16, 16], shared_edge("vals", "index_put"))])
    # scatter: src and output share self (Shared((self, node))) [ET §2 ScatterElements].
    fx.case("scatter_src", "aten.scatter.src",
            [fx.ref("x8"), 1, fx.ref("idx"), fx.ref("x8", shared_edge("x8", "scatter_src"))],
            [("float32", T, shared_edge("x8", "scatter_src"))])
    fx.case("emb_per_channel_axis1", "aten.embedding.default", [fx.ref("table_pc_axis1"), fx.ref("ids")],
            [("float32", E2, u8(0.02, 128))],
            expect=[E("axis", "htp.embedding", axis("weight", 0), port="in[0] weight")])
    fx.case("emb_per_tensor_own", "aten.embedding.default", [fx.ref("table8"), fx.ref("ids")],
            [("float32", E2, u8(0.05, 100))],
            expect=[E("shared", "htp.embedding", shared("output", "weight"), port="out[0] output")])
    fx.case("index_select16_own", "aten.index_select.default", [fx.ref("x16"), 1, fx.ref("ids")],
            [("float32", [1, 16, 16, 16], u16(0.001, 0))],
            expect=[E("shared", "htp.index_select", shared("output", "input"), port="out[0] output")])
    fx.case("index_select_s8", "aten.index_select.default", [fx.ref("xs8"), 1, fx.ref("ids")],
            [("float32", [1, 16, 16, 16], shared_node("xs8"))],
            note="Gather takes signed 8-bit data (index_select/8a_signed/<SoC>).")
    fx.case("gather_elements_s8", "aten.gather.default", [fx.ref("xs8"), 1, fx.ref("idx")],
            [("float32", T, shared_edge("xs8", "gather_elements_s8"))],
            expect=[E("no-matching-variant", "htp.gather_elements", no_variant("htp.gather_elements", "GatherElements"))],
            note="GatherElements refuses signed 8-bit data (gather_elements/8a_signed/<SoC>).")
    fx.case("index_select_f32", "aten.index_select.default", [fx.ref("xf"), 1, fx.ref("ids")],
            [("float32", [1, 16, 16, 16], None)],
            expect={"SM8350": [E("arch-gate", "htp.index_select", "Float32 execution of this op on HTP needs V69 or newer (V68 cannot finalize it).")]},
            note="V68 cannot finalize a float32 Gather (index_select/fp32/SM8350).")
    fx.case("slice_scatter_own_src", "aten.slice_scatter.default", [fx.ref("x8"), fx.ref("vals", u8(0.1, 3))],
            [("float32", T, shared_edge("x8", "slice_scatter_own_src"))],
            expect=[E("shared", "htp.slice_scatter", shared("src", "input"), port="in[1] src")])
    return fx


def comparison():
    fx = Fixture("comparison", "Comparisons, logical ops and selection (rules/htp/ops/comparison.yaml).",
                 socs=(MAIN_SOC, "SM8350"))
    std_inputs(fx)
    fx.input("xf", T)
    fx.param("fill", [], dtype="float32")
    fx.input("x8b", T, u8(0.03, 100))
    fx.input("mask", T, dtype="bool")
    fx.input("mask2", T, dtype="bool")
    fx.input("ids", [1, 16], dtype="int64")
    # Comparisons: BIN on the float inputs; the bool output has no spec [ET §2].
    fx.case("eq8", "aten.eq.Tensor", [fx.ref("x8"), fx.ref("x8b")], [("bool", T, None)])
    fx.case("eq_scalar", "aten.eq.Scalar", [fx.ref("x8"), 0.5], [("bool", T, None)])
    fx.case("eq_ids", "aten.eq.Tensor", [fx.ref("ids"), fx.ref("ids")], [("bool", [1, 16], None)])
    # Logical ops on bool inputs: nothing is annotated [ET §2 And].
    fx.case("and_bool", "aten.logical_and.default", [fx.ref("mask"), fx.ref("mask2")], [("bool", T, None)])
    fx.case("or_bool", "aten.bitwise_or.Tensor", [fx.ref("mask"), fx.ref("mask2")], [("bool", T, None)])
    # where / masked_fill: float operands take the activation spec, the bool condition none [ET §2].
    fx.case("where8", "aten.where.self", [fx.ref("mask"), fx.ref("x8"), fx.ref("x8b")], [("float32", T, u8(0.03, 110))])
    fx.case("where16", "aten.where.self", [fx.ref("mask"), fx.ref("x16"), fx.ref("x16")], [("float32", T, u16())])
    fx.case("masked_fill8", "aten.masked_fill.Scalar", [fx.ref("x8"), fx.ref("mask"), -100.0],
            [("float32", T, u8(0.5, 200))])
    fx.case("gt16", "aten.gt.Tensor", [fx.ref("x16"), fx.ref("x16")], [("bool", T, None)],
            note="AIMET's V75 kernel table runs comparisons on 8-bit tensors only [QC §4.4], but the conformance "
                 "oracle accepts 16-bit comparisons on every architecture (gt/16a/<SoC>).")
    fx.case("ne16", "aten.ne.Scalar", [fx.ref("x16"), 0.0], [("bool", T, None)],
            note="ne is not in the oracle (ONNX has no NotEqual); ExecuTorch's V68 test_not_equal runs it at 16 bits.")
    fx.case("ne_mixed", "aten.ne.Tensor", [fx.ref("x8"), fx.ref("x16")], [("bool", T, None)],
            expect=[E("no-matching-variant", "htp.ne", no_variant("htp.ne", "ElementWiseNotEqual"))])
    # Ops ONNX graphs carry (issue 21): Not, IsNaN, and where beside a float32 constant.
    fx.case("not_bool", "aten.logical_not.default", [fx.ref("mask")], [("bool", T, None)])
    fx.case("not_u8", "aten.logical_not.default", [fx.ref("x8")], [("bool", T, None)],
            expect=[E("no-matching-variant", "htp.logical_not", no_variant("htp.logical_not", "ElementWiseNot"))])
    fx.case("isnan8", "aten.isnan.default", [fx.ref("x8")], [("bool", T, None)],
            note="ONNX IsNaN of a dequantized tensor: accepted (isnan/8a/<SoC>).")
    fx.case("isnan_float", "aten.isnan.default", [fx.ref("xf")], [("bool", T, None)])
    fx.case("isnan_ids", "aten.isnan.default", [fx.ref("ids")], [("bool", [1, 16], None)],
            expect=[E("no-matching-variant", "htp.isnan", no_variant("htp.isnan", "IsNan"))])
    gate_select = "A where mixing a quantized operand with a float32 constant needs HTP V69 or newer (V68 cannot finalize it)."
    fx.case("where_float_const", "aten.where.self", [fx.ref("mask"), fx.ref("fill"), fx.ref("x8")],
            [("float32", T, u8(0.03, 110))], expect={"SM8350": [E("arch-gate", "htp.where", gate_select)]},
            note="masked_fill as ORT leaves it: accepted from V69, V68's finalize cannot create the select "
                 "(where/8a_fconst_first/<SoC>).")
    fx.case("where_f32", "aten.where.self", [fx.ref("mask"), fx.ref("xf"), fx.ref("xf")], [("float32", T, None)],
            expect={"SM8350": [E("arch-gate", "htp.where", "A float32 where (ElementWiseSelect) needs HTP V69 or newer "
                                                            "(V68 cannot finalize it).")]})
    q_mask = {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "scale": 1.0, "zero_point": 0}
    fx.case("where_quantized_condition", "aten.where.self", [fx.ref("mask", q_mask), fx.ref("x8"), fx.ref("x8b")],
            [("float32", T, u8(0.03, 110))],
            expect=[E("no-matching-variant", "htp.where", no_variant("htp.where", "ElementWiseSelect"))])
    return fx


def resize():
    fx = Fixture("resize", "Resizing and grid sampling (rules/htp/ops/resize.yaml).")
    std_inputs(fx)
    fx.input("grid8", [1, 16, 16, 2], u8(0.008, 128))
    fx.input("gridf", [1, 16, 16, 2])
    U = [1, 8, 32, 32]
    # SISO: the output has its own observer [ET §2 Upsample*].
    fx.case("nearest8", "aten.upsample_nearest2d.vec", [fx.ref("x8"), [32, 32], None], [("float32", U, u8(0.021, 127))])
    fx.case("bilinear16", "aten.upsample_bilinear2d.vec", [fx.ref("x16"), [32, 32], False, None],
            [("float32", U, u16(0.0005, 32768))])
    # GridSample: BIN, both input and grid take the activation spec [ET §2].
    fx.case("grid_sample8", "aten.grid_sampler.default", [fx.ref("x8"), fx.ref("grid8"), 0, 0, False],
            [("float32", T, u8(0.02, 128))])
    fx.case("grid_float_grid", "aten.grid_sampler.default", [fx.ref("x8"), fx.ref("gridf"), 0, 0, False],
            [("float32", T, u8(0.02, 128))],
            expect=[E("no-matching-variant", "htp.grid_sample", no_variant("htp.grid_sample", "GridSample"))])
    fx.case("bicubic_pc_out", "aten.upsample_bicubic2d.vec", [fx.ref("x8"), [32, 32], False, None],
            [("float32", U, u8_per_channel(0.02, 128))],
            expect=[E("encoding", "htp.upsample_bicubic2d", encoding("output", "SCALE_OFFSET"), port="out[0] output")])
    fx.input("rois", [4, 5])
    fx.case("roi_align8", "torchvision.roi_align.default", [fx.ref("x8"), fx.ref("rois"), 1.0, 2, 2, 0, False],
            [("float32", [4, 8, 2, 2], u8(0.02, 128))], note="roi_align/8a/<SoC>: accepted from V69.")
    fx.case("roi_align_mixed", "torchvision.roi_align.default", [fx.ref("x8"), fx.ref("rois"), 1.0, 2, 2, 0, False],
            [("float32", [4, 8, 2, 2], u16())],
            expect=[E("no-matching-variant", "htp.roi_align", no_variant("htp.roi_align", "RoiAlign"))])
    return fx


def misc():
    fx = Fixture("misc", "TopK/sort, attention, the Hadamard custom op and getitem (rules/htp/ops/misc.yaml).",
                 socs=(MAIN_SOC, "SM8450"))
    std_inputs(fx)
    fx.input("k8", T, u8(0.03, 110))
    fx.input("k16s", T, s16_sym())
    fx.input("k16_asym", T, u16(0.0004, 1000))
    K = [1, 8, 16, 5]
    # TopK: the values share the input; the values' getitem shares the node [ET §2 Sort/Topk, GetItem].
    fx.case("topk8", "aten.topk.default", [fx.ref("x8"), 5],
            [("float32", K, shared_edge("x8", "topk8")), ("int64", K, None)])
    fx.case("topk8_values", "getitem", [fx.ref("topk8"), 0], [("float32", K, shared_node("topk8"))])
    fx.case("sort16", "aten.sort.default", [fx.ref("x16"), -1],
            [("float32", T, shared_edge("x16", "sort16")), ("int64", T, None)])
    fx.case("hadamard8", "qnn_custom.hadamard_transform.default", [fx.ref("x8")], [("float32", T, u8(0.05, 128))])
    # SDPA is decomposed into MatMuls: key and value are second MatMul inputs [ET §0].
    fx.case("sdpa8", "aten.scaled_dot_product_attention.default", [fx.ref("x8"), fx.ref("k8"), fx.ref("k8")],
            [("float32", T, u8(0.02, 128))])
    gate = "16-bit activations with 16-bit key and value need HTP V73 or newer."
    fx.case("sdpa16x16", "aten.scaled_dot_product_attention.default", [fx.ref("x16"), fx.ref("k16s"), fx.ref("k16s")],
            [("float32", T, u16())], expect={"SM8450": [E("arch-gate", "htp.scaled_dot_product_attention", gate)]})
    sym = [E("symmetric", "htp.scaled_dot_product_attention", symmetric("key"), port="in[1] key")]
    fx.case("sdpa16_key_asym", "aten.scaled_dot_product_attention.default",
            [fx.ref("x16"), fx.ref("k16_asym"), fx.ref("k16s")], [("float32", T, u16())],
            expect={"*": sym, "SM8450": [E("arch-gate", "htp.scaled_dot_product_attention", gate)] + sym})
    fx.case("topk8_own_values", "aten.topk.default", [fx.ref("x8"), 5],
            [("float32", K, u8(0.01, 0)), ("int64", K, None)],
            expect=[E("shared", "htp.topk", shared("values", "input"), port="out[0] values")])
    # Detection and recurrent ops QNN HTP runs (issue 21), declared unsupported from ExecuTorch's builders before.
    fx.input("boxes", [1, 32, 4])
    fx.input("boxes_h", [1, 32, 4], dtype="float16")
    fx.input("scores", [1, 1, 32])
    fx.case("nms_float", "torchvision.nms.default", [fx.ref("boxes"), fx.ref("scores"), 0.5], [("int64", [8, 3], None)],
            note="nms/fp32/<SoC>: accepted on every architecture.")
    fx.case("nms_half", "torchvision.nms.default", [fx.ref("boxes_h"), fx.ref("scores"), 0.5], [("int64", [8, 3], None)],
            expect=[E("no-matching-variant", "htp.nms", no_variant("htp.nms", "NonMaxSuppression"))])
    fx.input("seq", [4, 1, 16])
    fx.case("lstm_float", "aten.lstm.input", [fx.ref("seq"), [], [], True, 1, 0.0, False, False, False],
            [("float32", [4, 1, 8], None)], note="lstm/fp32/SM8450: accepted from V69.")
    fx.input("seq8", [4, 1, 16], u8())
    fx.case("lstm_quantized", "aten.lstm.input", [fx.ref("seq8"), [], [], True, 1, 0.0, False, False, False],
            [("float32", [4, 1, 8], u8())],
            expect=[E("no-matching-variant", "htp.lstm", no_variant("htp.lstm", "Lstm"))],
            note="Quantized LSTMs were not measured: no quantized variant is claimed.")
    return fx


def constant():
    fx = Fixture("constant", "Tensor factories lowered as static tensors (rules/htp/ops/constant.yaml).",
                 socs=(MAIN_SOC, "SM8350"))
    fx.input("x16", T, u16())
    # CONST: only a float output is annotated [ET §1]; an int64 arange stays unannotated.
    fx.case("arange_ids", "aten.arange.start_step", [0, 16, 1], [("int64", [16], None)])
    fx.case("full8", "aten.full.default", [[1, 8], 0.5], [("float32", [1, 8], u8(0.002, 0))])
    fx.case("zeros_like16", "aten.zeros_like.default", [fx.ref("x16")], [("float32", T, u16(0.0001, 0))])
    fx.case("rand8", "aten.rand.default", [[1, 8]], [("float32", [1, 8], u8(1 / 256, 0))])
    # A factory no graph input reaches is folded at export (passes/Prune.h): its static tensor
    # is not validated as device work, whatever its annotation (here float, and signed 8-bit).
    fx.case("full_float", "aten.full.default", [[1, 8], 0.5], [("float32", [1, 8], None)],
            note="folded as a constant: not checked on SM8350 either")
    fx.case("full_signed", "aten.full.default", [[1, 8], 0.5], [("float32", [1, 8], w8_pt(0.004))],
            note="folded as a constant: the signed static tensor is not checked")
    # Fed from a graph input, a factory is validated (its output's encoding as stored).
    fx.case("full_like_float", "aten.full_like.default", [fx.ref("x16"), 0.5], [("float32", T, None)],
            note="No float16 arch gate: the conformance oracle runs float on V68 (<op>/fp16/SM8350).")
    fx.case("full_like_signed", "aten.full_like.default", [fx.ref("x16"), 0.5], [("float32", T, w8_pt(0.004))],
            expect=[E("no-matching-variant", "htp.constant", no_variant("htp.constant", "static tensor"))])
    return fx


def unsupported():
    fx = Fixture("unsupported", "Ops QNN HTP cannot run: each says why (rules/htp/ops/unsupported.yaml).")
    fx.input("x8", T, u8())
    fx.input("ids", [4], dtype="int64")
    fx.input("offs", [2], dtype="int64")
    fx.param("table", [100, 16], u8(0.01, 128))
    pre = "not supported by QNN HTP: "
    # Rounding to an integer is lowered; round.decimals is to-be-implemented [ET §3].
    fx.case("round8", "aten.round.default", [fx.ref("x8")], [("float32", T, u8())])
    fx.case("round_decimals", "aten.round.decimals", [fx.ref("x8")], [("float32", T, u8())], kwargs={"decimals": 2},
            expect=[E("unsupported-op", "htp.round_decimals", pre +
                      "the QNN partitioner lists round.decimals as to be implemented (to_be_implemented_operator); "
                      "only rounding to an integer (round.default, QNN ElementWiseRound) is lowered")])
    fx.case("embedding_bag", "aten._embedding_bag.default", [fx.ref("table"), fx.ref("ids"), fx.ref("offs")],
            [("float32", [2, 16], u8())],
            expect=[E("unsupported-op", "htp.embedding_bag", pre +
                      "the QNN partitioner lists _embedding_bag as not supported (not_supported_operator); QNN has no "
                      "embedding-bag op")])
    fx.case("le_scalar", "aten.le.Scalar", [fx.ref("x8"), 0.5], [("bool", T, None)],
            note="ExecuTorch's partitioner lists le.Scalar as to be implemented, but QNN runs it (conformance "
                 "case le_scalar/8a/<SoC>); it is a target of htp.le.")
    fx.case("median", "aten.median.default", [fx.ref("x8")], [("float32", [], u8())],
            expect=[E("unsupported-op", "htp.median", pre +
                      "the QNN partitioner lists median as to be implemented (to_be_implemented_operator); no QNN "
                      "lowering exists yet")])
    fx.case("prod", "aten.prod.dim_int", [fx.ref("x8"), -1, True], [("float32", [1, 8, 16, 1], u8())],
            expect=[E("unsupported-op", "htp.prod", pre +
                      "ONNX Runtime's QNN EP refuses ReduceProd on HTP (\"QNN EP: ReduceProd operator not supported by "
                      "HTP backend.\", conformance cases reduce_prod/<config>/<SoC> on every architecture), and the "
                      "QNN partitioner has no builder for prod")])
    fx.case("nonzero8", "aten.nonzero.default", [fx.ref("x8")], [("int64", [4, 2], None)],
            note="QNN NonZero takes 8-bit and float inputs (nonzero/8a/<SoC>); ExecuTorch's builders do not enable it.")
    fx.case("nonzero_ids", "aten.nonzero.default", [fx.ref("ids")], [("int64", [1, 4], None)],
            expect=[E("no-matching-variant", "htp.nonzero", no_variant("htp.nonzero", "NonZero"))])
    fx.case("fmod8", "aten.fmod.Tensor", [fx.ref("x8"), 2.0], [("float32", T, u8())],
            expect=[E("unsupported-op", "htp.fmod", pre +
                      "ONNX Runtime's QNN EP lowers Mod only with fmod=0 (\"QNN Mod Op only support fmod == 0 for now.\", "
                      "conformance cases fmod/<config>/<SoC> on every architecture), and the QNN partitioner has no "
                      "builder for fmod")])
    # No rule at all: reported, never valid by silence.
    fx.case("mystery", "aten.my_unknown_op.default", [fx.ref("x8")], [("float32", T, u8())],
            expect=[E("no-rule", "", "no rule covers aten.my_unknown_op.default, so the node would fall back to CPU.")])
    return fx


FAMILIES = (elementwise, activation, conv, pooling, normalization, reduction, shape, gather, comparison, resize,
            misc, constant, unsupported)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "htp")
    os.makedirs(out, exist_ok=True)
    for build in FAMILIES:
        for path in build().write(out):
            print("wrote", os.path.relpath(path))


if __name__ == "__main__":
    main()
