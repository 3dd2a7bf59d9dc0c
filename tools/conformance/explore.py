"""The constraint-space explorer (issue 32): oracle cases that vary one dimension real graphs vary,
for many ops at once, instead of the one shape per op the unit cases (cases.py) use.

  .venv/bin/python -m conformance.explore --dimension rank [--socs SM8350,SM8650,SM8850] [--jobs 2]
(with tools/ on PYTHONPATH) runs the cases of one dimension through the oracle (oracle.py, ORT's QNN
EP on the wheel's libQnnHtp.so: op validation and graph finalize) and writes
tests/conformance/explore/<dimension>.json in the format of tests/conformance/htp.json, so the
comparison (compare.py --data ... --exceptions ...) and the fast CTest read it the same way.

Dimensions:
  rank   every op of the table below at ranks 1..8 (the shape [2, 3, 4, 5, 2, 3, 4, 5][:r], so no
         dimension is 1 and every axis is told apart), in 8-bit (8a), 16-bit (16a) and float16.
  forms  the ONNX forms ORT's QNN EP lowers differently from their neighbours, each across the
         encodings that tell the lowerings apart: 1-D against 2-D Conv/ConvTranspose with uint16
         and int16 weights (the EP converts uint16 weights of 2-D convolutions only), Einsum and
         MatMul with a constant 16-bit second input of rank 2 and 3 (FullyConnected or MatMul),
         Expand, Tile, Reshape, Transpose, Slice, Pad and Split with an output encoding of their
         own (the EP lowers Expand to a multiplication, the others to their QNN op),
         LayerNorm with its scale and bias quantized like activations (OLMo).
  empty  tensors with a dimension of 0: a Slice with an empty output, ops reading an empty input
         (element-wise, Transpose, Softmax, ReduceMean, MatMul with an empty inner
         dimension, Concat).
  scale  scale magnitudes from 1e-10 to 1.3e36 (SCALES) on every tensor of an op, or on its output only
         (the requantization ratio at its extremes): Relu, ReduceMean, Transpose, Add, Mul, Concat;
         8-bit and 16-bit. Config names <8a|16a>_<same|out>_s<i>, i indexing SCALES.
  dims   dimensions of 1 and large dimensions (all ones, a 65536-long axis, a million elements,
         a 2048-long sequence, 1024 x 1024) on Relu, Softmax, ReduceMean, Transpose, Concat, and
         broadcasting patterns (a row, a column, both sides, a scalar, a rank gap) on Add, Mul, Sub;
         8-bit and float16.
Each case id is "<op>.r<rank>/<config>/<soc>". Deterministic: the same code writes the same cases.
"""
import argparse
import os
import sys
import time

from . import cases as C
from . import encodings as E
from . import oracle
from .record import SPEC_KEYS, write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "conformance", "explore")
DIMS = [2, 3, 4, 5, 2, 3, 4, 5]
RANKS = range(1, 9)
CONFIGS = {"8a": E.U8, "16a": E.U16, "fp16": E.F16}


def _fixed_out(enc, op):
    """The output encoding QNN fixes for Sigmoid / Tanh / Softmax-like outputs at enc's width."""
    wide = enc["q"] == "uint16"
    if op == "tanh":
        return E.act("uint16", 1 / 32768, 32768) if wide else E.act("uint8", 1 / 128, 128)
    return E.act("uint16", 1 / 65536, 0) if wide else E.act("uint8", 1 / 256, 0)
DEFAULT_SOCS = ["SM8350", "SM8650", "SM8850"]


def _shape(r):
    return DIMS[:r]


# Ops whose rank is free in ONNX and in ATen: (op, rule, aten target, ONNX op, QNN op, how to build
# the case at rank r: a function r -> (extra aten args, ONNX attrs, output shape, shares encoding)).
def _same(r):
    return [], {}, _shape(r), False


def _last_axis(r):
    return [-1], {"axis": -1}, _shape(r), False


def _reduce(r):
    return [[-1], True], {"keepdims": 1, "axes_input": [-1]}, _shape(r)[:-1] + [1], False


def _reduce_mean(r):
    return [[-1], True], {"keepdims": 1, "axes": [-1]}, _shape(r)[:-1] + [1], False


