"""The conformance cases: every HTP rule's QNN op across the configurations the rules distinguish.

A case is a JSON-serialisable dict (see encodings.py for the encodings):
  id        "<op>/<config>/<soc>", unique and stable
  op        short op name; rule: the HTP rule id whose verdict is compared; aten: the ATen target
  onnx_op   the ONNX op written (or a multi-op builder name in "builder")
  qnn_op    the QNN op the rule names; config: the configuration name; soc, soc_id, arch
  inputs    [{"role": "act"|"weight"|"scalar", "shape": [...], "enc": {...}}]
  outputs   [{"shape": [...], "enc": {...}}]
  attrs     ONNX attributes; aten_args: the ATen positional arguments, "$i" = input i
The generator is deterministic: same code, same cases, same bytes.
"""
from . import encodings as E

# The SoCs of the run: one per HTP architecture (rules/socs.yaml), with QNN's soc_model id.
SOCS = [("SM8350", 30, "V68"), ("SM8450", 36, "V69"), ("SM8550", 43, "V73"),
        ("SM8650", 57, "V75"), ("SM8750", 69, "V79"), ("SM8850", 87, "V81")]

ACT4 = [1, 8, 8, 8]

# Activation configurations of single-input ops: name -> (input encoding, output encoding).
UNARY_CONFIGS = {
    "8a": (E.U8, E.U8),
    "16a": (E.U16, E.U16),
    "8a_signed": (E.S8, E.S8),
    "fp16": (E.F16, E.F16),
    "fp32": (E.F32, E.F32),
}

# (op, rule, aten target, aten extra args, ONNX op, ONNX attrs, QNN op, input shape, output shape,
#  extra constant ONNX inputs as (name, int64 values))
UNARY = [
    ("relu", "htp.relu", "aten.relu.default", [], "Relu", {}, "Relu"),
    ("clamp", "htp.relu_min_max", "aten.hardtanh.default", [-1.0, 1.0], "Clip", {}, "ReluMinMax"),
    ("gelu", "htp.gelu", "aten.gelu.default", [], "Gelu", {}, "Gelu"),
    ("elu", "htp.elu", "aten.elu.default", [], "Elu", {}, "Elu"),
    ("hardswish", "htp.hardswish", "aten.hardswish.default", [], "HardSwish", {}, "HardSwish"),
    ("softmax", "htp.softmax", "aten.softmax.int", [-1], "Softmax", {"axis": -1}, "Softmax"),
    ("log_softmax", "htp.log_softmax", "aten.log_softmax.int", [-1], "LogSoftmax", {"axis": -1}, "LogSoftmax"),
    ("abs", "htp.abs", "aten.abs.default", [], "Abs", {}, "ElementWiseAbs"),
    ("neg", "htp.neg", "aten.neg.default", [], "Neg", {}, "ElementWiseNeg"),
    ("sign", "htp.sign", "aten.sign.default", [], "Sign", {}, "ElementWiseSign"),
    ("exp", "htp.exp", "aten.exp.default", [], "Exp", {}, "ElementWiseExp"),
    ("log", "htp.log", "aten.log.default", [], "Log", {}, "ElementWiseLog"),
    ("sqrt", "htp.sqrt", "aten.sqrt.default", [], "Sqrt", {}, "ElementWiseSquareRoot"),
    ("sin", "htp.sin", "aten.sin.default", [], "Sin", {}, "ElementWiseSin"),
    ("cos", "htp.cos", "aten.cos.default", [], "Cos", {}, "ElementWiseCos"),
    ("asin", "htp.asin", "aten.asin.default", [], "Asin", {}, "ElementWiseAsin"),
    ("atan", "htp.atan", "aten.atan.default", [], "Atan", {}, "ElementWiseAtan"),
    ("ceil", "htp.ceil", "aten.ceil.default", [], "Ceil", {}, "ElementWiseCeil"),
    ("floor", "htp.floor", "aten.floor.default", [], "Floor", {}, "ElementWiseFloor"),
    ("round", "htp.round", "aten.round.default", [], "Round", {}, "ElementWiseRound"),
    ("mean", "htp.mean", "aten.mean.dim", [[-1], True], "ReduceMean", {"keepdims": 1, "axes": [-1]}, "ReduceMean"),
    ("sum", "htp.sum", "aten.sum.dim_IntList", [[-1], True], "ReduceSum", {"keepdims": 1, "axes_input": [-1]}, "ReduceSum"),
    ("amax", "htp.amax", "aten.amax.default", [[-1], True], "ReduceMax", {"keepdims": 1, "axes_input": [-1]}, "ReduceMax"),
    ("amin", "htp.amin", "aten.amin.default", [[-1], True], "ReduceMin", {"keepdims": 1, "axes_input": [-1]}, "ReduceMin"),
    ("avg_pool2d", "htp.avg_pool2d", "aten.avg_pool2d.default", [[2, 2], [2, 2]], "AveragePool",
     {"kernel_shape": [2, 2], "strides": [2, 2]}, "PoolAvg2d"),
    ("max_pool2d", "htp.max_pool2d", "aten.max_pool2d.default", [[2, 2], [2, 2]], "MaxPool",
     {"kernel_shape": [2, 2], "strides": [2, 2]}, "PoolMax2d"),
    ("upsample_nearest2d", "htp.upsample_nearest2d", "aten.upsample_nearest2d.vec", [None, [2.0, 2.0]], "Resize",
     {"mode": "nearest", "scales_input": [1.0, 1.0, 2.0, 2.0]}, "ResizeNearestNeighbor"),
    ("upsample_bilinear2d", "htp.upsample_bilinear2d", "aten.upsample_bilinear2d.vec", [None, False, [2.0, 2.0]],
     "Resize", {"mode": "linear", "scales_input": [1.0, 1.0, 2.0, 2.0]}, "ResizeBilinear"),
    ("reshape", "htp.reshape", "aten.view.default", [[1, 8, 64]], "Reshape", {"shape_input": [1, 8, 64]}, "Reshape"),
    ("permute", "htp.permute", "aten.permute.default", [[0, 2, 3, 1]], "Transpose", {"perm": [0, 2, 3, 1]}, "Transpose"),
    ("pixel_shuffle", "htp.pixel_shuffle", "aten.pixel_shuffle.default", [2], "DepthToSpace",
     {"blocksize": 2, "mode": "CRD"}, "DepthToSpace"),
    ("pixel_unshuffle", "htp.pixel_unshuffle", "aten.pixel_unshuffle.default", [2], "SpaceToDepth",
     {"blocksize": 2}, "SpaceToDepth"),
    ("pad", "htp.pad", "aten.constant_pad_nd.default", [[1, 1, 1, 1]], "Pad",
     {"pads_input": [0, 0, 1, 1, 0, 0, 1, 1]}, "Pad"),
    ("slice", "htp.slice", "aten.slice.Tensor", [3, 0, 4], "Slice",
     {"starts_input": [0], "ends_input": [4], "axes_input": [3]}, "StridedSlice"),
    ("repeat", "htp.repeat", "aten.repeat.default", [[1, 1, 1, 2]], "Tile", {"repeats_input": [1, 1, 1, 2]}, "Tile"),
    ("cumsum", "htp.cumsum", "aten.cumsum.default", [3], "CumSum", {"axis_input_scalar": 3}, "CumulativeSum"),
    ("pow_scalar", "htp.pow", "aten.pow.Tensor_Scalar", [2.0], "Pow", {"exponent_const": 2.0}, "ElementWisePower"),
    # leaky_relu: ExecuTorch lifts it to prelu; ONNX LeakyRelu lowers to QNN Prelu.
    ("leaky_relu", "htp.prelu", "aten.leaky_relu.default", [0.1], "LeakyRelu", {"alpha": 0.1}, "Prelu"),
]

