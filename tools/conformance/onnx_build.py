"""Writes conformance cases as QDQ ONNX models (what the oracle, ONNX Runtime's QNN EP, reads).

Each quantized activation is graph input -> QuantizeLinear -> DequantizeLinear -> op; weights are
quantized initializers -> DequantizeLinear; each quantized output is op -> Q -> DQ -> graph output.
Float and integer tensors go straight in and out. Several cases can share one model (a batch):
every name is prefixed with the case's key, so the cases stay independent subgraphs.
Bytes are deterministic: values come from a generator seeded by the case id.
"""
import zlib

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h

ONNX_FLOAT = {"float16": T.FLOAT16, "float32": T.FLOAT}
ONNX_Q = {"uint8": T.UINT8, "int8": T.INT8, "uint16": T.UINT16, "int16": T.INT16, "int4": T.INT4,
          "int2": T.INT2, "int32": T.INT32}
ONNX_PLAIN = {"int32": T.INT32, "bool": T.BOOL, "int64": T.INT64}
RANGES = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
          "int4": (-8, 7), "int2": (-2, 1), "int32": (-1000, 1000)}


def key(case):
    """The node-name prefix of a case inside a batch model (ONNX names allow dots)."""
    return case["id"].replace("/", ".")


def float_dtype(case):
    for t in case["inputs"] + case["outputs"]:
        if "float" in t["enc"]:
            return t["enc"]["float"]
    return "float32"


def needs_opset(case):
    if any(t["enc"].get("q") == "int2" for t in case["inputs"]):
        return 25
    return 23 if case["onnx_op"] == "RMSNormalization" else 21


def _kn_form(case):
    """A Gemm case with transB=0: B written as [K, N], its per-channel axis swapped."""
    case = dict(case, inputs=[dict(t) for t in case["inputs"]])
    w = case["inputs"][1]
    w["shape"] = list(reversed(w["shape"]))
    if "axis" in w["enc"]:
        w["enc"] = dict(w["enc"], axis=1 - w["enc"]["axis"])
    return case