def _transpose(r):
    # Swaps the last two axes (rank 1: the identity permutation).
    perm = list(range(r))
    if r >= 2:
        perm[-1], perm[-2] = perm[-2], perm[-1]
    return [perm], {"perm": perm}, [_shape(r)[p] for p in perm], True


def _reshape_to(r):
    # From rank 2 to rank r (the window partition of window attention is a reshape to rank 6).
    return [_shape(r)], {"shape_input": _shape(r)}, _shape(r), True


def _slice(r):
    s = _shape(r)
    out = s[:-1] + [1]
    return [r - 1, 0, 1], {"starts_input": [0], "ends_input": [1], "axes_input": [r - 1]}, out, True


def _pad(r):
    pads = [0] * (2 * r)
    pads[r - 1], pads[2 * r - 1] = 1, 1
    out = _shape(r)[:-1] + [_shape(r)[-1] + 2]
    return [[1, 1]], {"pads_input": pads}, out, True


def _tile(r):
    reps = [1] * (r - 1) + [2]
    return [reps], {"repeats_input": reps}, _shape(r)[:-1] + [_shape(r)[-1] * 2], True


def _cumsum(r):
    return [r - 1], {"axis_input_scalar": r - 1}, _shape(r), False


UNARY_OPS = [
    ("relu", "htp.relu", "aten.relu.default", "Relu", "Relu", _same),
    ("gelu", "htp.gelu", "aten.gelu.default", "Gelu", "Gelu", _same),
    ("sigmoid", "htp.sigmoid", "aten.sigmoid.default", "Sigmoid", "Sigmoid", _same),
    ("tanh", "htp.tanh", "aten.tanh.default", "Tanh", "Tanh", _same),
    ("abs", "htp.abs", "aten.abs.default", "Abs", "ElementWiseAbs", _same),
    ("exp", "htp.exp", "aten.exp.default", "Exp", "ElementWiseExp", _same),
    ("sqrt", "htp.sqrt", "aten.sqrt.default", "Sqrt", "ElementWiseSquareRoot", _same),
    ("softmax", "htp.softmax", "aten.softmax.int", "Softmax", "Softmax", _last_axis),
    ("mean", "htp.mean", "aten.mean.dim", "ReduceMean", "ReduceMean", _reduce_mean),
    ("sum", "htp.sum", "aten.sum.dim_IntList", "ReduceSum", "ReduceSum", _reduce),
    ("amax", "htp.amax", "aten.amax.default", "ReduceMax", "ReduceMax", _reduce),
    ("permute", "htp.permute", "aten.permute.default", "Transpose", "Transpose", _transpose),
    ("slice", "htp.slice", "aten.slice.Tensor", "Slice", "StridedSlice", _slice),
    ("pad", "htp.pad", "aten.constant_pad_nd.default", "Pad", "Pad", _pad),
    ("repeat", "htp.repeat", "aten.repeat.default", "Tile", "Tile", _tile),
    ("cumsum", "htp.cumsum", "aten.cumsum.default", "CumSum", "CumulativeSum", _cumsum),
]

# Binary element-wise ops, both inputs of rank r.
BINARY_OPS = [
    ("add", "htp.add", "aten.add.Tensor", "Add", "ElementWiseAdd"),
    ("mul", "htp.mul", "aten.mul.Tensor", "Mul", "ElementWiseMultiply"),
    ("sub", "htp.sub", "aten.sub.Tensor", "Sub", "ElementWiseSubtract"),
    ("div", "htp.div", "aten.div.Tensor", "Div", "ElementWiseDivide"),
    ("maximum", "htp.maximum", "aten.maximum.default", "Max", "ElementWiseMaximum"),
]


def _named(case, r):
    return dict(case, op=f"{case['op']}.r{r}")