# Output shapes that differ from the input shape.
OUT_SHAPE = {
    "mean": [1, 8, 8, 1], "sum": [1, 8, 8, 1], "amax": [1, 8, 8, 1], "amin": [1, 8, 8, 1],
    "avg_pool2d": [1, 8, 4, 4], "max_pool2d": [1, 8, 4, 4],
    "upsample_nearest2d": [1, 8, 16, 16], "upsample_bilinear2d": [1, 8, 16, 16],
    "reshape": [1, 8, 64], "permute": [1, 8, 8, 8], "pixel_shuffle": [1, 2, 16, 16],
    "pixel_unshuffle": [1, 32, 4, 4], "pad": [1, 8, 10, 10], "slice": [1, 8, 8, 4], "repeat": [1, 8, 8, 16],
}
# Ops whose output must share the input's encoding (math-invariant): the case gives them the same.
SHARED_OUT = {"reshape", "permute", "pixel_shuffle", "pixel_unshuffle", "repeat", "max_pool2d", "slice", "pad"}

# Fixed output encodings: (op, bits) -> (scale, zero point) as QNN documents them, and a wrong one.
FIXED = [
    ("sigmoid", "htp.sigmoid", "aten.sigmoid.default", "Sigmoid", "Sigmoid"),
    ("hardsigmoid", "htp.hardsigmoid", "aten.hardsigmoid.default", "HardSigmoid", "ElementWiseNeuron"),
    ("tanh", "htp.tanh", "aten.tanh.default", "Tanh", "Tanh"),
]
FIXED_ENC = {
    ("sigmoid", 8): (1 / 256, 0), ("sigmoid", 16): (1 / 65536, 0),
    ("hardsigmoid", 8): (1 / 256, 0), ("hardsigmoid", 16): (1 / 65536, 0),
    ("tanh", 8): (1 / 128, 128), ("tanh", 16): (1 / 32768, 32768),
}

# Binary ops: (op, rule, aten Tensor target, aten Scalar target, ONNX op, QNN op, output is bool)
BINARY = [
    ("add", "htp.add", "aten.add.Tensor", "aten.add.Scalar", "Add", "ElementWiseAdd", False),
    ("sub", "htp.sub", "aten.sub.Tensor", "aten.sub.Scalar", "Sub", "ElementWiseSubtract", False),
    ("mul", "htp.mul", "aten.mul.Tensor", "aten.mul.Scalar", "Mul", "ElementWiseMultiply", False),
    ("div", "htp.div", "aten.div.Tensor", "aten.div.Scalar", "Div", "ElementWiseDivide", False),
    ("maximum", "htp.maximum", "aten.maximum.default", None, "Max", "ElementWiseMaximum", False),
    ("minimum", "htp.minimum", "aten.minimum.default", None, "Min", "ElementWiseMinimum", False),
    ("pow", "htp.pow", "aten.pow.Tensor_Tensor", None, "Pow", "ElementWisePower", False),
    ("prelu", "htp.prelu", "aten.prelu.default", None, "PRelu", "Prelu", False),
    ("eq", "htp.eq", "aten.eq.Tensor", "aten.eq.Scalar", "Equal", "ElementWiseEqual", True),
    ("gt", "htp.gt", "aten.gt.Tensor", "aten.gt.Scalar", "Greater", "ElementWiseGreater", True),
    ("ge", "htp.ge", "aten.ge.Tensor", "aten.ge.Scalar", "GreaterOrEqual", "ElementWiseGreaterEqual", True),
    ("lt", "htp.lt", "aten.lt.Tensor", "aten.lt.Scalar", "Less", "ElementWiseLess", True),
    ("le", "htp.le", "aten.le.Tensor", "aten.le.Scalar", "LessOrEqual", "ElementWiseLessEqual", True),
]
BINARY_CONFIGS = {"8a": E.U8, "16a": E.U16, "fp16": E.F16, "fp32": E.F32, "int32": {"plain": "int32"},
                  "int64": {"plain": "int64"}}