class _Builder:
    def __init__(self):
        self.nodes, self.inputs, self.outputs, self.inits, self.value_info = [], [], [], [], []

    def init(self, name, onnx_type, dims, values):
        as_float = onnx_type in (T.FLOAT, T.FLOAT16)
        self.inits.append(h.make_tensor(name, onnx_type, dims, [float(v) if as_float else int(v)
                                                                for v in np.asarray(values).ravel()]))
        return name

    def qparams(self, name, enc, shape, stype=T.FLOAT):
        """Scale and zero-point initializers of an encoding (per tensor, per channel or per block)."""
        q = enc["q"]
        attrs = {}
        if "axis" in enc:
            attrs["axis"] = enc["axis"]
            scales = np.array(enc["scale"], np.float32)
            zps = np.array(enc["zp"])
            if "block" in enc:
                # Block-wise along the input-channel axis (1 - axis): one scale per block.
                baxis = 1 - enc["axis"]
                attrs = {"axis": baxis, "block_size": enc["block"]}
                sdims = list(shape)
                sdims[baxis] = shape[baxis] // enc["block"]
                # Every block of a channel takes that channel's scale.
                scales = scales.reshape([-1 if i == enc["axis"] else 1 for i in range(len(shape))]) \
                    * np.ones(sdims, np.float32)
                zps = np.zeros(sdims, np.int64)
            else:
                sdims = [len(enc["scale"])]
            s = self.init(name + "_s", stype, sdims, scales)
            z = self.init(name + "_z", ONNX_Q[q], sdims, zps)
        else:
            s = self.init(name + "_s", stype, [], [enc["scale"]])
            z = self.init(name + "_z", ONNX_Q[q], [], [enc["zp"]])
        return s, z, attrs

    def tensor_in(self, k, i, t, rng, fdt):
        name = f"{k}.in{i}"
        enc = t["enc"]
        if t["role"] == "act":
            if "q" in enc:
                self.inputs.append(h.make_tensor_value_info(name, T.FLOAT, t["shape"]))
                s, z, _ = self.qparams(name, enc, t["shape"])
                self.nodes.append(h.make_node("QuantizeLinear", [name, s, z], [name + "_q"], name=name + "_Q"))
                self.nodes.append(h.make_node("DequantizeLinear", [name + "_q", s, z], [name + "_dq"],
                                              name=name + "_DQ"))
                return name + "_dq"
            onnx_type = ONNX_FLOAT[enc["float"]] if "float" in enc else ONNX_PLAIN[enc["plain"]]
            self.inputs.append(h.make_tensor_value_info(name, onnx_type, t["shape"]))
            return name
        # weights and scalars: constants
        count = int(np.prod(t["shape"])) if t["shape"] else 1
        if "q" in enc:
            lo, hi = RANGES[enc["q"]]
            if t["role"] == "scalar":
                vals = [min(hi, int(enc["zp"]) + 10)]
            else:
                vals = rng.integers(max(lo, -50), min(hi, 50) + 1, count)
                if enc["q"].startswith("u"):
                    vals = rng.integers(lo, min(hi, 255) + 1, count)
            self.init(name + "_w", ONNX_Q[enc["q"]], t["shape"], vals)
            # The scale's type is the dequantized type: float16 next to float16 activations.
            s, z, attrs = self.qparams(name, enc, t["shape"], ONNX_FLOAT[fdt])
            self.nodes.append(h.make_node("DequantizeLinear", [name + "_w", s, z], [name + "_dq"],
                                          name=name + "_DQ", **attrs))
            return name + "_dq"
        if "values" in t:
            onnx_type = ONNX_FLOAT[enc["float"]] if "float" in enc else ONNX_PLAIN[enc["plain"]]
            return self.init(name + "_w", onnx_type, t["shape"], t["values"])
        if "float" in enc:
            vals = rng.uniform(0.5, 1.5, count) if t.get("positive") or t["role"] == "scalar" \
                else rng.uniform(-1, 1, count)
            return self.init(name + "_w", ONNX_FLOAT[enc["float"]], t["shape"], vals)
        return self.init(name + "_w", ONNX_PLAIN[enc["plain"]], t["shape"], rng.integers(1, 4, count))

    def tensor_out(self, k, i, t, produced):
        name = f"{k}.out{i}"
        enc = t["enc"]
        if "q" in enc:
            # The op's float output, typed: ORT's QNN EP asks for the shape of every node-unit
            # tensor ("Cannot get shape" when ONNX's inference has none, e.g. GroupNormalization).
            self.value_info.append(h.make_tensor_value_info(produced, T.FLOAT, t["shape"]))
            s, z, _ = self.qparams(name, enc, t["shape"])
            self.nodes.append(h.make_node("QuantizeLinear", [produced, s, z], [name + "_q"], name=name + "_Q"))
            self.nodes.append(h.make_node("DequantizeLinear", [name + "_q", s, z], [name], name=name + "_DQ"))
            self.outputs.append(h.make_tensor_value_info(name, T.FLOAT, t["shape"]))
        else:
            onnx_type = ONNX_FLOAT[enc["float"]] if "float" in enc else ONNX_PLAIN[enc["plain"]]
            self.outputs.append(h.make_tensor_value_info(produced, onnx_type, t["shape"]))


def _op_inputs_and_attrs(b, case, k, ins, fdt):
    """ONNX attributes, and constant operands that ONNX takes as inputs (axes, shape, pads...)."""
    attrs = {k: v for k, v in case["attrs"].items() if not k.startswith("_")}
    ins = list(ins)
    ftype = ONNX_FLOAT[fdt]
    # Order matters where ONNX takes several: Slice(starts, ends, axes).
    for a in ("shape_input", "pads_input", "repeats_input", "starts_input", "ends_input", "axes_input", "k_input",
              "split_input"):
        if a in attrs:
            vals = attrs.pop(a)
            ins.append(b.init(f"{k}.{a}", T.INT64, [len(vals)], vals))
    if "scales_input" in attrs:
        vals = attrs.pop("scales_input")
        ins += ["", b.init(f"{k}.scales", T.FLOAT, [len(vals)], vals)]
    if "axis_input_scalar" in attrs:
        ins.append(b.init(f"{k}.axis", T.INT64, [], [attrs.pop("axis_input_scalar")]))
    if "exponent_const" in attrs:
        value = attrs.pop("exponent_const")
        enc = case["inputs"][0]["enc"]
        if "q" in enc:
            ins.append(_quantized_constant(b, f"{k}.exp", enc, value))
        else:
            ins.append(b.init(f"{k}.exp", ftype, [], [value]))
    if case["onnx_op"] == "Clip":
        ins += [b.init(f"{k}.min", ftype, [], [-1.0]), b.init(f"{k}.max", ftype, [], [1.0])]
    if case["onnx_op"] == "ReduceMean" and "axes" in attrs:
        vals = attrs.pop("axes")
        ins.append(b.init(f"{k}.axes", T.INT64, [len(vals)], vals))
    return ins, attrs


