#!/usr/bin/env python3
"""Writes the ONNX test models of tests/data/onnx/ and, for each QDQ case, the equivalent
qnnrules JSON graph (ATen targets, quantized_decomposed Q/DQ nodes, the same node names), so a
test can require that both give the same diagnostics.

Run with the project's venv (it needs the onnx package):
    .venv/bin/python tests/data/onnx/make_models.py [OUT_DIR]     # default: this directory

The output is deterministic: the tests regenerate it into a temporary directory and compare
the bytes with the committed files.
"""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper, numpy_helper
import numpy as np

OPSET = 21  # QuantizeLinear/DequantizeLinear with block_size, int4/uint4, int16/uint16

# name -> (ONNX type, torch dtype name, quant_min, quant_max); 4-bit types in 8-bit containers.
QTYPES = {
    "uint8": (TensorProto.UINT8, "torch.uint8", 0, 255),
    "int8": (TensorProto.INT8, "torch.int8", -128, 127),
    "uint16": (TensorProto.UINT16, "torch.uint16", 0, 65535),
    "int16": (TensorProto.INT16, "torch.int16", -32768, 32767),
    "int32": (TensorProto.INT32, "torch.int32", -2**31, 2**31 - 1),
    "int4": (TensorProto.INT4, "torch.int8", -8, 7),
    "uint4": (TensorProto.UINT4, "torch.uint8", 0, 15),
}
NP_TYPES = {"uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16, "int32": np.int32}


def ref(name):
    return {"ref": name}


def f32(x):
    """ONNX stores scales as float32: the equivalent JSON graph carries the same values."""
    return float(np.float32(x))


class Case:
    """One model, written both as ONNX and as the qnnrules JSON graph it must read as."""

    def __init__(self, name, value_info=True):
        self.name = name
        self.value_info = value_info
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.json_nodes = []
        self.shapes = {}

    def _const(self, name, dtype, values, dims):
        if dtype in ("int4", "uint4"):
            t = helper.make_tensor(name, QTYPES[dtype][0], dims, list(values))
        elif dtype in NP_TYPES:
            t = numpy_helper.from_array(np.array(values, dtype=NP_TYPES[dtype]).reshape(dims), name)
        else:
            t = numpy_helper.from_array(np.array(values, dtype=np.float32).reshape(dims), name)
        self.inits.append(t)

    def input(self, name, shape):
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
        self.shapes[name] = shape
        self.json_nodes.append({"name": name, "kind": "input", "outputs": [{"dtype": "float32", "shape": shape}]})
        return name

    def qdq(self, t, dtype, scale, zp):
        """Activation t -> QuantizeLinear -> DequantizeLinear (per tensor)."""
        s, z = f"{t}_scale", f"{t}_zp"
        self._const(s, "float", [scale], [])
        self._const(z, dtype, [zp], [])
        q, dq = f"{t}_q", f"{t}_dq"
        self.nodes.append(helper.make_node("QuantizeLinear", [t, s, z], [q], name=q))
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [dq], name=dq))
        self.shapes[q] = self.shapes[dq] = self.shapes[t]
        _, tdt, qmin, qmax = QTYPES[dtype]
        shape = self.shapes[t]
        self.json_nodes.append({"name": q, "kind": "call", "target": "quantized_decomposed.quantize_per_tensor.default",
                                "source_op": "onnx::QuantizeLinear", "args": [ref(t), f32(scale), zp, qmin, qmax, tdt],
                                "outputs": [{"dtype": tdt[6:], "shape": shape}]})
        self.json_nodes.append({"name": dq, "kind": "call", "target": "quantized_decomposed.dequantize_per_tensor.default",
                                "source_op": "onnx::DequantizeLinear", "args": [ref(q), f32(scale), zp, qmin, qmax, tdt],
                                "outputs": [{"dtype": "float32", "shape": shape}]})
        return dq

    def weight(self, name, dtype, shape, scales, zps, axis=0, block=None):
        """A quantized initializer and its DequantizeLinear: per tensor (one scale), per axis, or
        block-wise (block = block size along `axis`, scales shaped like the blocks)."""
        count = int(np.prod(shape))
        values = [((i * 7) % 11) - 5 for i in range(count)]  # small deterministic codes, fit int4
        if QTYPES[dtype][2] == 0:  # unsigned: the same codes around the first zero point
            values = [v + zps[0] for v in values]
        self._const(name, dtype, values, shape)
        s, z = f"{name}_scale", f"{name}_zp"
        per_tensor = len(scales) == 1 and block is None
        if block is None:
            sdims = [] if per_tensor else [len(scales)]
        else:
            sdims = list(shape)
            sdims[axis] = shape[axis] // block
        self._const(s, "float", scales, sdims)
        self._const(z, dtype, zps, sdims)
        dq = f"{name}_dq"
        attrs = {} if per_tensor else {"axis": axis}
        if block is not None:
            attrs["block_size"] = block
        self.nodes.append(helper.make_node("DequantizeLinear", [name, s, z], [dq], name=dq, **attrs))
        self.shapes[dq] = shape
        _, tdt, qmin, qmax = QTYPES[dtype]
        self.json_nodes.append({"name": name, "kind": "parameter", "outputs": [{"dtype": tdt[6:], "shape": shape}]})
        if per_tensor:
            args = [ref(name), f32(scales[0]), zps[0], qmin, qmax, tdt]
            target = "quantized_decomposed.dequantize_per_tensor.default"
        else:
            ch_axis = (1 if axis == 0 else 0) if block is not None else axis
            args = [ref(name), [f32(v) for v in scales], zps, ch_axis, qmin, qmax, tdt]
            target = "quantized_decomposed.dequantize_per_channel.default"
        node = {"name": dq, "kind": "call", "target": target, "source_op": "onnx::DequantizeLinear", "args": args,
                "outputs": [{"dtype": "float32", "shape": shape}]}
        if block is not None:
            node["kwargs"] = {"block_size": [block if d == axis else 1 for d in range(len(shape))]}
        self.json_nodes.append(node)
        return dq

    def op(self, op_type, aten, name, inputs, out_shape, attrs=None, json_inputs=None):
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, **(attrs or {})))
        self.shapes[name] = out_shape
        args = [ref(i) if i else None for i in (json_inputs if json_inputs is not None else inputs)]
        # The op type the ONNX model names, which the reader keeps beside the rule's target.
        json_node = {"name": name, "kind": "call", "target": aten}
        if aten != "onnx::" + op_type:
            json_node["source_op"] = "onnx::" + op_type
        self.json_nodes.append({**json_node, "args": args,
                                "outputs": [{"dtype": "float32", "shape": out_shape}]})
        return name

    def output(self, t):
        self.outputs.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, self.shapes[t]))
        self.json_nodes.append({"name": "output", "kind": "output", "args": [[ref(t)]]})

    def model(self):
        value_info = []
        if self.value_info:
            graph_io = {v.name for v in self.inputs + self.outputs}
            for n in self.nodes:
                for o in n.output:
                    if o not in graph_io:
                        elem = TensorProto.FLOAT
                        if n.op_type == "QuantizeLinear":
                            elem = next(i for i in self.inits if i.name == n.input[2]).data_type
                        value_info.append(helper.make_tensor_value_info(o, elem, self.shapes[o]))
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits, value_info=value_info)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="qnnrules-tests")
        m.ir_version = 10
        return m

    def graph_json(self):
        return {"format": "qnnrules-graph", "version": 1, "name": self.name, "nodes": self.json_nodes}