# int64 operands: the shape arithmetic torch.onnx writes (Div/Mul/Add/Sub of shape values).
INT64_BINARY = {"add", "sub", "mul", "div"}

# Weighted ops: (op, rule, aten target, aten extra args, ONNX op, ONNX attrs, QNN op, input shape,
#  weight shape, output shape, per-channel axis)
WEIGHTED = [
    ("conv2d", "htp.conv2d", "aten.conv2d.default", [None, [1, 1], [1, 1]], "Conv",
     {"pads": [1, 1, 1, 1]}, "Conv2d", [1, 64, 8, 8], [16, 64, 3, 3], [1, 16, 8, 8], 0),
    # A 1x1 kernel: ORT's QNN EP builds block-wise (BQ) conv weights only when the per-block
    # scales are [OC, blocks], which holds for 1x1 kernels.
    ("conv2d_1x1", "htp.conv2d", "aten.conv2d.default", [None, [1, 1], [0, 0]], "Conv",
     {}, "Conv2d", [1, 64, 8, 8], [16, 64, 1, 1], [1, 16, 8, 8], 0),
    ("conv3d", "htp.conv3d", "aten.conv3d.default", [None, [1, 1, 1], [1, 1, 1]], "Conv",
     {"pads": [1, 1, 1, 1, 1, 1]}, "Conv3d", [1, 64, 4, 4, 4], [16, 64, 3, 3, 3], [1, 16, 4, 4, 4], 0),
    ("conv_transpose2d", "htp.conv_transpose2d", "aten.conv_transpose2d.input", [None, [2, 2]], "ConvTranspose",
     {"strides": [2, 2]}, "TransposeConv2d", [1, 64, 4, 4], [64, 16, 2, 2], [1, 16, 8, 8], 1),
    ("linear", "htp.linear", "aten.linear.default", [None], "Gemm", {"transB": 1}, "FullyConnected",
     [1, 64], [16, 64], [1, 16], 0),
    # Gemm with transB=0 (B is [K, N], per-channel along axis 1), as ORT's quantizer and
    # torch.onnx write it: ORT's QNN EP transposes B and its encoding before asking QNN, so the
    # graph form is linear's [N, K] weight along axis 0 (what FullyConnected receives); the ONNX
    # model carries the [K, N] form ("_onnx_weight_kn").
    ("linear_kn", "htp.linear", "aten.linear.default", [None], "Gemm", {"transB": 0, "_onnx_weight_kn": 1},
     "FullyConnected", [1, 64], [16, 64], [1, 16], 0),
    ("conv_transpose3d", "htp.conv_transpose3d", "aten.conv_transpose3d.input", [None, [2, 2, 2]], "ConvTranspose",
     {"strides": [2, 2, 2]}, "TransposeConv3d", [1, 64, 2, 2, 2], [64, 16, 2, 2, 2], [1, 16, 4, 4, 4], 1),
]


def weight_configs(wshape, axis):
    """Configurations of a weighted op: name -> (activation enc, weight enc, output enc)."""
    c = wshape[axis]
    wrong = 1 - axis
    blocks = {"q": "int4", "block": 32}
    return {
        "8a8w": (E.U8, E.weight("int8"), E.U8),
        "8a8w_pc": (E.U8, E.weight("int8", c, axis), E.U8),
        "8a8w_pc_wrong_axis": (E.U8, E.weight("int8", wshape[wrong], wrong), E.U8),
        "8a8w_asym": (E.U8, E.weight("int8", zp=3), E.U8),
        "8a8w_u8sym": (E.U8, E.weight("uint8", zp=128), E.U8),
        "16a8w": (E.U16, E.weight("int8"), E.U16),
        "16a8w_pc": (E.U16, E.weight("int8", c, axis), E.U16),
        "16a16w": (E.U16, E.weight("int16"), E.U16),
        "16a16w_asym": (E.U16, E.weight("int16", zp=5), E.U16),
        "8a4w_pc": (E.U8, E.weight("int4", c, axis), E.U8),
        "16a4w_pc": (E.U16, E.weight("int4", c, axis), E.U16),
        "16a4w_block": (E.U16, dict(E.weight("int4", c, axis), **blocks), E.U16),
        "16a2w_pc": (E.U16, E.weight("int2", c, axis), E.U16),
        "fp16a8w_pc": (E.F16, E.weight("int8", c, axis), E.F16),
        "fp16": (E.F16, E.F16, E.F16),
        "fp32": (E.F32, E.F32, E.F32),
    }


MATMUL_CONFIGS = {
    "8a8a": (E.U8, E.U8, E.U8),
    "16a8a": (E.U16, E.U8, E.U16),
    "16a16a": (E.U16, E.U16, E.U16),
    "16a16a_s16": (E.U16, E.S16, E.U16),
    "fp16": (E.F16, E.F16, E.F16),
    "fp32": (E.F32, E.F32, E.F32),
}