def _quantized_constant(b, name, enc, value):
    q = int(round(value / enc["scale"])) + int(enc["zp"])
    lo, hi = RANGES[enc["q"]]
    b.init(name + "_w", ONNX_Q[enc["q"]], [], [max(lo, min(hi, q))])
    s, z, _ = b.qparams(name, {"q": enc["q"], "scale": enc["scale"], "zp": enc["zp"]}, [])
    b.nodes.append(h.make_node("DequantizeLinear", [name + "_w", s, z], [name + "_dq"], name=name + "_DQ"))
    return name + "_dq"


def add_case(b, case):
    if case["attrs"].get("_onnx_weight_kn"):
        case = _kn_form(case)
    k = key(case)
    rng = np.random.default_rng(zlib.crc32(case["id"].encode()))
    fdt = float_dtype(case)
    ins = [b.tensor_in(k, i, t, rng, fdt) for i, t in enumerate(case["inputs"])]
    out = f"{k}.y"
    if case["builder"] == "silu":
        b.nodes.append(h.make_node("Sigmoid", ins, [f"{k}.sig"], name=k))
        mid = f"{k}.sig"
        enc = case["outputs"][0]["enc"]
        if "q" in enc:
            # The Sigmoid's own output gets its fixed encoding, as a quantizer would give it.
            bits = 16 if enc["q"] in ("uint16", "int16") else 8
            senc = {"q": enc["q"], "scale": 1 / (1 << bits), "zp": 0}
            if enc["q"].startswith("int"):
                senc["zp"] = -(1 << (bits - 1))
            s, z, _ = b.qparams(f"{k}.sig", senc, [])
            b.nodes.append(h.make_node("QuantizeLinear", [mid, s, z], [mid + "_q"], name=f"{k}.sig_Q"))
            b.nodes.append(h.make_node("DequantizeLinear", [mid + "_q", s, z], [mid + "_dq"], name=f"{k}.sig_DQ"))
            mid = mid + "_dq"
        b.nodes.append(h.make_node("Mul", [ins[0], mid], [out], name=k + "_mul"))
    else:
        ins, attrs = _op_inputs_and_attrs(b, case, k, ins, fdt)
        outs = [out] + [f"{k}.y{i}" for i in range(1, len(case["outputs"]))]
        domain = case["attrs"].get("_domain")
        b.nodes.append(h.make_node(case["onnx_op"], ins, outs, name=k, domain=domain, **attrs))
        for i in range(1, len(outs)):
            b.tensor_out(k, i, case["outputs"][i], outs[i])
    b.tensor_out(k, 0, case["outputs"][0], out)


def target_nodes(case):
    """Names of the ONNX nodes whose verdicts make the case's verdict."""
    k = key(case)
    return [k, k + "_mul"] if case["builder"] == "silu" else [k]


def build_model(cases):
    b = _Builder()
    for c in cases:
        add_case(b, c)
    opset = max(needs_opset(c) for c in cases)
    g = h.make_graph(b.nodes, "conformance", b.inputs, b.outputs, b.inits, value_info=b.value_info)
    imports = [h.make_opsetid("", opset)]
    if any(c["attrs"].get("_domain") == "com.microsoft" for c in cases):
        imports.append(h.make_opsetid("com.microsoft", 1))
    m = h.make_model(g, opset_imports=imports, producer_name="qnnrules-conformance")
    m.ir_version = 10 if opset <= 21 else 11
    return m


def model_bytes(cases):
    return build_model(cases).SerializeToString(deterministic=True)