def conv_8a8w():
    c = Case("conv_8a8w")
    x = c.qdq(c.input("x", [1, 3, 8, 8]), "uint8", 0.02, 128)
    w = c.weight("w", "int8", [4, 3, 3, 3], [0.01, 0.02, 0.03, 0.04], [0, 0, 0, 0], axis=0)
    b = c.weight("b", "int32", [4], [0.0002, 0.0004, 0.0006, 0.0008], [0, 0, 0, 0], axis=0)
    y = c.op("Conv", "aten.conv2d.default", "conv", [x, w, b], [1, 4, 6, 6])
    c.output(c.qdq(y, "uint8", 0.05, 10))
    return c


def linear_16a8w():
    c = Case("linear_16a8w")
    x = c.qdq(c.input("x", [2, 16]), "uint16", 0.0001, 32768)
    w = c.weight("w", "int8", [8, 16], [0.01] * 8, [0] * 8, axis=0)
    b = c.weight("b", "int32", [8], [0.000001] * 8, [0] * 8, axis=0)
    y = c.op("Gemm", "aten.linear.default", "fc", [x, w, b], [2, 8], attrs={"transB": 1})
    c.output(c.qdq(y, "uint16", 0.0002, 30000))
    return c


def matmul_16a16w():
    c = Case("matmul_16a16w")
    a = c.qdq(c.input("a", [1, 4, 8]), "uint16", 0.0001, 32768)
    b = c.qdq(c.input("b", [1, 8, 4]), "int16", 0.0001, 0)
    y = c.op("MatMul", "aten.matmul.default", "mm", [a, b], [1, 4, 4])
    c.output(c.qdq(y, "uint16", 0.001, 32768))
    return c


