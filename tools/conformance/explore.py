"""The constraint-space explorer (issue 32): oracle cases that vary one dimension real graphs vary,
for many ops at once, instead of the one shape per op the unit cases (cases.py) use.

  .venv/bin/python -m conformance.explore --dimension rank [--socs SM8350,SM8650,SM8850] [--jobs 2]
(with tools/ on PYTHONPATH) runs the cases of one dimension through the oracle (oracle.py, ORT's QNN
EP on the wheel's libQnnHtp.so: op validation and graph finalize) and writes
tests/conformance/explore/<dimension>.json in the format of tests/conformance/htp.json, so the
comparison (compare.py --data ... --exceptions ...) and the fast CTest read it the same way.
A finalize or session failure in a batch is confirmed by running the case alone (confirm_alone).

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
  attrs  attribute values real graphs vary, 8-bit and 16-bit activations (int8 weights): axes
         (negative, their positive equivalent, other axes) of Softmax, LogSoftmax, Concat, Split,
         Gather, GatherElements, ReduceMean/Sum/Max/Min, ArgMax/ArgMin, TopK, Unsqueeze, Squeeze,
         Flatten, CumSum (exclusive, reverse), LayerNormalization (the last axis, -1 or positive,
         or the last two); keepdims 0 and 1; GroupNormalization's groups; Gelu's approximation,
         LeakyRelu / HardSigmoid / Elu alpha; Conv groups (1, 2, 4, 8, depthwise, channel
         multiplier 2), dilations 1..18 with kernels 2, 3, 5, 7 (1-D and 2-D, dense and depthwise),
         strides 1..3 with and without pads, auto_pad, asymmetric pads and strides, large kernels;
         ConvTranspose strides, output_padding, pads, groups, dilations; MaxPool / AveragePool
         kernel, stride, pads, ceil_mode, count_include_pad, dilations (1-D and 2-D); Gemm alpha,
         beta, transA, transB, bias shapes; FusedMatMul transA, transB, alpha; Resize nearest with
         every nearest_mode x coordinate_transformation_mode, linear and cubic (rank 3 and 4,
         scales 2, 0.5, 3, 1.5, per axis; antialias, cubic_coeff_a, exclude_outside); Pad modes
         (constant, edge, reflect, wrap; negative pads); every Transpose permutation of rank 3
         and 4 and those of rank 5 that keep the batch axis; Slice steps (> 1, negative, two
         axes); DepthToSpace (DCR, CRD) and SpaceToDepth block sizes 2..4; Einsum equations
         (bnd,dc->bnc; bhwc,cd->bhwd; bij,bjk->bik; bhqd,bhkd->bhqk; ...) with a computed or
         constant second operand. Config names <8a|16a>[8w]_<attribute values>.
  rankops ranks 1..8 of the ops the rank sweep leaves out: LayerNormalization, MatMul with a
         constant 2-D second input (ORT's FullyConnected form) and of two activations, Where,
         Gather, HardSwish, Neg, Log, Floor, Sin, Round, Elu, ReduceMin, Min, Pow, Equal, Greater;
         8-bit, 16-bit and float16.
Each case id is "<op>.r<rank>/<config>/<soc>". Deterministic: the same code writes the same cases.
"""
import argparse
import itertools
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
        # The manifest's default (finalize_fails) on more op families: fixed-output activations, a
        # second binary op, a max reduction over the other axes, an elementwise maximum.
        for op, rule, aten, onnx_op, qnn_op in (("sigmoid", "htp.sigmoid", "aten.sigmoid.default", "Sigmoid", "Sigmoid"),
                                                ("tanh", "htp.tanh", "aten.tanh.default", "Tanh", "Tanh"),
                                                ("exp", "htp.exp", "aten.exp.default", "Exp", "ElementWiseExp")):
            o = enc if E.is_float(enc) else (_fixed_out(enc, op) if op != "exp" else out)
            yield C._case(f"{op}_empty", rule, aten, onnx_op, qnn_op, cfg,
                          [{"role": "act", "shape": empty, "enc": enc}], [{"shape": empty, "enc": o}], ["$0"])
        for op, rule, aten, onnx_op, qnn_op in (("mul", "htp.mul", "aten.mul.Tensor", "Mul", "ElementWiseMultiply"),
                                                ("sub", "htp.sub", "aten.sub.Tensor", "Sub", "ElementWiseSubtract"),
                                                ("maximum", "htp.maximum", "aten.maximum.default", "Max",
                                                 "ElementWiseMaximum")):
            yield C._case(f"{op}_empty", rule, aten, onnx_op, qnn_op, cfg,
                          [{"role": "act", "shape": empty, "enc": enc}, {"role": "act", "shape": empty, "enc": enc}],
                          [{"shape": empty, "enc": out}], ["$0", "$1"])
        yield C._case("amax_empty", "htp.amax", "aten.amax.default", "ReduceMax", "ReduceMax", cfg,
                      [{"role": "act", "shape": empty, "enc": enc}], [{"shape": [1, 4, 1, 0], "enc": enc}],
                      ["$0", [2], True], {"keepdims": 1, "axes_input": [2]})


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


# Attribute values real graphs vary (issue 32), each op at 8-bit and 16-bit activations; weights
# are int8 (8a8w, 16a8w) so that no 16 x 16 gate hides an attribute's verdict. A case's graph
# form is what qnn-validate's ONNX reader makes of the node (e.g. Gemm with a constant B:
# htp.linear with the ONNX shapes); the attributes live in the ONNX model.
ATTR_CONFIGS = {"8a": E.U8, "16a": E.U16}
# onnx_build appends the constant operands *_input in a fixed order (starts, ends, axes, k, split)
# and has no key for Slice's steps: "k_input" after "axes_input" lands in the fifth input, steps.
SLICE_STEPS = "k_input"
INT64_MAX = 2 ** 63 - 1
BIAS32 = {"q": "int32", "scale": 1e-5, "zp": 0}


def _n(v):
    """An attribute value in a case id ([A-Za-z0-9_.] only): -1 -> m1, [1, 7] -> 1x7, 0.5 -> 0p5."""
    if isinstance(v, (list, tuple)):
        return "x".join(_n(x) for x in v)
    if isinstance(v, float):
        return _n(int(v)) if v == int(v) else ("m" if v < 0 else "") + str(abs(v)).replace(".", "p")
    return f"m{-v}" if v < 0 else str(v)


def _u(vals):
    """A per-axis list in a case id: one value when every axis has it."""
    return _n(vals[0]) if len(set(vals)) == 1 else _n(vals)


def _axis_out(shape, axes, keep):
    """The output shape of a reduction over axes (negative ones count from the end)."""
    r = len(shape)
    axes = {a % r for a in axes}
    return [1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]