# Norm weights (gamma): unsigned asymmetric as the reference quantizer gives them, and signed
# symmetric ones.
NORM_CONFIGS = {
    "8a8w": (E.U8, E.weight("uint8", zp=100), E.U8),
    "8a8w_s8": (E.U8, E.weight("int8"), E.U8),
    "16a8w": (E.U16, E.weight("uint8", zp=100), E.U16),
    "16a16w": (E.U16, E.weight("uint16", zp=30000), E.U16),
    "16a16w_s16": (E.U16, E.weight("int16"), E.U16),
    "fp16": (E.F16, E.F16, E.F16),
}


def _case(op, rule, aten, onnx_op, qnn_op, config, inputs, outputs, aten_args, attrs=None, builder=None):
    return {"op": op, "rule": rule, "aten": aten, "onnx_op": onnx_op, "qnn_op": qnn_op, "config": config,
            "inputs": inputs, "outputs": outputs, "aten_args": aten_args, "attrs": attrs or {},
            "builder": builder}


def _unary_cases():
    for op, rule, aten, extra, onnx_op, attrs, qnn_op in UNARY:
        for cfg, (ein, eout) in UNARY_CONFIGS.items():
            if op in SHARED_OUT:
                eout = ein
            yield _case(op, rule, aten, onnx_op, qnn_op, cfg, [{"role": "act", "shape": ACT4, "enc": ein}],
                        [{"shape": OUT_SHAPE.get(op, ACT4), "enc": eout}], ["$0"] + extra, attrs)
    for op, rule, aten, onnx_op, qnn_op in FIXED:
        for bits, enc in ((8, E.U8), (16, E.U16)):
            right = FIXED_ENC[(op, bits)]
            for tag, (scale, zp) in (("right", right), ("wrong", (right[0] * 1.7, right[1]))):
                out = E.act(enc["q"], scale, zp)
                yield _case(op, rule, aten, onnx_op, qnn_op, f"{bits}a_fixed_{tag}",
                            [{"role": "act", "shape": ACT4, "enc": enc}], [{"shape": ACT4, "enc": out}], ["$0"])
        for cfg in ("fp16", "fp32"):
            e = UNARY_CONFIGS[cfg][0]
            yield _case(op, rule, aten, onnx_op, qnn_op, cfg, [{"role": "act", "shape": ACT4, "enc": e}],
                        [{"shape": ACT4, "enc": e}], ["$0"])
    # silu: no ONNX op; a Sigmoid feeding a Mul (what QNN builds for it). The JSON side asks about
    # the in-place form aten.silu_ too, which ExecuTorch's graphs carry.
    for aten in ("aten.silu.default", "aten.silu_.default"):
        for cfg, (ein, eout) in UNARY_CONFIGS.items():
            name = "silu" if aten == "aten.silu.default" else "silu_"
            yield _case(name, "htp.silu", aten, "Sigmoid+Mul", "Sigmoid", cfg,
                        [{"role": "act", "shape": ACT4, "enc": ein}], [{"shape": ACT4, "enc": eout}], ["$0"],
                        builder="silu")


def _binary_cases():
    for op, rule, aten_t, aten_s, onnx_op, qnn_op, is_bool in BINARY:
        for cfg, enc in BINARY_CONFIGS.items():
            if op in ("pow", "prelu") and cfg == "int32":
                continue
            if cfg == "int64" and op not in INT64_BINARY:
                continue
            out = {"plain": "bool"} if is_bool else enc
            second = [1, 8, 1, 1] if op == "prelu" else ACT4
            role2 = "weight" if op == "prelu" else "act"
            yield _case(op, rule, aten_t, onnx_op, qnn_op, cfg,
                        [{"role": "act", "shape": ACT4, "enc": enc}, {"role": role2, "shape": second, "enc": enc}],
                        [{"shape": ACT4, "enc": out}], ["$0", "$1"])
            if aten_s is None:
                continue
            # The scalar form: a constant operand (ONNX initializer; a Python number in the ATen graph).
            scal = dict(enc) if "q" in enc else enc
            yield _case(op + "_scalar", rule, aten_s, onnx_op, qnn_op, cfg,
                        [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "scalar", "shape": [], "enc": scal,
                                                                       "value": 2}],
                        [{"shape": ACT4, "enc": out}], ["$0", 2])