def conv_16a4w():
    c = Case("conv_16a4w")
    x = c.qdq(c.input("x", [1, 4, 6, 6]), "uint16", 0.0001, 32768)
    w = c.weight("w", "int4", [2, 4, 1, 1], [0.1, 0.2], [0, 0], axis=0)
    y = c.op("Conv", "aten.conv2d.default", "conv", [x, w], [1, 2, 6, 6])
    c.output(c.qdq(y, "uint16", 0.0002, 32768))
    return c


def conv_16a16w():
    """A Conv as ONNX Runtime's QNN quantizer writes it at 16a16w: uint16 activations and
    asymmetric uint16 weights (the ORT QNN EP converts them to symmetric int16 before QNN judges
    them). Refused on V68 (the 16a16w Conv needs V73): ONNX Runtime's session then fails."""
    c = Case("conv_16a16w")
    x = c.qdq(c.input("x", [1, 4, 8, 8]), "uint16", 0.0005, 32768)
    w = c.weight("w", "uint16", [8, 4, 3, 3], [0.0001], [30000])
    b = c.weight("b", "int32", [8], [0.00000005], [0])
    y = c.op("Conv", "aten.conv2d.default", "conv", [x, w, b], [1, 8, 6, 6])
    c.output(c.qdq(y, "uint16", 0.001, 32768))
    return c


def linear_16a4w_block():
    c = Case("linear_16a4w_block")
    x = c.qdq(c.input("x", [1, 64]), "uint16", 0.0001, 32768)
    w = c.weight("w", "int4", [4, 64], [0.01 * (i + 1) for i in range(8)], [0] * 8, axis=1, block=32)
    y = c.op("Gemm", "aten.linear.default", "fc", [x, w], [1, 4], attrs={"transB": 1})
    c.output(c.qdq(y, "uint16", 0.0002, 32768))
    return c


def add_8a():
    c = Case("add_8a")
    a = c.qdq(c.input("a", [1, 8]), "uint8", 0.01, 128)
    b = c.qdq(c.input("b", [1, 8]), "uint8", 0.02, 100)
    y = c.op("Add", "aten.add.Tensor", "add", [a, b], [1, 8])
    c.output(c.qdq(y, "uint8", 0.03, 120))
    return c


def sigmoid(scale, name):
    c = Case(name)
    x = c.qdq(c.input("x", [1, 4, 2, 2]), "uint8", 0.05, 128)
    y = c.op("Sigmoid", "aten.sigmoid.default", "sig", [x], [1, 4, 2, 2])
    c.output(c.qdq(y, "uint8", scale, 0))
    return c


def conv_16a16w_uint16_weights():
    """16-bit activations with asymmetric uint16 weights, named the way torch.onnx.export names
    nodes (the module's namespace, then the op): no HTP conv variant takes unsigned 16-bit
    weights; the nearest is the 16-bit one (signed symmetric), and the diagnostic names the
    module namespace and ONNX Runtime's remedy (weight_type=QuantType.QInt16)."""
    c = Case("conv_16a16w_uint16_weights")
    x = c.qdq(c.input("x", [1, 4, 6, 6]), "uint16", 0.0001, 32768)
    w = c.weight("w", "uint16", [2, 4, 1, 1], [0.001, 0.002], [32768, 32000], axis=0)
    y = c.op("Conv", "aten.conv2d.default", "/backbone/layer1/conv/Conv", [x, w], [1, 2, 6, 6])
    c.output(c.qdq(y, "uint16", 0.0002, 32768))
    return c