def rank_cases():
    for cfg, enc in CONFIGS.items():
        for r in RANKS:
            for op, rule, aten, onnx_op, qnn_op, form in UNARY_OPS:
                extra, attrs, oshape, shared = form(r)
                out = enc if (shared or E.is_float(enc)) else E.act(enc["q"], 0.04)
                if op in ("sigmoid", "tanh") and not E.is_float(enc):
                    out = _fixed_out(enc, op)
                yield _named(C._case(op, rule, aten, onnx_op, qnn_op, cfg,
                                     [{"role": "act", "shape": _shape(r), "enc": enc}],
                                     [{"shape": oshape, "enc": out}], ["$0"] + extra, attrs), r)
            # Reshape from rank 2 to rank r (its input shape: the same elements as a matrix).
            n = 1
            for d in _shape(r):
                n *= d
            extra, attrs, oshape, _ = _reshape_to(r)
            yield _named(C._case("reshape", "htp.reshape", "aten.view.default", "Reshape", "Reshape", cfg,
                                 [{"role": "act", "shape": [n // _shape(r)[-1], _shape(r)[-1]] if r > 1 else [1, n],
                                   "enc": enc}],
                                 [{"shape": oshape, "enc": enc}], ["$0"] + extra, attrs), r)
            for op, rule, aten, onnx_op, qnn_op in BINARY_OPS:
                out = enc if E.is_float(enc) else E.act(enc["q"], 0.1)
                yield _named(C._case(op, rule, aten, onnx_op, qnn_op, cfg,
                                     [{"role": "act", "shape": _shape(r), "enc": enc},
                                      {"role": "act", "shape": _shape(r), "enc": enc}],
                                     [{"shape": _shape(r), "enc": out}], ["$0", "$1"]), r)
            # Concatenation along the last axis.
            s = _shape(r)
            yield _named(C._case("cat", "htp.cat", "aten.cat.default", "Concat", "Concat", cfg,
                                 [{"role": "act", "shape": s, "enc": enc}, {"role": "act", "shape": s, "enc": enc}],
                                 [{"shape": s[:-1] + [2 * s[-1]], "enc": enc}], [["$0", "$1"], -1], {"axis": -1}), r)


# Weight encodings that tell the EP's 16-bit weight handling apart: uint16 asymmetric (the EP may
# convert it to symmetric int16), uint16 with the symmetric zero point, int16 symmetric.
W16 = {"16a16w_u16": E.weight("uint16", zp=30000), "16a16w_u16sym": E.weight("uint16", zp=32768),
       "16a16w": E.weight("int16"), "16a8w": E.weight("int8")}


def forms_cases():
    conv = [
        ("conv1d", "htp.conv2d", "aten.conv1d.default", "Conv", "Conv2d", [1, 64, 8], [16, 64, 3], [1, 16, 8],
         {"pads": [1, 1]}, [None, [1], [1]]),
        ("conv2d", "htp.conv2d", "aten.conv2d.default", "Conv", "Conv2d", [1, 64, 8, 8], [16, 64, 3, 3],
         [1, 16, 8, 8], {"pads": [1, 1, 1, 1]}, [None, [1, 1], [1, 1]]),
        ("conv_transpose1d", "htp.conv_transpose2d", "aten.conv_transpose1d.default", "ConvTranspose",
         "TransposeConv2d", [1, 64, 4], [64, 16, 2], [1, 16, 8], {"strides": [2]}, [None, [2]]),
        ("conv_transpose2d", "htp.conv_transpose2d", "aten.conv_transpose2d.input", "ConvTranspose",
         "TransposeConv2d", [1, 64, 4, 4], [64, 16, 2, 2], [1, 16, 8, 8], {"strides": [2, 2]}, [None, [2, 2]]),
    ]
    for op, rule, aten, onnx_op, qnn_op, ishape, wshape, oshape, attrs, extra in conv:
        for cfg, w in W16.items():
            yield C._case(op, rule, aten, onnx_op, qnn_op, cfg,
                          [{"role": "act", "shape": ishape, "enc": E.U16}, {"role": "weight", "shape": wshape, "enc": w}],
                          [{"shape": oshape, "enc": E.U16}], ["$0", "$1"] + extra, attrs)
    # A constant 16-bit second input: Einsum (QNN MatMul, no conversion) and MatMul of rank 2
    # (FullyConnected) and rank 3 (QNN MatMul).
    for cfg, w in W16.items():
        yield C._case("einsum_const", "htp.einsum", "aten.einsum.default", "Einsum", "MatMul", cfg,
                      [{"role": "act", "shape": [1, 4, 16, 32], "enc": E.U16},
                       {"role": "weight", "shape": [1, 4, 32, 16], "enc": w}],
                      [{"shape": [1, 4, 16, 16], "enc": E.U16}], ["bhij,bhjk->bhik", ["$0", "$1"]],
                      {"equation": "bhij,bhjk->bhik"})
        for rank, wshape, oshape in ((2, [32, 16], [1, 16, 16]), (3, [4, 32, 16], [4, 16, 16])):
            ishape = [1, 16, 32] if rank == 2 else [4, 16, 32]
            yield C._case(f"matmul_const{rank}d", "htp.matmul", "aten.matmul.default", "MatMul", "MatMul", cfg,
                          [{"role": "act", "shape": ishape, "enc": E.U16}, {"role": "weight", "shape": wshape, "enc": w}],
                          [{"shape": oshape, "enc": E.U16}], ["$0", "$1"])
    # Einsum of two activations, the second's zero point symmetric or not (QNN MatMul's 16-bit
    # input 1 must be symmetric).
    for cfg, b in (("16a16a", E.U16), ("16a16a_u16sym", E.act("uint16", 0.0005, 32768))):
        yield C._case("einsum_act", "htp.einsum", "aten.einsum.default", "Einsum", "MatMul", cfg,
                      [{"role": "act", "shape": [1, 4, 16, 32], "enc": E.U16},
                       {"role": "act", "shape": [1, 4, 32, 16], "enc": b}],
                      [{"shape": [1, 4, 16, 16], "enc": E.U16}], ["bhij,bhjk->bhik", ["$0", "$1"]],
                      {"equation": "bhij,bhjk->bhik"})
    # LayerNorm whose scale and bias are constants quantized like activations (OLMo's parameterless
    # LayerNorm: torch.onnx writes ones and zeros, ORT quantizes them with the activation type): an
    # unsigned bias of the activation width instead of int32, an unsigned weight with zero point 0.
    ln = {"8a_u8bias": (E.U8, E.weight("uint8", zp=0), E.weight("uint8", zp=0)),
          "8a_u8bias_zp128": (E.U8, E.weight("uint8", zp=128), E.weight("uint8", zp=128)),
          "16a_u16bias": (E.U16, E.weight("uint16", zp=0), E.weight("uint16", zp=0)),
          "16a8w_u16bias": (E.U16, E.weight("uint8", zp=0), E.weight("uint16", zp=0))}
    for cfg, (ea, ew, eb) in ln.items():
        yield C._case("layer_norm_actparams", "htp.layer_norm", "aten.layer_norm.default", "LayerNormalization",
                      "LayerNorm", cfg,
                      [{"role": "act", "shape": [1, 16, 32], "enc": ea}, {"role": "weight", "shape": [32], "enc": ew},
                       {"role": "weight", "shape": [32], "enc": eb}],
                      [{"shape": [1, 16, 32], "enc": ea}], ["$0", [32], "$1", "$2"], {"axis": -1})
    # Expand with the input's encoding, its own scale and zero point, another width.
    expand = {"8a_same": (E.U8, E.U8), "8a_own": (E.U8, E.act("uint8", 0.07, 120)),
              "16a_same": (E.U16, E.U16), "16a_own": (E.U16, E.act("uint16", 0.0007, 30000)),
              "8a_to_16a": (E.U8, E.U16), "16a_s16": (E.S16, E.S16), "fp16": (E.F16, E.F16)}
    for cfg, (ein, eout) in expand.items():
        yield C._case("expand", "htp.repeat", "aten.expand.default", "Expand", "ElementWiseMultiply", cfg,
                      [{"role": "act", "shape": [1, 8, 1, 8], "enc": ein}], [{"shape": [1, 8, 8, 8], "enc": eout}],
                      ["$0", [1, 8, 8, 8]], {"shape_input": [1, 8, 8, 8]})
    # Data movement with an output encoding of its own (the differential tester's Reshape, Split and
    # Unsqueeze reproducers): QNN Reshape, Transpose, StridedSlice, Pad and Split.
    unary = {u[0]: u for u in C.UNARY}
    for name in ("reshape", "permute", "slice", "pad"):
        op, rule, aten, extra, onnx_op, attrs, qnn_op = unary[name]
        for cfg, (ein, eout) in expand.items():
            yield C._case(f"{name}_own", rule, aten, onnx_op, qnn_op, cfg,
                          [{"role": "act", "shape": C.ACT4, "enc": ein}],
                          [{"shape": C.OUT_SHAPE.get(name, C.ACT4), "enc": eout}], ["$0"] + extra, attrs)
    for cfg, (ein, eout) in expand.items():
        yield C._case("split_own", "htp.split", "aten.split_with_sizes.default", "Split", "Split", cfg,
                      [{"role": "act", "shape": C.ACT4, "enc": ein}],
                      [{"shape": [1, 8, 8, 4], "enc": eout}, {"shape": [1, 8, 8, 4], "enc": eout}], ["$0", [4, 4], 3],
                      {"axis": 3, "split_input": [4, 4]})
    # Tile (QNN Tile) with the same encodings: GPT-J's rotary tables tile with an output encoding
    # of their own.
    for cfg, (ein, eout) in expand.items():
        yield C._case("tile", "htp.repeat", "aten.repeat.default", "Tile", "Tile", cfg,
                      [{"role": "act", "shape": [1, 8, 1, 8], "enc": ein}], [{"shape": [1, 8, 8, 8], "enc": eout}],
                      ["$0", [1, 1, 8, 1]], {"repeats_input": [1, 1, 8, 1]})


def empty_cases():
    """Tensors with a dimension of 0: Phi-3's partial rotary embedding slices an empty tail
    (q[..., rotary_dim:] with rotary_dim = head_dim) and concatenates it back."""
    full, empty = [1, 4, 16, 16], [1, 4, 16, 0]
    for cfg, enc in CONFIGS.items():
        out = enc if E.is_float(enc) else E.act(enc["q"], 0.04)
        # Slice whose output is empty (start = end = 16 on the last axis), and one that is not.
        for name, start in (("slice_empty", 16), ("slice_tail", 8)):
            yield C._case(name, "htp.slice", "aten.slice.Tensor", "Slice", "StridedSlice", cfg,
                          [{"role": "act", "shape": full, "enc": enc}],
                          [{"shape": full[:-1] + [16 - start], "enc": enc}], ["$0", 3, start, 16],
                          {"starts_input": [start], "ends_input": [16], "axes_input": [3]})
        # Ops reading an empty graph input.
        for op, rule, aten, onnx_op, qnn_op in (("relu", "htp.relu", "aten.relu.default", "Relu", "Relu"),
                                                ("permute", "htp.permute", "aten.permute.default", "Transpose",
                                                 "Transpose")):
            attrs, extra, oshape = ({"perm": [0, 1, 3, 2]}, [[0, 1, 3, 2]], [1, 4, 0, 16]) if op == "permute" else ({}, [], empty)
            yield C._case(f"{op}_empty", rule, aten, onnx_op, qnn_op, cfg,
                          [{"role": "act", "shape": empty, "enc": enc}], [{"shape": oshape, "enc": enc}],
                          ["$0"] + extra, attrs)
        yield C._case("add_empty", "htp.add", "aten.add.Tensor", "Add", "ElementWiseAdd", cfg,
                      [{"role": "act", "shape": empty, "enc": enc}, {"role": "act", "shape": empty, "enc": enc}],
                      [{"shape": empty, "enc": out}], ["$0", "$1"])
        # More op families reading an empty tensor: a softmax and a reduction over the other axes,
        # a matmul whose inner dimension is 0 (its output is not empty; the backend crashes the
        # process with SIGFPE). No Reshape: ONNX reads a 0 in its shape as "copy this dimension".
        yield C._case("softmax_empty", "htp.softmax", "aten.softmax.int", "Softmax", "Softmax", cfg,
                      [{"role": "act", "shape": empty, "enc": enc}],
                      [{"shape": empty, "enc": enc if E.is_float(enc) else E.act(enc["q"], 1 / 256 if enc["q"] == "uint8" else 1 / 65536, 0)}],
                      ["$0", 2], {"axis": 2})
        yield C._case("mean_empty", "htp.mean", "aten.mean.dim", "ReduceMean", "ReduceMean", cfg,
                      [{"role": "act", "shape": empty, "enc": enc}], [{"shape": [1, 4, 1, 0], "enc": out}],
                      ["$0", [2], True], {"keepdims": 1, "axes": [2]})
        yield C._case("matmul_empty_k", "htp.matmul", "aten.matmul.default", "MatMul", "MatMul", cfg,
                      [{"role": "act", "shape": empty, "enc": enc}, {"role": "act", "shape": [1, 4, 0, 16], "enc": enc}],
                      [{"shape": full, "enc": out}], ["$0", "$1"])
        yield C._case("cat_empty", "htp.cat", "aten.cat.default", "Concat", "Concat", cfg,
                      [{"role": "act", "shape": full, "enc": enc}, {"role": "act", "shape": empty, "enc": enc}],
                      [{"shape": full, "enc": enc}], [["$0", "$1"], -1], {"axis": -1})


# Scale magnitudes calibration writes: tiny (an all-zero tensor's floor), ordinary, and huge (an
# attention mask of finfo.min: 1.3e36 in 8 bits, 5.2e33 in 16).
SCALES = [1e-10, 1e-5, 1e3, 1e8, 1e16, 1e30, 1.3e36,
          1e20, 1e24, 1e27]  # appended (ids keep their index): where between 1e16 and 1e30 Mul's bound lies
SCALE_CONFIGS = {"8a": "uint8", "16a": "uint16"}


def scale_cases():
    """One magnitude on every tensor of an op (`same`), or on its output only, the input at 0.05
    (`out`: the requantization ratio at its extremes), rank 4, for element-wise, reduction, data
    movement and concatenation ops."""
    shape = [2, 3, 4, 5]
    unary = [("relu", "htp.relu", "aten.relu.default", "Relu", "Relu", [], {}, shape),
             ("mean", "htp.mean", "aten.mean.dim", "ReduceMean", "ReduceMean", [[-1], True],
              {"keepdims": 1, "axes": [-1]}, shape[:-1] + [1]),
             ("permute", "htp.permute", "aten.permute.default", "Transpose", "Transpose", [[0, 1, 3, 2]],
              {"perm": [0, 1, 3, 2]}, [2, 3, 5, 4])]
    binary = [("add", "htp.add", "aten.add.Tensor", "Add", "ElementWiseAdd"),
              ("mul", "htp.mul", "aten.mul.Tensor", "Mul", "ElementWiseMultiply")]
    for cfg, q in SCALE_CONFIGS.items():
        for i, mag in enumerate(SCALES):
            for form in ("same", "out"):
                if form == "out" and mag == 1e-10:
                    continue
                ein = E.act(q, mag if form == "same" else 0.05)
                eout = E.act(q, mag)
                name = f"{cfg}_{form}_s{i}"
                for op, rule, aten, onnx_op, qnn_op, extra, attrs, oshape in unary:
                    yield C._case(f"scale_{op}", rule, aten, onnx_op, qnn_op, name,
                                  [{"role": "act", "shape": shape, "enc": ein}], [{"shape": oshape, "enc": eout}],
                                  ["$0"] + extra, attrs)
                for op, rule, aten, onnx_op, qnn_op in binary:
                    yield C._case(f"scale_{op}", rule, aten, onnx_op, qnn_op, name,
                                  [{"role": "act", "shape": shape, "enc": ein}, {"role": "act", "shape": shape, "enc": ein}],
                                  [{"shape": shape, "enc": eout}], ["$0", "$1"])
                yield C._case("scale_cat", "htp.cat", "aten.cat.default", "Concat", "Concat", name,
                              [{"role": "act", "shape": shape, "enc": ein}, {"role": "act", "shape": shape, "enc": ein}],
                              [{"shape": shape[:-1] + [10], "enc": eout}], [["$0", "$1"], -1], {"axis": -1})


# Shapes real graphs have that the rank cases (no dimension of 1) do not: all ones, a single long
# axis, a million elements, and a leading batch of 1 on a long sequence.
DIM_SHAPES = {"ones": [1, 1, 1, 1], "one_last": [1, 8, 8, 1], "long_last": [1, 1, 1, 65536],
              "million": [1, 1, 4096, 256], "long_seq": [1, 2048, 64], "rank2_big": [1024, 1024]}
# Broadcasting pairs (a, b, out): a trailing vector, a per-channel column, both sides, a scalar.
BROADCASTS = {"row": ([1, 8, 8, 8], [1, 1, 1, 8], [1, 8, 8, 8]), "col": ([1, 8, 8, 8], [1, 8, 1, 1], [1, 8, 8, 8]),
              "both": ([8, 1], [1, 8], [8, 8]), "scalar": ([1, 8, 8, 8], [1], [1, 8, 8, 8]),
              "rank_gap": ([2, 3, 4, 5], [5], [2, 3, 4, 5])}


def dims_cases():
    """Dimensions of 1 and large dimensions (DIM_SHAPES) on element-wise, softmax, reduction, data
    movement and concatenation ops, and broadcasting patterns (BROADCASTS) on Add, Mul and Sub;
    8-bit and float16."""
    for cfg, enc in CONFIGS.items():
        for name, shape in DIM_SHAPES.items():
            r = len(shape)
            perm = list(range(r))
            perm[-1], perm[-2] = perm[-2], perm[-1]
            out_act = enc if E.is_float(enc) else E.act(enc["q"], 0.04)
            unary = [("relu", "htp.relu", "aten.relu.default", "Relu", "Relu", [], {}, shape, out_act),
                     ("softmax", "htp.softmax", "aten.softmax.int", "Softmax", "Softmax", [-1], {"axis": -1}, shape,
                      enc if E.is_float(enc) else _fixed_out(enc, "softmax")),
                     ("mean", "htp.mean", "aten.mean.dim", "ReduceMean", "ReduceMean", [[-1], True],
                      {"keepdims": 1, "axes": [-1]}, shape[:-1] + [1], out_act),
                     ("permute", "htp.permute", "aten.permute.default", "Transpose", "Transpose", [perm], {"perm": perm},
                      [shape[p] for p in perm], enc)]
            for op, rule, aten, onnx_op, qnn_op, extra, attrs, oshape, eout in unary:
                yield C._case(f"dims_{op}", rule, aten, onnx_op, qnn_op, f"{cfg}_{name}",
                              [{"role": "act", "shape": shape, "enc": enc}], [{"shape": oshape, "enc": eout}],
                              ["$0"] + extra, attrs)
            yield C._case("dims_cat", "htp.cat", "aten.cat.default", "Concat", "Concat", f"{cfg}_{name}",
                          [{"role": "act", "shape": shape, "enc": enc}, {"role": "act", "shape": shape, "enc": enc}],
                          [{"shape": shape[:-1] + [2 * shape[-1]], "enc": enc}], [["$0", "$1"], -1], {"axis": -1})
        for name, (a, b, out) in BROADCASTS.items():
            eout = enc if E.is_float(enc) else E.act(enc["q"], 0.1)
            for op, rule, aten, onnx_op, qnn_op in BINARY_OPS[:3]:
                yield C._case(f"bcast_{op}", rule, aten, onnx_op, qnn_op, f"{cfg}_{name}",
                              [{"role": "act", "shape": a, "enc": enc}, {"role": "act", "shape": b, "enc": enc}],
                              [{"shape": out, "enc": eout}], ["$0", "$1"])


GENERATORS = {"rank": rank_cases, "forms": forms_cases, "empty": empty_cases, "scale": scale_cases,
              "dims": dims_cases}


def with_socs(cases, socs):
    table = {s: (sid, arch) for s, sid, arch in C.SOCS}
    for c in cases:
        for soc in socs:
            sid, arch = table[soc]
            yield dict(c, id=f"{c['op']}/{c['config']}/{soc}", soc=soc, soc_id=sid, arch=arch)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dimension", choices=sorted(GENERATORS), required=True)
    ap.add_argument("--socs", default=",".join(DEFAULT_SOCS))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=60)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    cases = list(with_socs(GENERATORS[a.dimension](), a.socs.split(",")))
    out = a.out or os.path.join(OUT_DIR, f"{a.dimension}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    t0 = time.time()
    verdicts = oracle.run(cases, jobs=a.jobs, batch_size=a.batch,
                          progress=lambda i, n: print(f"batch {i}/{n}", file=sys.stderr, flush=True))
    records = []
    for c in sorted(cases, key=lambda c: c["id"]):
        v = verdicts[c["id"]]
        r = {k: c[k] for k in SPEC_KEYS}
        r.update(id=c["id"], oracle=v["verdict"], message=v["message"], qnn_ops_seen=v["qnn_ops"],
                 ort_rewrite=v.get("ort_rewrite"))
        records.append(r)
    header = {"backend": "htp", "versions": oracle.versions(),
              "run": {"dimension": a.dimension, "cases": len(cases), "socs": a.socs.split(",")}}
    write(out, header, records)
    print(f"wrote {len(records)} cases to {out} in {time.time() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