def _weighted_cases():
    for op, rule, aten, extra, onnx_op, attrs, qnn_op, ishape, wshape, oshape, axis in WEIGHTED:
        for cfg, (ea, ew, eo) in weight_configs(wshape, axis).items():
            if op == "linear_kn" and cfg == "16a4w_block":
                continue  # blocks of a transposed B: ORT's Gemm builder has no such form
            yield _case(op, rule, aten, onnx_op, qnn_op, cfg,
                        [{"role": "act", "shape": ishape, "enc": ea}, {"role": "weight", "shape": wshape, "enc": ew}],
                        [{"shape": oshape, "enc": eo}], ["$0", "$1"] + extra, attrs)
    for cfg, (ea, eb, eo) in MATMUL_CONFIGS.items():
        yield _case("matmul", "htp.matmul", "aten.matmul.default", "MatMul", "MatMul", cfg,
                    [{"role": "act", "shape": [1, 4, 16, 32], "enc": ea},
                     {"role": "act", "shape": [1, 4, 32, 16], "enc": eb}],
                    [{"shape": [1, 4, 16, 16], "enc": eo}], ["$0", "$1"])
    norms = [("layer_norm", "htp.layer_norm", "aten.layer_norm.default", [[32]], "LayerNormalization",
              {"axis": -1}, "LayerNorm", [1, 16, 32], [32]),
             ("instance_norm", "htp.instance_norm", "aten.instance_norm.default", [], "InstanceNormalization",
              {}, "InstanceNorm", [1, 8, 8, 8], [8]),
             ("batch_norm", "htp.batch_norm", "aten.batch_norm.default", [], "BatchNormalization",
              {}, "Batchnorm", [1, 8, 8, 8], [8])]
    for op, rule, aten, extra, onnx_op, attrs, qnn_op, ishape, wshape in norms:
        for cfg, (ea, ew, eo) in NORM_CONFIGS.items():
            bias = ew if "float" in ew else {"q": "int32", "scale": 1e-5, "zp": 0}
            ins = [{"role": "act", "shape": ishape, "enc": ea}, {"role": "weight", "shape": wshape, "enc": ew},
                   {"role": "weight", "shape": wshape, "enc": bias}]
            if op == "layer_norm":
                args = ["$0", [32], "$1", "$2"]
            elif op == "instance_norm":
                args = ["$0", "$1", "$2", None, None, False, 0.1, 1e-5, False]
            else:
                # ONNX BatchNormalization carries mean/var; the ATen form has them as tensors too.
                ins += [{"role": "weight", "shape": wshape, "enc": ew}, {"role": "weight", "shape": wshape,
                                                                          "enc": ew, "positive": True}]
                args = ["$0", "$1", "$2", "$3", "$4", False, 0.1, 1e-5, True]
            yield _case(op, rule, aten, onnx_op, qnn_op, cfg, ins, [{"shape": ishape, "enc": eo}], args, attrs)


ACT5 = [1, 8, 4, 4, 4]
BOOL = {"plain": "bool"}
I64 = {"plain": "int64"}
I32 = {"plain": "int32"}

# Single-input ops added for the ops real ONNX graphs carry (issue 21): (op, rule, aten target,
# aten extra args, ONNX op, ONNX attrs ("_domain": a non-default ONNX domain), QNN op, input shape,
# output shape, output encoding (None: the input's config), output shares the input encoding).
UNARY_MORE = [
    # ORT's QNN preprocessing (qnn_preprocess_model) fuses Erf-based GELU into com.microsoft::Gelu.
    ("gelu_ms", "htp.gelu", "aten.gelu.default", [], "Gelu", {"_domain": "com.microsoft"}, "Gelu",
     ACT4, ACT4, None, False),
    # ORT's Reciprocal builder: QNN ElementWiseDivide of a constant 1 by the input.
    ("reciprocal", "htp.reciprocal", "aten.reciprocal.default", [], "Reciprocal", {}, "ElementWiseDivide",
     ACT4, ACT4, None, False),
    ("isnan", "htp.isnan", "aten.isnan.default", [], "IsNaN", {}, "IsNan", ACT4, ACT4, BOOL, False),
    ("tan", "htp.tan", "aten.tan.default", [], "Tan", {}, "ElementWiseTan", ACT4, ACT4, None, False),
    ("softplus", "htp.softplus", "aten.softplus.default", [], "Softplus", {}, "ElementWiseSoftplus",
     ACT4, ACT4, None, False),
    ("reduce_prod", "htp.prod", "aten.prod.dim_int", [-1, True], "ReduceProd", {"keepdims": 1, "axes_input": [-1]},
     "ReduceProd", ACT4, [1, 8, 8, 1], None, False),
    ("reduce_l2", "htp.linalg_vector_norm", "aten.linalg_vector_norm.default", [2.0, [-1], True], "ReduceL2",
     {"keepdims": 1, "axes_input": [-1]}, "ReduceL2", ACT4, [1, 8, 8, 1], None, False),
    ("global_max_pool", "htp.max_pool2d", "aten.adaptive_max_pool2d.default", [[1, 1]], "GlobalMaxPool", {},
     "PoolMax2d", ACT4, [1, 8, 1, 1], None, True),
    ("global_avg_pool", "htp.mean", "aten.mean.dim", [[-1, -2], True], "GlobalAveragePool", {},
     "PoolAvg2d", ACT4, [1, 8, 1, 1], None, False),
    ("avg_pool3d", "htp.avg_pool3d", "aten.avg_pool3d.default", [[2, 2, 2], [2, 2, 2]], "AveragePool",
     {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}, "PoolAvg3d", ACT5, [1, 8, 2, 2, 2], None, False),
    ("max_pool3d", "htp.max_pool3d", "aten.max_pool3d.default", [[2, 2, 2], [2, 2, 2]], "MaxPool",
     {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}, "PoolMax3d", ACT5, [1, 8, 2, 2, 2], None, True),
    ("argmax", "htp.argmax", "aten.argmax.default", [-1, True], "ArgMax", {"axis": -1, "keepdims": 1}, "Argmax",
     ACT4, [1, 8, 8, 1], I64, False),
    ("argmin", "htp.argmin", "aten.argmin.default", [-1, True], "ArgMin", {"axis": -1, "keepdims": 1}, "Argmin",
     ACT4, [1, 8, 8, 1], I64, False),
    ("identity", "htp.identity", "aten.clone.default", [], "Identity", {}, "Reshape", ACT4, ACT4, None, True),
    ("expand", "htp.repeat", "aten.expand.default", [[1, 8, 8, 8]], "Expand", {"shape_input": [1, 8, 8, 8]},
     "Tile", [1, 8, 1, 8], ACT4, None, True),
    ("depth_to_space_dcr", "htp.pixel_shuffle", "aten.pixel_shuffle.default", [2], "DepthToSpace",
     {"blocksize": 2, "mode": "DCR"}, "DepthToSpace", ACT4, [1, 2, 16, 16], None, True),
    ("selu", "htp.selu", "aten.selu.default", [], "Selu", {}, "ElementWiseNeuron", ACT4, ACT4, None, False),
    ("thresholded_relu", "htp.threshold", "aten.threshold.default", [1.0, 0.0], "ThresholdedRelu", {"alpha": 1.0},
     "ElementWiseNeuron", ACT4, ACT4, None, False),
    ("resize_cubic", "htp.upsample_bicubic2d", "aten.upsample_bicubic2d.vec", [None, False, [2.0, 2.0]], "Resize",
     {"mode": "cubic", "scales_input": [1.0, 1.0, 2.0, 2.0]}, "Resize", ACT4, [1, 8, 16, 16], None, False),
]
UNARY_MORE_CONFIGS = dict(UNARY_CONFIGS, int32=(I32, I32))
# Which configurations apply: quantized and float activations everywhere, int32 for the data
# movement ops that carry integer tensors.
INT_OPS = {"identity", "expand", "argmax", "argmin"}