def no_rule():
    """Hardmax has no rule on any backend: reported, never valid by silence."""
    c = Case("no_rule")
    x = c.qdq(c.input("x", [1, 8]), "uint8", 0.01, 128)
    y = c.op("Hardmax", "onnx::Hardmax", "hardmax", [x], [1, 8])
    c.output(c.qdq(y, "uint8", 1 / 256, 0))
    return c


def conv3d_float():
    """Float Conv on a rank-5 tensor behind a Relu, without value_info: the rank that sends it
    to the conv3d rule comes from ONNX shape inference."""
    c = Case("conv3d_float", value_info=False)
    x = c.input("x", [1, 2, 4, 4, 4])
    r = c.op("Relu", "aten.relu.default", "relu", [x], [1, 2, 4, 4, 4])
    c._const("w", "float", [0.5] * (3 * 2 * 1 * 1 * 1), [3, 2, 1, 1, 1])
    y = c.op("Conv", "aten.conv3d.default", "conv", [r, "w"], [1, 3, 4, 4, 4])
    c.output(y)
    return c


def constant_chain():
    """conv_8a8w's graph as torch.onnx writes Q/DQ parameters: each scale or zero point comes out
    of a constant chain (Constant -> Identity, Constant -> Cast, ConstantOfShape, Reshape,
    Unsqueeze and Squeeze of initializers) instead of an initializer. The reader folds the chains
    (ONNX Runtime's constant folding does the same), so it reads as the same JSON graph."""
    c = Case("qdq_constant_chain")
    x = c.qdq(c.input("x", [1, 3, 8, 8]), "uint8", 0.02, 128)
    w = c.weight("w", "int8", [4, 3, 3, 3], [0.01] * 4, [0] * 4, axis=0)
    y = c.op("Conv", "aten.conv2d.default", "conv", [x, w], [1, 4, 6, 6])
    c.output(c.qdq(y, "uint8", 0.05, 10))
    return c