def _window_out(n, k, s, pb, pe, d, auto_pad, ceil=False):
    """The output length of a convolution or pooling window along one axis (ONNX semantics)."""
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return -(-n // s)
    if auto_pad == "VALID":
        pb = pe = 0
    span = n + pb + pe - d * (k - 1) - 1
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= n + pb:
        out -= 1  # the last window would start inside the end padding
    return out


def _spatial(dims, k, s, p, d):
    """Per-axis kernel, strides, dilations and ONNX pads (begins then ends) from ints or lists."""
    def per(v):
        return list(v) if isinstance(v, list) else [v] * dims

    ks, ss, ds = per(k), per(s), per(d)
    pads = list(p) if isinstance(p, list) and len(p) == 2 * dims else per(p) * 2
    return ks, ss, ds, pads


def _single(cfg, op, rule, aten, onnx_op, qnn_op, name, ishape, ienc, oshape, oenc, extra, attrs):
    return C._case(op, rule, aten, onnx_op, qnn_op, f"{cfg}_{name}", [{"role": "act", "shape": ishape, "enc": ienc}],
                   [{"shape": oshape, "enc": oenc}], ["$0"] + extra, attrs)


def _attr_axis_cases(cfg, enc):
    """Axes (negative, their positive equivalent, other axes) and keepdims."""
    out_act = E.act(enc["q"], 0.04)
    s4, s3 = [2, 3, 4, 5], [3, 4, 5]
    for shape, axes in ((s4, (-1, 3, -2, 1)), (s3, (1, -2)), ([4, 5], (0, -2)), ([2, 3, 4, 5, 6], (-1, 2))):
        r = f"_r{len(shape)}" if len(shape) != 4 else ""
        for axis in axes:
            yield _single(cfg, "softmax_axis", "htp.softmax", "aten.softmax.int", "Softmax", "Softmax",
                          f"{_n(axis)}{r}", shape, enc, shape, _fixed_out(enc, "softmax"), [axis], {"axis": axis})
    for axis in (-1, 3, 1, -3):
        yield _single(cfg, "log_softmax_axis", "htp.log_softmax", "aten.log_softmax.int", "LogSoftmax", "LogSoftmax",
                      _n(axis), s4, enc, s4, out_act, [axis], {"axis": axis})
    for shape, axes in ((s4, (-1, 3, 1, -3, 0)), (s3, (1, -1, -2)), ([2, 3, 4, 5, 6], (-1, 2))):
        r = f"_r{len(shape)}" if len(shape) != 4 else ""
        for axis in axes:
            o = list(shape)
            o[axis] *= 2
            yield C._case("concat_axis", "htp.cat", "aten.cat.default", "Concat", "Concat", f"{cfg}_{_n(axis)}{r}",
                          [{"role": "act", "shape": shape, "enc": enc}, {"role": "act", "shape": shape, "enc": enc}],
                          [{"shape": o, "enc": enc}], [["$0", "$1"], axis], {"axis": axis})
    # Split: halves along each axis; uneven sizes; three outputs; num_outputs without sizes.
    e4 = [2, 4, 6, 8]
    splits = [(a, [e4[a] // 2] * 2, None) for a in (-1, 3, 1, -3)]
    splits += [(1, [1, 3], None), (-1, [2, 2, 4], None), (-1, [4, 4], 2), (-1, [3, 3, 2], 3)]
    for axis, sizes, num in splits:
        outs = []
        for n in sizes:
            o = list(e4)
            o[axis] = n
            outs.append({"shape": o, "enc": enc})
        attrs = {"axis": axis, "num_outputs": num} if num else {"axis": axis, "split_input": sizes}
        name = f"{_n(axis)}_" + (f"num{num}" if num else _n(sizes))
        yield C._case("split_axis", "htp.split", "aten.split_with_sizes.default", "Split", "Split", f"{cfg}_{name}",
                      [{"role": "act", "shape": e4, "enc": enc}], outs, ["$0", sizes, axis], attrs)
    # Gather: three indices (1..3) along each axis, negative index values (x[..., [-1, 0, -2]]),
    # a 2-D index tensor; GatherElements along each axis.
    g4 = [4, 5, 6, 7]
    gathers = [(a, [3], None) for a in (-1, 3, 1, -3, 0)] + [(-1, [3], [-1, 0, -2]), (0, [2, 3], None),
                                                              (1, [2, 3], None), (1, [], [0]), (-1, [], [-1])]
    for axis, ishape, values in gathers:
        o = g4[:axis % 4] + ishape + g4[axis % 4 + 1:]
        index = {"role": "weight", "shape": ishape, "enc": C.I64}
        if values:
            index["values"] = values
        name = _n(axis) + ("_negidx" if values and len(values) > 1 else "") \
            + (f"_idx{_n(ishape)}" if len(ishape) > 1 else "") + (f"_scalar{_n(values[0])}" if not ishape else "")
        yield C._case("gather_axis", "htp.index_select", "aten.index_select.default", "Gather", "Gather",
                      f"{cfg}_{name}", [{"role": "act", "shape": g4, "enc": enc}, index], [{"shape": o, "enc": enc}],
                      ["$0", axis, "$1"], {"axis": axis})
    for axis in (-1, 3, 1, -3):
        yield C._case("gather_elements_axis", "htp.gather_elements", "aten.gather.default", "GatherElements",
                      "GatherElements", f"{cfg}_{_n(axis)}",
                      [{"role": "act", "shape": g4, "enc": enc}, {"role": "weight", "shape": g4, "enc": C.I64}],
                      [{"shape": g4, "enc": enc}], ["$0", axis, "$1"], {"axis": axis})
    # Reductions: one axis (negative, positive, another), two axes, every axis (no axes input:
    # a rank-0 output without keepdims); keepdims 0 and 1.
    reductions = [("reduce_mean", "htp.mean", "aten.mean.dim", "ReduceMean", "axes"),
                  ("reduce_sum", "htp.sum", "aten.sum.dim_IntList", "ReduceSum", "axes_input"),
                  ("reduce_max", "htp.amax", "aten.amax.default", "ReduceMax", "axes_input"),
                  ("reduce_min", "htp.amin", "aten.amin.default", "ReduceMin", "axes_input")]
    for op, rule, aten, onnx_op, axes_key in reductions:
        for shape, axes_list in ((s4, ([-1], [3], [1], [-3], [-2, -1], None)), ([2, 16, 32], ([1], [-1], [-2]))):
            r = f"_r{len(shape)}" if len(shape) != 4 else ""
            every = list(range(len(shape)))
            for axes in axes_list:
                for keep in (0, 1):
                    attrs = {"keepdims": keep}
                    if axes:
                        attrs[axes_key] = axes
                    yield _single(cfg, op, rule, aten, onnx_op, onnx_op,
                                  f"{_n(axes) if axes else 'all'}_keep{keep}{r}", shape, enc,
                                  _axis_out(shape, axes or every, keep), out_act, [axes or every, bool(keep)], attrs)
    for op, rule, aten, onnx_op, qnn_op in (("argmax_axis", "htp.argmax", "aten.argmax.default", "ArgMax", "Argmax"),
                                            ("argmin_axis", "htp.argmin", "aten.argmin.default", "ArgMin", "Argmin")):
        for shape, axes in ((s4, (-1, 3, 1, -3)), (s3, (1, -1))):
            r = f"_r{len(shape)}" if len(shape) != 4 else ""
            for axis in axes:
                for keep in (0, 1):
                    yield _single(cfg, op, rule, aten, onnx_op, qnn_op, f"{_n(axis)}_keep{keep}{r}", shape, enc,
                                  _axis_out(shape, [axis], keep), C.I64, [axis, bool(keep)],
                                  {"axis": axis, "keepdims": keep})
    for keep in (0, 1):
        yield _single(cfg, "argmax_axis", "htp.argmax", "aten.argmax.default", "ArgMax", "Argmax",
                      f"m1_keep{keep}_last", s4, enc, _axis_out(s4, [-1], keep), C.I64, [-1, bool(keep)],
                      {"axis": -1, "keepdims": keep, "select_last_index": 1})
    # TopK along an axis, largest and smallest.
    for axis in (-1, 1, -3):
        for largest in (1, 0):
            o = list(s4)
            o[axis] = 3
            yield C._case("topk_axis", "htp.topk", "aten.topk.default", "TopK", "TopK",
                          f"{cfg}_{_n(axis)}_largest{largest}", [{"role": "act", "shape": s4, "enc": enc}],
                          [{"shape": o, "enc": enc}, {"shape": o, "enc": C.I64}], ["$0", 3, axis, bool(largest)],
                          {"axis": axis, "largest": largest, "k_input": [3]})
    # Unsqueeze from rank 3 (to rank 4, or 5 with two axes), Squeeze of [2, 1, 4, 1], Flatten:
    # QNN Reshape, the graph form the ONNX reader gives them.
    for axes in ([0], [-1], [3], [-4], [1], [0, -1]):
        o = list(s3)
        for a in sorted(x % (len(s3) + len(axes)) for x in axes):
            o.insert(a, 1)
        yield _single(cfg, "unsqueeze_axes", "htp.reshape", "aten.reshape.default", "Unsqueeze", "Reshape", _n(axes),
                      s3, enc, o, enc, [o], {"axes_input": axes})
    q4 = [2, 1, 4, 1]
    for axes in ([-1], [3], [1], [-3], [1, 3], [-3, -1], None):
        drop = {a % 4 for a in axes} if axes else {1, 3}
        yield _single(cfg, "squeeze_axes", "htp.reshape", "aten.squeeze.dims", "Squeeze", "Reshape",
                      _n(axes) if axes else "all", q4, enc, [d for i, d in enumerate(q4) if i not in drop], enc,
                      [axes or [1, 3]], {"axes_input": axes} if axes else {})
    for axis in (0, 1, 2, 3, -1, -3):
        a = axis % 4
        lead = 1
        for d in s4[:a]:
            lead *= d
        yield _single(cfg, "flatten_axis", "htp.reshape", "aten.flatten.using_ints", "Flatten", "Reshape", _n(axis),
                      s4, enc, [lead, 120 // lead], enc, [a, -1], {"axis": axis})
    for axis, excl, rev in ((-1, 0, 0), (3, 0, 0), (1, 0, 0), (-3, 0, 0), (0, 0, 0), (-1, 1, 0), (-1, 0, 1),
                            (-1, 1, 1)):
        attrs = {"axis_input_scalar": axis}
        if excl:
            attrs["exclusive"] = 1
        if rev:
            attrs["reverse"] = 1
        yield _single(cfg, "cumsum_axis", "htp.cumsum", "aten.cumsum.default", "CumSum", "CumulativeSum",
                      _n(axis) + ("_excl" if excl else "") + ("_rev" if rev else ""), s4, enc, s4, out_act, [axis],
                      attrs)
    for axis in (0, 1):
        yield _single(cfg, "cumsum_axis", "htp.cumsum", "aten.cumsum.default", "CumSum", "CumulativeSum",
                      f"{axis}_r2", [4, 5], enc, [4, 5], out_act, [axis], {"axis_input_scalar": axis})
    # LayerNormalization over the last axis (-1 and its positive equivalent 2) and over the last
    # two (axis 1 and -2): gamma and beta have the normalized shape. GroupNormalization's groups.
    ln = [2, 16, 32]
    gamma = E.weight("uint8", zp=100)
    for shape, axis in ((ln, -1), (ln, 2), (ln, 1), (ln, -2), ([1, 8, 8, 16], -1), ([1, 16, 8, 8], 1)):
        norm = shape[axis:]
        yield C._case("layer_norm_axis", "htp.layer_norm", "aten.layer_norm.default", "LayerNormalization",
                      "LayerNorm", f"{cfg}_{_n(axis)}" + (f"_r{len(shape)}" if len(shape) != 3 else ""),
                      [{"role": "act", "shape": shape, "enc": enc}, {"role": "weight", "shape": norm, "enc": gamma},
                       {"role": "weight", "shape": norm, "enc": BIAS32}],
                      [{"shape": shape, "enc": enc}], ["$0", norm, "$1", "$2"], {"axis": axis})
    for groups in (1, 2, 4, 8):
        yield C._case("group_norm_groups", "htp.group_norm", "aten.group_norm.default", "GroupNormalization",
                      "GroupNorm", f"{cfg}_g{groups}",
                      [{"role": "act", "shape": [1, 8, 8, 8], "enc": enc},
                       {"role": "weight", "shape": [8], "enc": gamma},
                       {"role": "weight", "shape": [8], "enc": BIAS32}],
                      [{"shape": [1, 8, 8, 8], "enc": enc}], ["$0", groups, "$1", "$2"], {"num_groups": groups})


def _attr_activation_cases(cfg, enc):
    """Activation attributes: Gelu's tanh approximation, LeakyRelu's slope, HardSigmoid's
    alpha / beta (ONNX's default and torch's 1/6), Elu's alpha."""
    out_act = E.act(enc["q"], 0.04)
    s = C.ACT4
    for approx in ("none", "tanh"):
        yield _single(cfg, "gelu_approximate", "htp.gelu", "aten.gelu.default", "Gelu", "Gelu", approx, s, enc, s,
                      out_act, [], {"approximate": approx})
    for alpha in (0.01, 0.1, 0.2):
        yield _single(cfg, "leaky_relu_alpha", "htp.prelu", "aten.leaky_relu.default", "LeakyRelu", "Prelu",
                      _n(alpha), s, enc, s, out_act, [alpha], {"alpha": alpha})
    for name, alpha in (("onnx", 0.2), ("torch", 1 / 6)):
        yield _single(cfg, "hardsigmoid_alpha", "htp.hardsigmoid", "aten.hardsigmoid.default", "HardSigmoid",
                      "ElementWiseNeuron", name, s, enc, s, _fixed_out(enc, "sigmoid"), [],
                      {"alpha": alpha, "beta": 0.5})
    for alpha in (1.0, 0.5):
        yield _single(cfg, "elu_alpha", "htp.elu", "aten.elu.default", "Elu", "Elu", _n(alpha), s, enc, s, out_act,
                      [alpha], {"alpha": alpha})


def _conv(cfg, enc, name, dims, cin, cout, k, s, p, d, g, length, auto_pad=None):
    """A Conv case: 1-D or 2-D, per-channel int8 weights (axis 0), no bias."""
    ks, ss, ds, pads = _spatial(dims, k, s, p, d)
    oshape = [1, cout] + [_window_out(length, ks[i], ss[i], pads[i], pads[i + dims], ds[i], auto_pad)
                          for i in range(dims)]
    attrs = {"kernel_shape": ks, "strides": ss, "dilations": ds, "group": g}
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    else:
        attrs["pads"] = pads
    padding = auto_pad.lower() if auto_pad else _u(pads)
    return C._case(name, "htp.conv2d", "aten.conv1d.default" if dims == 1 else "aten.conv2d.default", "Conv",
                   "Conv2d", f"{cfg}8w_k{_u(ks)}_s{_u(ss)}_p{padding}_d{_u(ds)}_g{g}"
                   + (f"_co{cout}" if cout != cin else "") + (f"_l{length}" if length not in (16, 64) else ""),
                   [{"role": "act", "shape": [1, cin] + [length] * dims, "enc": enc},
                    {"role": "weight", "shape": [cout, cin // g] + ks, "enc": E.weight("int8", cout, 0)}],
                   [{"shape": oshape, "enc": enc}], ["$0", "$1", None, ss, pads[:dims], ds, g], attrs)


def _conv_transpose(cfg, enc, dims, c, k, s, op, p, g, d, length):
    """A ConvTranspose case: weights [C_in, C_out / group, k...], per-tensor int8, no bias."""
    o = (length - 1) * s - 2 * p + d * (k - 1) + op + 1
    return C._case(f"conv_transpose{dims}d_attrs", "htp.conv_transpose2d",
                   "aten.conv_transpose1d.default" if dims == 1 else "aten.conv_transpose2d.input", "ConvTranspose",
                   "TransposeConv2d", f"{cfg}8w_k{k}_s{s}_op{op}_p{p}_g{g}" + (f"_d{d}" if d != 1 else ""),
                   [{"role": "act", "shape": [1, c] + [length] * dims, "enc": enc},
                    {"role": "weight", "shape": [c, c // g] + [k] * dims, "enc": E.weight("int8")}],
                   [{"shape": [1, c] + [o] * dims, "enc": enc}],
                   ["$0", "$1", None, [s] * dims, [p] * dims, [op] * dims, g, [d] * dims],
                   {"kernel_shape": [k] * dims, "strides": [s] * dims, "output_padding": [op] * dims,
                    "pads": [p] * dims * 2, "group": g, "dilations": [d] * dims})


def _attr_conv_cases(cfg, enc):
    """Conv groups, dilations, strides, padding forms; ConvTranspose strides, output_padding,
    groups, dilations."""
    c = 16
    for g, cout in ((1, c), (2, c), (4, c), (8, c), (c, c), (c, 2 * c)):
        yield _conv(cfg, enc, "conv2d_groups", 2, c, cout, 3, 1, 1, 1, g, 16)
    for g in (1, 2, 4, c):
        yield _conv(cfg, enc, "conv1d_groups", 1, c, c, 3, 1, 1, 1, g, 64)
    yield _conv(cfg, enc, "conv2d_groups", 2, c, c, 1, 1, 0, 1, 4, 16)  # ShuffleNet's grouped 1x1
    # Dilations 1..3 with kernels 3, 5, 7 ("same" padding), dense and depthwise, 1-D and 2-D.
    for dims, length in ((2, 16), (1, 64)):
        for g in (1, c):
            for k in (3, 5, 7):
                for d in (1, 2, 3):
                    yield _conv(cfg, enc, f"conv{dims}d_dilation", dims, c, c, k, 1, d * (k - 1) // 2, d, g, length)
            yield _conv(cfg, enc, f"conv{dims}d_dilation", dims, c, c, 3, 2, 2, 2, g, length)  # dilated and strided
    yield _conv(cfg, enc, "conv2d_dilation", 2, c, c, 3, 1, [1, 2, 1, 2], [1, 2], 1, 16)  # per-axis dilations
    # Strides 1..3, unpadded and padded, dense and depthwise.
    for dims, length in ((2, 16), (1, 64)):
        for g in (1, c):
            for s in (1, 2, 3):
                for p in (0, 1):
                    yield _conv(cfg, enc, f"conv{dims}d_stride", dims, c, c, 3, s, p, 1, g, length)
    # Kernel / stride / padding forms of real graphs: ResNet's stem (7, 2, 3) and 1x1 downsample,
    # patchify stems (4/4, 16/16), TF's asymmetric SAME pads, auto_pad, non-square kernels.
    for dims, length in ((2, 16), (1, 64)):
        for g in (1, c):
            yield _conv(cfg, enc, f"conv{dims}d_forms", dims, c, c, 7, 2, 3, 1, g, length)
            yield _conv(cfg, enc, f"conv{dims}d_forms", dims, c, c, 5, 2, 2, 1, g, length)
            yield _conv(cfg, enc, f"conv{dims}d_forms", dims, c, c, 3, 2, [0] * dims + [1] * dims, 1, g, length)
            for auto_pad in ("SAME_UPPER", "SAME_LOWER"):
                yield _conv(cfg, enc, f"conv{dims}d_forms", dims, c, c, 3, 2, 0, 1, g, length, auto_pad)
        yield _conv(cfg, enc, f"conv{dims}d_forms", dims, c, c, 3, 2, 0, 1, 1, length, "VALID")
        yield _conv(cfg, enc, f"conv{dims}d_forms", dims, c, c, 1, 2, 0, 1, 1, length)
        yield _conv(cfg, enc, f"conv{dims}d_forms", dims, c, c, 4, 4, 0, 1, 1, length)
    yield _conv(cfg, enc, "conv2d_forms", 2, c, c, 16, 16, 0, 1, 1, 32)
    yield _conv(cfg, enc, "conv2d_forms", 2, c, c, [1, 7], 1, [0, 3, 0, 3], 1, 1, 16)
    yield _conv(cfg, enc, "conv2d_forms", 2, c, c, [7, 1], 1, [3, 0, 3, 0], 1, 1, 16)
    yield _conv(cfg, enc, "conv2d_forms", 2, c, c, 3, [2, 1], 1, 1, 1, 16)  # CRNN's per-axis strides
    yield _conv(cfg, enc, "conv2d_forms", 2, c, c, 3, [1, 2], 1, 1, 1, 16)
    yield _conv(cfg, enc, "conv2d_forms", 2, c, c, 11, 4, 2, 1, 1, 32)  # AlexNet's stem
    # Large dilations (DeepLab's ASPP 6 / 12 / 18; TCNs / WaveNet 4..16), causal 1-D convolutions
    # (left padding only), large depthwise kernels (Conformer 31, RepLKNet 13 / 31), wav2vec2's
    # feature extractor (10 / 5, 2 / 2).
    for g in (1, c):
        for d in (4, 6, 12, 18):
            yield _conv(cfg, enc, "conv2d_dilation", 2, c, c, 3, 1, d, d, g, 16)
        for d in (4, 8, 16):
            yield _conv(cfg, enc, "conv1d_dilation", 1, c, c, 3, 1, d, d, g, 64)
        for k in (9, 15, 31):
            yield _conv(cfg, enc, "conv1d_forms", 1, c, c, k, 1, k // 2, 1, g, 64)
    for d in (1, 2, 4):
        yield _conv(cfg, enc, "conv1d_dilation", 1, c, c, 2, 1, [d, 0], d, 1, 64)
    for k in (13, 31):
        yield _conv(cfg, enc, "conv2d_forms", 2, c, c, k, 1, k // 2, 1, c, 16)
    yield _conv(cfg, enc, "conv1d_forms", 1, c, c, 10, 5, 0, 1, 1, 64)
    yield _conv(cfg, enc, "conv1d_forms", 1, c, c, 2, 2, 0, 1, 1, 64)
    # ConvTranspose: (kernel, stride, output_padding, pads) dense, grouped and depthwise; U-Net's
    # 2/2, the decoders' 4/2/1, output_padding with "same" pads, a dilation; 1-D: vocoders' 16/8/4.
    for dims, groups, length in ((2, (1, 2, c), 8), (1, (1, c), 32)):
        for g in groups:
            for k, s, op, p in ((3, 1, 0, 0), (3, 2, 0, 0), (3, 2, 1, 0), (3, 3, 0, 0), (3, 3, 1, 0), (4, 2, 0, 1),
                                (2, 2, 0, 0), (3, 2, 1, 1)):
                yield _conv_transpose(cfg, enc, dims, c, k, s, op, p, g, 1, length)
        yield _conv_transpose(cfg, enc, dims, c, 4, 4, 0, 0, 1, 1, length)
        yield _conv_transpose(cfg, enc, dims, c, 3, 1, 0, 0, 1, 2, length)
    yield _conv_transpose(cfg, enc, 1, c, 16, 8, 0, 4, 1, 1, 32)
    yield _conv_transpose(cfg, enc, 2, c, 2, 2, 0, 0, 4, 1, 8)


def _pool(cfg, enc, kind, k, s, p, ceil, cip=0, d=1, shape=(1, 8, 16, 16), auto_pad=None):
    dims = len(shape) - 2
    ks, ss, ds, pads = _spatial(dims, k, s, p, d)
    oshape = list(shape[:2]) + [_window_out(n, ks[i], ss[i], pads[i], pads[i + dims], ds[i], auto_pad, ceil)
                                for i, n in enumerate(shape[2:])]
    attrs = {"kernel_shape": ks, "strides": ss, "ceil_mode": ceil}
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    else:
        attrs["pads"] = pads
    if d != 1:
        attrs["dilations"] = ds
    name = (f"{cfg}_k{_u(ks)}_s{_u(ss)}_p{auto_pad.lower() if auto_pad else _u(pads)}_ceil{ceil}"
            + (f"_d{d}" if d != 1 else ""))
    if kind == "max":
        return C._case(f"maxpool{dims}d_attrs", "htp.max_pool2d", "aten.max_pool2d.default", "MaxPool", "PoolMax2d",
                       name, [{"role": "act", "shape": list(shape), "enc": enc}], [{"shape": oshape, "enc": enc}],
                       ["$0", ks, ss, pads[:dims], ds, bool(ceil)], attrs)
    attrs["count_include_pad"] = cip
    return C._case(f"avgpool{dims}d_attrs", "htp.avg_pool2d",
                   "aten.avg_pool2d.default" if dims == 2 else "aten.avg_pool1d.default", "AveragePool", "PoolAvg2d",
                   f"{name}_cip{cip}", [{"role": "act", "shape": list(shape), "enc": enc}],
                   [{"shape": oshape, "enc": enc}], ["$0", ks, ss, pads[:dims], bool(ceil), bool(cip)], attrs)


def _attr_pool_cases(cfg, enc):
    """MaxPool / AveragePool kernel, stride, pads, ceil_mode, count_include_pad, dilations."""
    # The grid, 2-D and 1-D (even lengths: ceil_mode adds a window to kernel 3 / stride 2; odd
    # lengths would meet the window that starts in the padding, which ONNX's shape inference and
    # ORT's count differently).
    for shape in ((1, 8, 16, 16), (1, 8, 30)):
        for k in (2, 3):
            for s in (1, 2):
                for p in (0, 1):
                    for ceil in (0, 1):
                        yield _pool(cfg, enc, "max", k, s, p, ceil, shape=shape)
                        for cip in ((0, 1) if p else (0,)):
                            yield _pool(cfg, enc, "avg", k, s, p, ceil, cip, shape=shape)
    for kind in ("max", "avg"):
        yield _pool(cfg, enc, kind, 16, 1, 0, 0)  # the window of a global pool (old ResNet exports)
    # YOLO's SPPF windows (kernel 5, 9, 13, stride 1, "same" padding), non-overlapping 3/3,
    # dilations, TF's asymmetric pads and auto_pad, non-square windows.
    for k in (5, 9, 13):
        yield _pool(cfg, enc, "max", k, 1, k // 2, 0)
    for cip in (0, 1):
        yield _pool(cfg, enc, "avg", 5, 1, 2, 0, cip)
    for kind in ("max", "avg"):
        yield _pool(cfg, enc, kind, 3, 3, 0, 0)
        yield _pool(cfg, enc, kind, 3, 1, 2, 0, d=2)
        yield _pool(cfg, enc, kind, 3, 2, [0, 0, 1, 1], 0)
        yield _pool(cfg, enc, kind, 3, 2, 0, 0, auto_pad="SAME_UPPER")
        for k, s in (([3, 1], [2, 1]), ([1, 3], [1, 2])):
            yield _pool(cfg, enc, kind, k, s, 0, 0)


def _attr_gemm_cases(cfg, enc):
    """Gemm with a constant B (QNN FullyConnected; graph form htp.linear with the ONNX shapes):
    alpha, beta (with a bias; none: no C), transA, transB. FusedMatMul (ORT's attention fusion):
    transA, transB, alpha."""
    m, k, n = 16, 32, 24
    w = E.weight("int8")
    bias = {"q": "int32", "scale": round(enc["scale"] * w["scale"], 12), "zp": 0}
    for ta in (0, 1):
        for tb in (1, 0):
            for alpha in (1.0, 0.5):
                for beta in (None, 1.0, 0.5):
                    ins = [{"role": "act", "shape": [k, m] if ta else [m, k], "enc": enc},
                           {"role": "weight", "shape": [n, k], "enc": w}]
                    args = ["$0", "$1"]
                    attrs = {"alpha": alpha, "transA": ta, "transB": tb}
                    if beta is not None:
                        ins.append({"role": "weight", "shape": [n], "enc": bias})
                        args.append("$2")
                        attrs["beta"] = beta
                    if not tb:
                        attrs["_onnx_weight_kn"] = 1  # B written [K, N] in the ONNX model
                    yield C._case("gemm_attrs", "htp.linear", "aten.linear.default", "Gemm", "FullyConnected",
                                  f"{cfg}8w_tA{ta}_tB{tb}_a{_n(alpha)}_"
                                  + ("nobias" if beta is None else f"b{_n(beta)}"),
                                  ins, [{"shape": [m, n], "enc": enc}], args, attrs)
    # The bias C as a row [1, N] and as the whole output [M, N] (broadcasting C).
    for cshape in ([1, n], [m, n]):
        yield C._case("gemm_attrs", "htp.linear", "aten.linear.default", "Gemm", "FullyConnected",
                      f"{cfg}8w_tA0_tB1_a1_b1_c{_n(cshape)}",
                      [{"role": "act", "shape": [m, k], "enc": enc}, {"role": "weight", "shape": [n, k], "enc": w},
                       {"role": "weight", "shape": cshape, "enc": bias}],
                      [{"shape": [m, n], "enc": enc}], ["$0", "$1", "$2"], {"alpha": 1.0, "beta": 1.0, "transB": 1})
    for ta in (0, 1):
        for tb in (0, 1):
            for alpha in (1.0, 0.125):
                a = [1, 4, k, m] if ta else [1, 4, m, k]
                b = [1, 4, n, k] if tb else [1, 4, k, n]
                yield C._case("fused_matmul_attrs", "htp.matmul", "aten.matmul.default", "FusedMatMul", "MatMul",
                              f"{cfg}{cfg[:-1]}a_tA{ta}_tB{tb}_a{_n(alpha)}",
                              [{"role": "act", "shape": a, "enc": enc}, {"role": "act", "shape": b, "enc": enc}],
                              [{"shape": [1, 4, m, n], "enc": enc}], ["$0", "$1"],
                              {"alpha": alpha, "transA": ta, "transB": tb, "_domain": "com.microsoft"})


RESIZE_CTM = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")
RESIZE_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _resize(cfg, enc, mode, rank, scale, ctm, name, extra_attrs=None):
    ishape = [1, 8] + [8] * (rank - 2)
    scales = [1.0, 1.0] + (list(scale) if isinstance(scale, list) else [scale] * (rank - 2))
    oshape = [int(d * f) for d, f in zip(ishape, scales)]
    op = {"nearest": "resize_nearest", "linear": "resize_linear", "cubic": "resize_cubic"}[mode] + f"_r{rank}"
    rule, aten, qnn, args = {
        "nearest": ("htp.upsample_nearest2d", "aten.upsample_nearest2d.vec", "ResizeNearestNeighbor",
                    [None, scales[2:]]),
        "linear": ("htp.upsample_bilinear2d", "aten.upsample_bilinear2d.vec", "ResizeBilinear",
                   [None, ctm == "align_corners", scales[2:]]),
        "cubic": ("htp.upsample_bicubic2d", "aten.upsample_bicubic2d.vec", "Resize",
                  [None, ctm == "align_corners", scales[2:]])}[mode]
    attrs = dict({"mode": mode, "coordinate_transformation_mode": ctm, "scales_input": scales}, **(extra_attrs or {}))
    return _single(cfg, op, rule, aten, "Resize", qnn, name, ishape, enc, oshape, enc, args, attrs)


def _attr_resize_cases(cfg, enc):
    """Resize: nearest with each nearest_mode x coordinate_transformation_mode, linear, cubic;
    rank 3 and 4; scales up, down, fractional and per axis; antialias, cubic coefficients."""
    for rank, scale in ((4, 2.0), (3, 2.0), (4, 0.5)):
        tag = "" if scale == 2.0 else f"_x{_n(scale)}"
        for ctm in RESIZE_CTM:
            for nm in RESIZE_NEAREST:
                yield _resize(cfg, enc, "nearest", rank, scale, ctm, f"{ctm}_{nm}{tag}", {"nearest_mode": nm})
            yield _resize(cfg, enc, "linear", rank, scale, ctm, f"{ctm}{tag}")
    # Scales 3, 1.5 and per axis (2, 1) on the forms exporters write: torch's nearest (asymmetric,
    # floor), half_pixel nearest rounding half up (round_prefer_ceil), bilinear.
    forms = [("nearest", "asymmetric", {"nearest_mode": "floor"}), ("nearest", "half_pixel",
                                                                    {"nearest_mode": "round_prefer_ceil"}),
             ("linear", "half_pixel", {}), ("linear", "align_corners", {})]
    for mode, ctm, extra in forms:
        for scale in (3.0, 1.5, [2.0, 1.0]):
            yield _resize(cfg, enc, mode, 4, scale, ctm,
                          f"{ctm}_" + ("".join(f"_{k}_{v}" for k, v in extra.items())[1:] + "_" if extra else "")
                          + f"x{_u(scale) if isinstance(scale, list) else _n(scale)}", extra)
    for ctm in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"):
        for a in (-0.75, -0.5):
            yield _resize(cfg, enc, "cubic", 4, 2.0, ctm, f"{ctm}_a{_n(a)}", {"cubic_coeff_a": a})
    yield _resize(cfg, enc, "cubic", 4, 2.0, "half_pixel", "half_pixel_exclude_outside", {"exclude_outside": 1})
    yield _resize(cfg, enc, "linear", 4, 0.5, "half_pixel", "half_pixel_antialias_x0p5", {"antialias": 1})


def _attr_layout_cases(cfg, enc):
    """Pad modes, Transpose permutations, Slice steps, DepthToSpace / SpaceToDepth."""
    torch_mode = {"constant": "constant", "edge": "replicate", "reflect": "reflect", "wrap": "circular"}
    pads4 = {"hw1": [0, 0, 1, 1, 0, 0, 1, 1], "w02": [0, 0, 0, 0, 0, 0, 0, 2], "c1": [0, 1, 0, 0, 0, 1, 0, 0],
             "r3_w1": [0, 0, 1, 0, 0, 1]}
    pad_cases = [(mode, name, pads) for mode in ("constant", "edge", "reflect", "wrap") for name, pads in pads4.items()]
    pad_cases += [("constant", "hw_m1", [0, 0, -1, -1, 0, 0, -1, -1]), ("reflect", "w7", [0, 0, 0, 7, 0, 0, 0, 7])]
    for mode, pname, pads in pad_cases:
        shape = [1, 8, 8] if pname.startswith("r3") else [1, 8, 8, 8]
        r = len(shape)
        o = [d + pads[i] + pads[i + r] for i, d in enumerate(shape)]
        tpads = [v for i in reversed(range(r)) for v in (pads[i], pads[i + r])]
        yield _single(cfg, "pad_mode", "htp.pad", "aten.pad.default", "Pad", "Pad", f"{mode}_{pname}", shape, enc, o,
                      enc, [tpads, torch_mode[mode]], {"mode": mode, "pads_input": pads})
    # Every permutation of rank 4 and 3, every rank-5 one that keeps the batch axis, and more.
    perms = [list(p) for r in (4, 3) for p in itertools.permutations(range(r))]
    perms += [[0] + [1 + x for x in p] for p in itertools.permutations(range(4))]
    perms += [[4, 3, 2, 1, 0], [1, 0, 2, 3, 4], [1, 0]]
    for perm in perms:
        shape = [2, 3, 4, 5, 6][:len(perm)]
        yield _single(cfg, f"transpose_r{len(perm)}", "htp.permute", "aten.permute.default", "Transpose", "Transpose",
                      _n(perm), shape, enc, [shape[i] for i in perm], enc, [perm], {"perm": perm})
    # Slice with steps > 1 and negative (flips), on one and two axes, a negative start, an end
    # beyond the axis.
    s = [2, 4, 6, 8]
    big = INT64_MAX
    slices = [("step2", [0], [8], [-1], [2], [2, 4, 6, 4]), ("step3", [0], [8], [-1], [3], [2, 4, 6, 3]),
              ("step4", [0], [8], [-1], [4], [2, 4, 6, 2]),
              ("flip", [-1], [-big], [-1], [-1], [2, 4, 6, 8]),
              ("step_m2", [-1], [-big], [-1], [-2], [2, 4, 6, 4]),
              ("flip_two_axes", [-1, -1], [-big, -big], [2, 3], [-1, -1], [2, 4, 6, 8]),
              ("step2_axis0", [0], [2], [0], [2], [1, 4, 6, 8]),
              ("step2_axis1", [0], [4], [1], [2], [2, 2, 6, 8]),
              ("step2_start1_m2", [1], [6], [-2], [2], [2, 4, 3, 8]),
              ("step2_two_axes", [0, 1], [6, 8], [2, 3], [2, 2], [2, 4, 3, 4]),
              ("step2_end100", [1], [100], [-1], [2], [2, 4, 6, 4]),
              ("neg_start", [-4], [big], [-1], [1], [2, 4, 6, 4])]
    for name, starts, ends, axes, steps, o in slices:
        if all(x == -1 for x in steps):
            aten, args = "aten.flip.default", [axes]
        else:
            aten, args = "aten.slice.Tensor", [axes[0], starts[0], ends[0], steps[0]]
        yield _single(cfg, "slice_steps", "htp.slice", aten, "Slice", "StridedSlice", name, s, enc, o, enc, args,
                      {"starts_input": starts, "ends_input": ends, "axes_input": axes, SLICE_STEPS: steps})
    for mode in ("DCR", "CRD"):
        for b, ch in ((2, 32), (4, 32), (3, 18)):
            yield _single(cfg, "depth_to_space", "htp.pixel_shuffle", "aten.pixel_shuffle.default", "DepthToSpace",
                          "DepthToSpace", f"{mode}_b{b}", [1, ch, 8, 8], enc, [1, ch // (b * b), 8 * b, 8 * b], enc,
                          [b],
                          {"blocksize": b, "mode": mode})
    for b, hw in ((2, 16), (4, 16), (3, 12)):
        yield _single(cfg, "space_to_depth", "htp.pixel_unshuffle", "aten.pixel_unshuffle.default", "SpaceToDepth",
                      "SpaceToDepth", f"b{b}", [1, 8, hw, hw], enc, [1, 8 * b * b, hw // b, hw // b], enc, [b],
                      {"blocksize": b})


# Einsum equations real graphs write: (equation, a, b, out, b may be a weight).
EINSUMS = [("bnd,dc->bnc", [2, 16, 32], [32, 24], [2, 16, 24], True),
           ("bhwc,cd->bhwd", [1, 8, 8, 32], [32, 16], [1, 8, 8, 16], True),
           ("bid,jd->bij", [2, 16, 32], [24, 32], [2, 16, 24], True),
           ("ij,jk->ik", [16, 32], [32, 24], [16, 24], True),
           ("bij,bjk->bik", [4, 16, 32], [4, 32, 24], [4, 16, 24], False),
           ("bhqd,bhkd->bhqk", [1, 4, 16, 32], [1, 4, 24, 32], [1, 4, 16, 24], False),
           ("bhqk,bhkd->bhqd", [1, 4, 16, 24], [1, 4, 24, 32], [1, 4, 16, 32], False),
           ("bhld,lrd->bhlr", [1, 4, 16, 32], [16, 8, 32], [1, 4, 16, 8], False),
           ("bchw,bkc->bkhw", [1, 32, 8, 8], [1, 16, 32], [1, 16, 8, 8], False),
           ("i,j->ij", [16], [24], [16, 24], False),  # rotary embedding's torch.outer
           ("bhqd,bkd->bhqk", [1, 4, 16, 32], [1, 24, 32], [1, 4, 16, 24], False),  # multi-query attention
           ("bqhd,bkhd->bhqk", [1, 16, 4, 32], [1, 24, 4, 32], [1, 4, 16, 24], False),
           ("bhqk,bkhd->bqhd", [1, 4, 16, 24], [1, 24, 4, 32], [1, 16, 4, 32], False),
           ("bhwc,hkc->bhwk", [1, 8, 8, 32], [8, 8, 32], [1, 8, 8, 8], False)]  # SAM's relative positions


def _attr_einsum_cases(cfg, enc):
    """Einsum equations, both operands activations, and a constant int8 second operand."""
    for eq, a, b, o, weight in EINSUMS:
        name = eq.replace(",", "_").replace("->", "_to_")
        seconds = [(f"{cfg}{cfg[:-1]}a", "act", enc)] + ([(f"{cfg}8w", "weight", E.weight("int8"))] if weight else [])
        for tag, role, eb in seconds:
            yield C._case("einsum_eq", "htp.einsum", "aten.einsum.default", "Einsum", "MatMul", f"{tag}_{name}",
                          [{"role": "act", "shape": a, "enc": enc}, {"role": role, "shape": b, "enc": eb}],
                          [{"shape": o, "enc": enc}], [eq, ["$0", "$1"]], {"equation": eq})


def attrs_cases():
    """Attribute values real graphs vary, each at 8-bit and 16-bit activations (int8 weights)."""
    for cfg, enc in ATTR_CONFIGS.items():
        for gen in (_attr_axis_cases, _attr_activation_cases, _attr_conv_cases, _attr_pool_cases, _attr_gemm_cases,
                    _attr_resize_cases, _attr_layout_cases, _attr_einsum_cases):
            yield from gen(cfg, enc)


# More element-wise ops for rankops (their output with an encoding of its own), and binary ops
# (comparisons write bool).
RANKOPS_UNARY = [
    ("hardswish", "htp.hardswish", "aten.hardswish.default", "HardSwish", "HardSwish"),
    ("neg", "htp.neg", "aten.neg.default", "Neg", "ElementWiseNeg"),
    ("log", "htp.log", "aten.log.default", "Log", "ElementWiseLog"),
    ("floor", "htp.floor", "aten.floor.default", "Floor", "ElementWiseFloor"),
    ("sin", "htp.sin", "aten.sin.default", "Sin", "ElementWiseSin"),
    ("round", "htp.round", "aten.round.default", "Round", "ElementWiseRound"),
    ("elu", "htp.elu", "aten.elu.default", "Elu", "Elu"),
]
RANKOPS_BINARY = [
    ("minimum", "htp.minimum", "aten.minimum.default", "Min", "ElementWiseMinimum", False),
    ("pow", "htp.pow", "aten.pow.Tensor_Tensor", "Pow", "ElementWisePower", False),
    ("eq", "htp.eq", "aten.eq.Tensor", "Equal", "ElementWiseEqual", True),
    ("gt", "htp.gt", "aten.gt.Tensor", "Greater", "ElementWiseGreater", True),
]


def rankops_cases():
    """Ranks of the ops the rank sweep leaves out because they take weights, a condition or two
    activations: LayerNormalization (scale and bias over the last axis), MatMul with a constant 2-D
    second input (ORT's FullyConnected form) and of two activations (QNN MatMul), Where, Gather
    (a rank-r table, 1-D indices on axis 0); 8-bit, 16-bit and float16 like the rank sweep."""
    w8 = E.weight("int8")
    for cfg, enc in CONFIGS.items():
        f = E.is_float(enc)
        for r in RANKS:
            s = _shape(r)
            last = s[-1]
            ln_w = enc if f else w8
            ln_b = enc if f else {"q": "int32", "scale": 1e-05, "zp": 0}
            yield _named(C._case("layer_norm", "htp.layer_norm", "aten.layer_norm.default", "LayerNormalization",
                                 "LayerNorm", cfg,
                                 [{"role": "act", "shape": s, "enc": enc}, {"role": "weight", "shape": [last], "enc": ln_w},
                                  {"role": "weight", "shape": [last], "enc": ln_b}],
                                 [{"shape": s, "enc": enc if f else E.act(enc["q"], 0.04)}], ["$0", [last], "$1", "$2"],
                                 {"axis": -1}), r)
            if r >= 2:
                out = enc if f else E.act(enc["q"], 0.1)
                yield _named(C._case("matmul_const", "htp.matmul", "aten.matmul.default", "MatMul", "FullyConnected", cfg,
                                     [{"role": "act", "shape": s, "enc": enc},
                                      {"role": "weight", "shape": [last, 6], "enc": enc if f else w8}],
                                     [{"shape": s[:-1] + [6], "enc": out}], ["$0", "$1"]), r)
                yield _named(C._case("matmul_act", "htp.matmul", "aten.matmul.default", "MatMul", "MatMul", cfg,
                                     [{"role": "act", "shape": s, "enc": enc},
                                      {"role": "act", "shape": s[:-2] + [last, s[-2]], "enc": enc}],
                                     [{"shape": s[:-1] + [s[-2]], "enc": out}], ["$0", "$1"]), r)
            cond = {"plain": "bool"}
            yield _named(C._case("where", "htp.where", "aten.where.self", "Where", "ElementWiseSelect", cfg,
                                 [{"role": "act", "shape": s, "enc": cond}, {"role": "act", "shape": s, "enc": enc},
                                  {"role": "act", "shape": s, "enc": enc}],
                                 [{"shape": s, "enc": enc}], ["$0", "$1", "$2"]), r)
            yield _named(C._case("gather", "htp.index_select", "aten.index_select.default", "Gather", "Gather", cfg,
                                 [{"role": "act", "shape": s, "enc": enc},
                                  {"role": "weight", "shape": [2], "enc": {"plain": "int64"}, "values": [1, 0]}],
                                 [{"shape": [2] + s[1:], "enc": enc}], ["$0", 0, "$1"], {"axis": 0}), r)
            own = enc if f else E.act(enc["q"], 0.04)
            for op, rule, aten, onnx_op, qnn_op in RANKOPS_UNARY:
                yield _named(C._case(op, rule, aten, onnx_op, qnn_op, cfg, [{"role": "act", "shape": s, "enc": enc}],
                                     [{"shape": s, "enc": own}], ["$0"]), r)
            yield _named(C._case("amin", "htp.amin", "aten.amin.default", "ReduceMin", "ReduceMin", cfg,
                                 [{"role": "act", "shape": s, "enc": enc}], [{"shape": s[:-1] + [1], "enc": enc}],
                                 ["$0", [-1], True], {"keepdims": 1, "axes_input": [-1]}), r)
            for op, rule, aten, onnx_op, qnn_op, boolean in RANKOPS_BINARY:
                yield _named(C._case(op, rule, aten, onnx_op, qnn_op, cfg,
                                     [{"role": "act", "shape": s, "enc": enc}, {"role": "act", "shape": s, "enc": enc}],
                                     [{"shape": s, "enc": {"plain": "bool"} if boolean else own}], ["$0", "$1"]), r)


GENERATORS = {"rank": rank_cases, "forms": forms_cases, "empty": empty_cases, "scale": scale_cases,
              "dims": dims_cases, "attrs": attrs_cases, "rankops": rankops_cases}


# Verdicts that a batch may have pinned on the wrong case.
BATCH_FAILURES = ("graph finalize", "session failed")


def confirm_alone(cases, verdicts, jobs=1):
    """Reruns, one per session, every batched case whose verdict is a graph finalize or session
    failure, and takes that verdict; returns how many. When a batch fails finalize, QNN's log can
    name an op that is not the cause; the oracle records the named op and reruns the rest, so one
    failing op can pin failures on others in turn (attrs: 340 of 388 such verdicts - pools,
    convolutions, transposed convolutions of the same batches - were accepted alone). V68 cases
    run alone already."""
    suspects = [c for c in cases if not oracle._alone(c)
                and (verdicts[c["id"]]["message"] or "").startswith(BATCH_FAILURES)]
    if suspects:
        verdicts.update(oracle.run(suspects, jobs=jobs, batch_size=1))
    return len(suspects)


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
    confirmed = confirm_alone(cases, verdicts, a.jobs)
    print(f"{confirmed} finalize or session failures rerun alone", file=sys.stderr)
    records = []
    for c in sorted(cases, key=lambda c: c["id"]):
        v = verdicts[c["id"]]
        r = {k: c[k] for k in SPEC_KEYS}
        r.update(id=c["id"], oracle=v["verdict"], message=v["message"], qnn_ops_seen=v["qnn_ops"],
                 ort_rewrite=v.get("ort_rewrite"))
        records.append(r)
    header = {"backend": "htp", "versions": oracle.versions(),
              "run": {"dimension": a.dimension, "cases": len(cases), "socs": a.socs.split(","),
                      "confirmed_alone": confirmed}}
    write(out, header, records)
    print(f"wrote {len(records)} cases to {out} in {time.time() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