def _more_cases():
    for op, rule, aten, extra, onnx_op, attrs, qnn_op, ishape, oshape, oenc, shared in UNARY_MORE:
        for cfg, (ein, eout) in UNARY_MORE_CONFIGS.items():
            if cfg == "int32" and op not in INT_OPS:
                continue
            out = oenc or (ein if shared else eout)
            yield _case(op, rule, aten, onnx_op, qnn_op, cfg, [{"role": "act", "shape": ishape, "enc": ein}],
                        [{"shape": oshape, "enc": out}], ["$0"] + extra, attrs)
    # Logical ops on bool tensors.
    for op, rule, aten, onnx_op, qnn_op, n in (("not", "htp.logical_not", "aten.logical_not.default", "Not",
                                                 "ElementWiseNot", 1),
                                                ("and", "htp.logical_and", "aten.logical_and.default", "And",
                                                 "ElementWiseAnd", 2),
                                                ("or", "htp.bitwise_or", "aten.bitwise_or.Tensor", "Or",
                                                 "ElementWiseOr", 2),
                                                ("xor", "htp.bitwise_xor", "aten.bitwise_xor.Tensor", "Xor",
                                                 "ElementWiseXor", 2)):
        ins = [{"role": "act", "shape": ACT4, "enc": BOOL} for _ in range(n)]
        yield _case(op, rule, aten, onnx_op, qnn_op, "bool", ins, [{"shape": ACT4, "enc": BOOL}],
                    [f"${i}" for i in range(n)])
    # where(condition, x, y); "_fconst": y an unquantized float32 constant (a masked_fill value)
    # beside quantized x, as ORT's quantizer leaves it.
    where_cfgs = dict(BINARY_CONFIGS)
    where_cfgs.pop("int64")
    for cfg, enc in where_cfgs.items():
        ins = [{"role": "act", "shape": ACT4, "enc": BOOL}, {"role": "act", "shape": ACT4, "enc": enc},
               {"role": "act", "shape": ACT4, "enc": enc}]
        yield _case("where", "htp.where", "aten.where.self", "Where", "ElementWiseSelect", cfg, ins,
                    [{"shape": ACT4, "enc": enc}], ["$0", "$1", "$2"])
    # The constant is a float32 tensor in both forms (ORT hands QNN the initializer as it is).
    fconst = {"role": "weight", "shape": [], "enc": E.F32, "values": [-10000.0]}
    for cfg, enc, first in (("8a_fconst", E.U8, False), ("16a_fconst", E.U16, False),
                            ("8a_fconst_first", E.U8, True)):
        x = {"role": "act", "shape": ACT4, "enc": enc}
        ins = [{"role": "act", "shape": ACT4, "enc": BOOL}] + ([fconst, x] if first else [x, fconst])
        yield _case("where", "htp.where", "aten.where.self", "Where", "ElementWiseSelect", cfg, ins,
                    [{"shape": ACT4, "enc": enc}], ["$0", "$1", "$2"])
    # An attention-mask Add: the mask's encoding covers float32's lowest value (torch.finfo.min),
    # so its scale is ~5e33 at 16 bits and ~1.3e36 at 8 bits.
    for cfg, enc, big in (("16a_mask", E.U16, E.act("uint16", 3.4028234e38 / 65535, 65535)),
                          ("8a_mask", E.U8, E.act("uint8", 3.4028234e38 / 255, 255))):
        ins = [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "act", "shape": ACT4, "enc": big}]
        yield _case("add", "htp.add", "aten.add.Tensor", "Add", "ElementWiseAdd", cfg, ins,
                    [{"shape": ACT4, "enc": big}], ["$0", "$1"])
    act_cfgs = {k: v[0] for k, v in UNARY_CONFIGS.items()}
    act_cfgs_int = dict(act_cfgs, int32=I32)
    for cfg, enc in act_cfgs.items():
        # topk: values keep the input encoding; indices int64.
        yield _case("topk", "htp.topk", "aten.topk.default", "TopK", "TopK", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}],
                    [{"shape": [1, 8, 8, 3], "enc": enc}, {"shape": [1, 8, 8, 3], "enc": I64}], ["$0", 3, -1],
                    {"axis": -1, "k_input": [3]})
        yield _case("grid_sample", "htp.grid_sample", "aten.grid_sampler.default", "GridSample", "GridSample", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "act", "shape": [1, 8, 8, 2], "enc": enc}],
                    [{"shape": ACT4, "enc": enc}], ["$0", "$1", 0, 0, False])
    for cfg, enc in act_cfgs_int.items():
        yield _case("split", "htp.split", "aten.split_with_sizes.default", "Split", "Split", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}],
                    [{"shape": [1, 8, 8, 4], "enc": enc}, {"shape": [1, 8, 8, 4], "enc": enc}], ["$0", [4, 4], 3],
                    {"axis": 3, "split_input": [4, 4]})
        yield _case("cat", "htp.cat", "aten.cat.default", "Concat", "Concat", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "act", "shape": ACT4, "enc": enc}],
                    [{"shape": [1, 16, 8, 8], "enc": enc}], [["$0", "$1"], 1], {"axis": 1})
        yield _case("index_select", "htp.index_select", "aten.index_select.default", "Gather", "Gather", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "weight", "shape": [3], "enc": I64}],
                    [{"shape": [1, 3, 8, 8], "enc": enc}], ["$0", 1, "$1"], {"axis": 1})
        yield _case("gather_elements", "htp.gather_elements", "aten.gather.default", "GatherElements",
                    "GatherElements", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "weight", "shape": ACT4, "enc": I64}],
                    [{"shape": ACT4, "enc": enc}], ["$0", 3, "$1"], {"axis": 3})
        yield _case("scatter", "htp.scatter", "aten.scatter.src", "ScatterElements", "ScatterElements", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "weight", "shape": [1, 8, 8, 2], "enc": I64},
                     {"role": "act", "shape": [1, 8, 8, 2], "enc": enc}],
                    [{"shape": ACT4, "enc": enc}], ["$0", 3, "$1", "$2"], {"axis": 3})
    # embedding: a constant table (quantized like an activation, as ORT's quantizer does) and
    # int64 token ids as the graph input.
    for cfg, enc in act_cfgs.items():
        yield _case("embedding", "htp.embedding", "aten.embedding.default", "Gather", "Gather", cfg,
                    [{"role": "weight", "shape": [32, 16], "enc": enc}, {"role": "act", "shape": [1, 5], "enc": I64}],
                    [{"shape": [1, 5, 16], "enc": enc}], ["$0", "$1"], {"axis": 0})
    # Casts between float and integer types (ONNX Cast to=<TensorProto type>).
    cast_types = {"fp32": (E.F32, 1), "fp16": (E.F16, 10), "int32": (I32, 6), "int64": (I64, 7), "bool": (BOOL, 9)}
    for a, b in (("fp32", "fp16"), ("fp16", "fp32"), ("fp32", "int32"), ("int32", "fp32"), ("int64", "int32"),
                 ("int32", "int64"), ("bool", "fp32"), ("fp32", "bool")):
        yield _case("cast", "htp.cast", "aten.to.dtype", "Cast", "Cast", f"{a}_to_{b}",
                    [{"role": "act", "shape": ACT4, "enc": cast_types[a][0]}],
                    [{"shape": ACT4, "enc": cast_types[b][0]}], ["$0", "torch." + {
                        "fp32": "float32", "fp16": "float16", "int32": "int32", "int64": "int64",
                        "bool": "bool"}[b]], {"to": cast_types[b][1]})
    for cfg, (ea, eb, eo) in MATMUL_CONFIGS.items():
        yield _case("einsum", "htp.einsum", "aten.einsum.default", "Einsum", "MatMul", cfg,
                    [{"role": "act", "shape": [1, 4, 16, 32], "enc": ea},
                     {"role": "act", "shape": [1, 4, 32, 16], "enc": eb}],
                    [{"shape": [1, 4, 16, 16], "enc": eo}], ["bhij,bhjk->bhik", ["$0", "$1"]],
                    {"equation": "bhij,bhjk->bhik"})
    # Gemm of two activations with a bias (htp.addmm): A [16, 32] x B [32, 16] + C [16]; the bias
    # is an activation quantized like the output (the rule checks it with ElementWiseAdd's specs).
    for cfg, (ea, eb, eo) in MATMUL_CONFIGS.items():
        yield _case("addmm", "htp.addmm", "aten.addmm.default", "Gemm", "MatMul", cfg,
                    [{"role": "act", "shape": [16, 32], "enc": ea}, {"role": "act", "shape": [32, 16], "enc": eb},
                     {"role": "act", "shape": [16], "enc": eo}],
                    [{"shape": [16, 16], "enc": eo}], ["$2", "$0", "$1"])
    # Ops the rules declare unsupported that ORT's QNN EP has builders for (NonZero) or not
    # (BitwiseNot): does the backend take them?
    for cfg, enc in (("fp32", E.F32), ("fp16", E.F16), ("int32", I32), ("8a", E.U8)):
        yield _case("nonzero", "htp.nonzero", "aten.nonzero.default", "NonZero", "NonZero", cfg,
                    [{"role": "act", "shape": [1, 8], "enc": enc}], [{"shape": [2, 8], "enc": I64}], ["$0"])
    yield _case("bitwise_not", "htp.bitwise_not", "aten.bitwise_not.default", "BitwiseNot", "ElementWiseNot",
                "int32", [{"role": "act", "shape": ACT4, "enc": I32}], [{"shape": ACT4, "enc": I32}], ["$0"])
    # ONNX Mod: fmod=0 (integer remainder, torch.remainder) and fmod=1 (float fmod, torch.fmod).
    for cfg, enc in (("int32", I32),):
        yield _case("mod", "htp.remainder", "aten.remainder.Tensor", "Mod", "ElementWiseMod", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "weight", "shape": [1], "enc": enc}],
                    [{"shape": ACT4, "enc": enc}], ["$0", "$1"], {"fmod": 0})
    for cfg, enc in (("fp16", E.F16), ("fp32", E.F32), ("8a", E.U8), ("16a", E.U16)):
        yield _case("fmod", "htp.remainder", "aten.fmod.Tensor", "Mod", "ElementWiseFmod", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "weight", "shape": [1], "enc": enc}],
                    [{"shape": ACT4, "enc": enc}], ["$0", "$1"], {"fmod": 1})
    # com.microsoft::FusedMatMul (ORT's transformer fusions: MatMul with transposes and a scale).
    for cfg, (ea, eb, eo) in MATMUL_CONFIGS.items():
        yield _case("fused_matmul", "htp.matmul", "aten.matmul.default", "FusedMatMul", "MatMul", cfg,
                    [{"role": "act", "shape": [1, 4, 16, 32], "enc": ea},
                     {"role": "act", "shape": [1, 4, 32, 16], "enc": eb}],
                    [{"shape": [1, 4, 16, 16], "enc": eo}], ["$0", "$1"], {"alpha": 1.0, "_domain": "com.microsoft"})
    # Detection-head and recurrent ops the rules declare unsupported (ExecuTorch's builders do not
    # enable them) but ORT's QNN EP has builders for: what does the backend say?
    for cfg, enc in (("fp32", E.F32),):  # ONNX NonMaxSuppression takes float32 only
        yield _case("nms", "htp.nms", "torchvision.nms.default", "NonMaxSuppression", "NonMaxSuppression", cfg,
                    [{"role": "act", "shape": [1, 32, 4], "enc": enc}, {"role": "act", "shape": [1, 1, 32], "enc": enc},
                     {"role": "weight", "shape": [1], "enc": I64, "values": [8]},
                     {"role": "weight", "shape": [1], "enc": E.F32, "values": [0.5]},
                     {"role": "weight", "shape": [1], "enc": E.F32, "values": [0.1]}],
                    [{"shape": [8, 3], "enc": I64}], ["$0", "$1", 0.5])
    for cfg, enc in (("fp32", E.F32), ("fp16", E.F16), ("8a", E.U8), ("16a", E.U16)):
        yield _case("roi_align", "htp.roi_align", "torchvision.roi_align.default", "RoiAlign", "RoiAlign", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc},
                     {"role": "weight", "shape": [4, 4], "enc": E.F32 if "float" not in enc else enc,
                      "values": [0, 0, 4, 4] * 4},
                     {"role": "weight", "shape": [4], "enc": I64, "values": [0, 0, 0, 0]}],
                    [{"shape": [4, 8, 2, 2], "enc": enc}], ["$0", "$1", 1.0, 2, 2, 0, False],
                    {"output_height": 2, "output_width": 2})
    for cfg, enc in (("fp32", E.F32), ("fp16", E.F16)):
        yield _case("lstm", "htp.lstm", "aten.lstm.input", "LSTM", "Lstm", cfg,
                    [{"role": "act", "shape": [4, 1, 16], "enc": enc},
                     {"role": "weight", "shape": [1, 32, 16], "enc": enc},
                     {"role": "weight", "shape": [1, 32, 8], "enc": enc},
                     {"role": "weight", "shape": [1, 64], "enc": enc}],
                    [{"shape": [4, 1, 1, 8], "enc": enc}], ["$0", [], ["$1", "$2", "$3"], True, 1, 0.0, False, False, False],
                    {"hidden_size": 8})
    # ONNX Sum of two inputs: ORT's QNN EP builds ElementWiseAdd (a simple op builder).
    for cfg, enc in BINARY_CONFIGS.items():
        if cfg in ("int32", "int64"):
            continue  # ONNX Sum takes float types only
        yield _case("sum2", "htp.add", "aten.add.Tensor", "Sum", "ElementWiseAdd", cfg,
                    [{"role": "act", "shape": ACT4, "enc": enc}, {"role": "act", "shape": ACT4, "enc": enc}],
                    [{"shape": ACT4, "enc": enc}], ["$0", "$1"])
    for cfg, (ea, ew, eo) in NORM_CONFIGS.items():
        bias = ew if "float" in ew else {"q": "int32", "scale": 1e-5, "zp": 0}
        yield _case("group_norm", "htp.group_norm", "aten.group_norm.default", "GroupNormalization", "GroupNorm", cfg,
                    [{"role": "act", "shape": [1, 8, 8, 8], "enc": ea}, {"role": "weight", "shape": [8], "enc": ew},
                     {"role": "weight", "shape": [8], "enc": bias}],
                    [{"shape": [1, 8, 8, 8], "enc": eo}], ["$0", 2, "$1", "$2"], {"num_groups": 2})
        yield _case("rms_norm", "htp.rms_norm", "aten.rms_norm.default", "RMSNormalization", "RmsNorm", cfg,
                    [{"role": "act", "shape": [1, 16, 32], "enc": ea}, {"role": "weight", "shape": [32], "enc": ew}],
                    [{"shape": [1, 16, 32], "enc": eo}], ["$0", [32], "$1"], {"axis": -1})


def all_cases():
    """Every case, in a stable order, with its id and SoC filled in."""
    out = []
    templates = list(_unary_cases()) + list(_binary_cases()) + list(_weighted_cases()) + list(_more_cases())
    for t in templates:
        for soc, soc_id, arch in SOCS:
            c = dict(t, soc=soc, soc_id=soc_id, arch=arch)
            c["id"] = f"{t['op']}/{t['config']}/{soc}"
            out.append(c)
    ids = [c["id"] for c in out]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return out