def fold_chains(m):
    """Replaces the Q/DQ parameter initializers of constant_chain() by constant chains."""
    g = m.graph
    drop = {"x_scale", "x_zp", "w_scale", "w_zp", "conv_scale", "conv_zp"}
    keep = [t for t in g.initializer if t.name not in drop]
    del g.initializer[:]
    g.initializer.extend(keep)
    g.initializer.extend([
        numpy_helper.from_array(np.array([4], dtype=np.int64), "w_scale_shape"),
        numpy_helper.from_array(np.zeros([1, 4], dtype=np.int8), "w_zp_2d"),
        numpy_helper.from_array(np.array([4], dtype=np.int64), "w_zp_shape"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0"),
        numpy_helper.from_array(np.array([10], dtype=np.uint8), "conv_zp_1d"),
    ])
    chain = [
        helper.make_node("Constant", [], ["x_scale_c"], name="x_scale_c",
                         value=numpy_helper.from_array(np.array(0.02, dtype=np.float32))),
        helper.make_node("Identity", ["x_scale_c"], ["x_scale"], name="x_scale_id"),
        helper.make_node("Constant", [], ["x_zp_c"], name="x_zp_c", value_int=128),
        helper.make_node("Cast", ["x_zp_c"], ["x_zp"], name="x_zp_cast", to=TensorProto.UINT8),
        helper.make_node("ConstantOfShape", ["w_scale_shape"], ["w_scale"], name="w_scale_fill",
                         value=numpy_helper.from_array(np.array([0.01], dtype=np.float32))),
        helper.make_node("Reshape", ["w_zp_2d", "w_zp_shape"], ["w_zp"], name="w_zp_reshape"),
        helper.make_node("Constant", [], ["conv_scale_c"], name="conv_scale_c", value_float=0.05),
        helper.make_node("Unsqueeze", ["conv_scale_c", "axes0"], ["conv_scale"], name="conv_scale_unsqueeze"),
        helper.make_node("Squeeze", ["conv_zp_1d", "axes0"], ["conv_zp"], name="conv_zp_squeeze"),
    ]
    nodes = chain + list(g.node)
    del g.node[:]
    g.node.extend(nodes)
    return m


# --- torch.onnx's forms of a pt2e-quantized graph (the Quantizer suite's exported models) ------
# ONNX only: what they test is how ONNX Runtime groups the ONNX nodes with their Q/DQ nodes.

def torch_scalar_operands():
    """Add/Mul with a float scalar initializer and no DequantizeLinear (torch.onnx's RMSNorm
    epsilon and attention scale): ORT does not group them with their Q/DQ, QNN gets float32
    nodes (run in FP16): valid."""
    c = Case("torch_scalar_operands")
    x = c.qdq(c.input("x", [1, 16, 8]), "uint8", 0.01, 128)
    c._const("eps", "float", [1e-6], [])
    y = c.qdq(c.op("Add", "aten.add.Tensor", "add_eps", [x, "eps"], [1, 16, 8]), "uint8", 0.01, 128)
    c._const("scale", "float", [0.25], [])
    c.output(c.qdq(c.op("Mul", "aten.mul.Tensor", "mul_scale", [y, "scale"], [1, 16, 8]), "uint8", 0.003, 128))
    return c


def torch_decompositions():
    """rsqrt -> Sqrt -> Reciprocal and silu -> Sigmoid -> Mul with no Q/DQ inside (torch.onnx's
    decompositions of a quantized rsqrt and silu): float32 nodes for QNN (run in FP16): valid."""
    c = Case("torch_decompositions")
    x = c.qdq(c.input("x", [1, 16, 8]), "uint8", 0.01, 0)
    s = c.op("Sqrt", "aten.sqrt.default", "sqrt", [x], [1, 16, 8])
    r = c.qdq(c.op("Reciprocal", "aten.reciprocal.default", "rsqrt", [s], [1, 16, 8]), "uint8", 0.05, 0)
    g = c.op("Sigmoid", "aten.sigmoid.default", "sigmoid", [r], [1, 16, 8])
    c.output(c.qdq(c.op("Mul", "aten.mul.Tensor", "silu", [r, g], [1, 16, 8]), "uint8", 0.05, 10))
    return c


def torch_linear_transpose(dtype="int8", name="torch_linear_transpose", act="uint8", per_channel=False):
    """torch.onnx's linear: MatMul(x, Transpose(DequantizeLinear(W [out, in]))). ORT folds the
    Transpose into the constant and groups DQ -> MatMul -> Q (FullyConnected, static weight);
    torch.onnx writes our Quantizer's linear weights per tensor; per channel, the axis moves
    with the transpose (0 -> 1: the reader test checks it)."""
    c = Case(name)
    x = c.qdq(c.input("x", [1, 4, 16]), act, 0.01 if act == "uint8" else 0.0001, 128 if act == "uint8" else 32768)
    w = (c.weight("w", dtype, [8, 16], [0.01 * (i + 1) for i in range(8)], [0] * 8, axis=0) if per_channel
         else c.weight("w", dtype, [8, 16], [0.01], [0]))
    wt = c.op("Transpose", "aten.permute.default", "w_t", [w], [16, 8], attrs={"perm": [1, 0]})
    y = c.op("MatMul", "aten.matmul.default", "linear", [x, wt], [1, 4, 8])
    c.output(c.qdq(y, act, 0.05 if act == "uint8" else 0.001, 128 if act == "uint8" else 32768))
    return c


ONNX_ONLY = {"conv3d_float", "torch_scalar_operands", "torch_decompositions", "torch_linear_transpose",
             "torch_linear_transpose_16a16w", "torch_linear_transpose_per_channel"}

CASES = [conv_8a8w, linear_16a8w, matmul_16a16w, conv_16a4w, conv_16a16w, linear_16a4w_block, add_8a,
         lambda: sigmoid(1 / 255, "sigmoid_wrong_scale"), lambda: sigmoid(1 / 256, "sigmoid_right_scale"),
         no_rule, conv3d_float, constant_chain, conv_16a16w_uint16_weights, torch_scalar_operands,
         torch_decompositions, torch_linear_transpose,
         lambda: torch_linear_transpose("int16", "torch_linear_transpose_16a16w", "uint16"),
         lambda: torch_linear_transpose(name="torch_linear_transpose_per_channel", per_channel=True)]


# --- shapes ONNX Runtime knows only at run time (io/onnx/OnnxRuntimeShapes.h), ReshapeFusion -------

def _i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def _qdq_nodes(t, scale, zp, nodes, inits, domain=""):
    inits += [numpy_helper.from_array(np.array(scale, dtype=np.float32), f"{t}_s"),
              numpy_helper.from_array(np.array(zp, dtype=np.uint16 if domain else np.uint8), f"{t}_z")]
    nodes += [helper.make_node("QuantizeLinear", [t, f"{t}_s", f"{t}_z"], [f"{t}_q"], name=f"{t}_q", domain=domain),
              helper.make_node("DequantizeLinear", [f"{t}_q", f"{t}_s", f"{t}_z"], [f"{t}_dq"], name=f"{t}_dq",
                               domain=domain)]
    return f"{t}_dq"


def runtime_shapes():
    """No value_info. reshape_runtime's shape is computed from a size that has a Q/DQ pair (ORT
    never folds a DequantizeLinear): its output, sigmoid_after and reshape_fused are known only
    at run time. reshape_fused's shape is ReshapeFusion's form (its own input's dims 0 and 1, then
    -1): its Shape/Gather/Unsqueeze/Concat nodes go. reshape_static's shape is integer arithmetic
    on a static shape: ORT folds it."""
    n, i = [], [_i64("two_idx", 2), _i64("three_idx", 3), _i64("zero_idx", 0), _i64("one_idx", 1),
                _i64("axes0", [0]), _i64("head", [1, 8]), _i64("minus1", [-1]), _i64("four", 4),
                numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two_f")]
    x = _qdq_nodes("x", 0.02, 128, n, i)
    n += [helper.make_node("Shape", [x], ["s"], name="shape_x"),
          helper.make_node("Gather", ["s", "two_idx"], ["h"], name="gather_h"),
          helper.make_node("Cast", ["h"], ["hf"], name="cast_hf", to=TensorProto.FLOAT)]
    hf = _qdq_nodes("hf", 1.0, 0, n, i)
    n += [helper.make_node("Mul", [hf, "two_f"], ["h2"], name="mul_size"),
          helper.make_node("Cast", ["h2"], ["h2i"], name="cast_h2i", to=TensorProto.INT64),
          helper.make_node("Unsqueeze", ["h2i", "axes0"], ["h2u"], name="unsqueeze_h2"),
          helper.make_node("Concat", ["head", "h2u", "minus1"], ["shp"], name="concat_runtime", axis=0),
          helper.make_node("Reshape", [x, "shp"], ["r"], name="reshape_runtime")]
    r = _qdq_nodes("r", 0.02, 128, n, i)
    n.append(helper.make_node("Sigmoid", [r], ["sig"], name="sigmoid_after"))
    sig = _qdq_nodes("sig", 1 / 256, 0, n, i)
    for k, idx in ((0, "zero_idx"), (1, "one_idx")):
        n += [helper.make_node("Shape", [sig], [f"fs{k}"], name=f"fused_shape{k}"),
              helper.make_node("Gather", [f"fs{k}", idx], [f"fg{k}"], name=f"fused_gather{k}"),
              helper.make_node("Unsqueeze", [f"fg{k}", "axes0"], [f"fu{k}"], name=f"fused_unsqueeze{k}")]
    n += [helper.make_node("Concat", ["fu0", "fu1", "minus1"], ["fshp"], name="fused_concat", axis=0),
          helper.make_node("Reshape", [sig, "fshp"], ["fr"], name="reshape_fused")]
    fr = _qdq_nodes("fr", 1 / 256, 0, n, i)
    n += [helper.make_node("Gather", ["s", "three_idx"], ["w"], name="gather_w"),
          helper.make_node("Mul", ["w", "four"], ["w4"], name="mul_w"),
          helper.make_node("Unsqueeze", ["w4", "axes0"], ["w4u"], name="unsqueeze_w"),
          helper.make_node("Concat", ["head", "w4u"], ["sshp"], name="concat_static", axis=0),
          helper.make_node("Reshape", [x, "sshp"], ["st"], name="reshape_static")]
    st = _qdq_nodes("st", 0.02, 128, n, i)
    g = helper.make_graph(n, "runtime_shapes", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 4, 4])],
                          [helper.make_tensor_value_info(fr, TensorProto.FLOAT, ["b", "c", "n"]),
                           helper.make_tensor_value_info(st, TensorProto.FLOAT, [1, 8, 16])], i)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="qnnrules-tests")
    m.ir_version = 10
    return m


def contrib_qdq_16bit():
    """ORT's com.microsoft QuantizeLinear/DequantizeLinear (16-bit before opset 21), no value_info:
    the reader infers the shapes after them (sigmoid's output is [1, 3, 8, 8])."""
    n, i = [], []
    x = _qdq_nodes("x", 0.0001, 32768, n, i, domain="com.microsoft")
    n.append(helper.make_node("Sigmoid", [x], ["sig"], name="sigmoid"))
    sig = _qdq_nodes("sig", 1 / 65536, 0, n, i, domain="com.microsoft")
    g = helper.make_graph(n, "contrib_qdq_16bit", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info(sig, TensorProto.FLOAT, [1, 3, 8, 8])], i)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                          producer_name="qnnrules-tests")
    m.ir_version = 8
    return m


def broken_models(good, conv3d):
    """Bad inputs, each a clear error with exit code 2. `conv3d` (no value_info) has its Conv
    input's shape from ONNX shape inference: the reader checks the ranks ONNX 1.12's
    convolution inference does not (it crashed on a rank-5 weight behind a rank-4 input)."""
    raw = good.SerializeToString()
    out = {"truncated.onnx": raw[: len(raw) // 2],
           "corrupt.onnx": b"\x08\x0a\x3a\xff\xff\xff\xff\x0f" + bytes(range(256)) * 4}

    def edited(edit, base=good):
        m = onnx.ModelProto()
        m.CopyFrom(base)
        edit(m.graph)
        return m.SerializeToString()

    def unknown_ref(g):
        g.node[2].input[0] = "nowhere"  # the first weight's DequantizeLinear reads a tensor nobody makes

    def cycle(g):
        # x_q now reads the conv's quantized output: x_q -> x_dq -> conv -> conv_q -> x_q.
        g.node[0].input[0] = "conv_q"

    def missing_initializer(g):
        keep = [t for t in g.initializer if t.name != "w_scale"]
        del g.initializer[:]
        g.initializer.extend(keep)

    def conv_weight_rank(g):
        del g.initializer[0].dims[-1]  # weight [3, 2, 1, 1] behind a rank-5 input

    def conv_pads(g):
        g.node[1].attribute.append(onnx.helper.make_attribute("pads", [0, 0]))

    def scale_from_input(g):
        # The weight scale is an Identity of a graph input: not a constant, so nothing to fold.
        keep = [t for t in g.initializer if t.name != "w_scale"]
        del g.initializer[:]
        g.initializer.extend(keep)
        g.input.append(helper.make_tensor_value_info("runtime_scale", TensorProto.FLOAT, [4]))
        nodes = [helper.make_node("Identity", ["runtime_scale"], ["w_scale"], name="w_scale_id")] + list(g.node)
        del g.node[:]
        g.node.extend(nodes)

    out["scale_from_input.onnx"] = edited(scale_from_input)
    out["conv_weight_rank.onnx"] = edited(conv_weight_rank, conv3d)
    out["conv_pads.onnx"] = edited(conv_pads, conv3d)
    out["unknown_ref.onnx"] = edited(unknown_ref)
    out["cycle.onnx"] = edited(cycle)
    out["missing_initializer.onnx"] = edited(missing_initializer)
    return out


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out_dir, exist_ok=True)
    models = {}
    for make in CASES:
        c = make()
        m = c.model()
        if c.name == "qdq_constant_chain":
            m = fold_chains(m)
        if c.value_info:
            onnx.checker.check_model(m)
        models[c.name] = m
        with open(os.path.join(out_dir, c.name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
        if c.name not in ONNX_ONLY:
            with open(os.path.join(out_dir, c.name + ".json"), "w") as f:
                json.dump(c.graph_json(), f, indent=1)
                f.write("\n")
    for name, m in (("runtime_shapes", runtime_shapes()), ("contrib_qdq_16bit", contrib_qdq_16bit())):
        onnx.checker.check_model(m)
        with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
    for name, data in broken_models(models["conv_8a8w"], models["conv3d_float"]).items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
