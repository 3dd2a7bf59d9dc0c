"""Writes tests/data/repair/float_mixed.onnx, the float model of the --suggest-overrides golden
test (OrtTensorOverridesTest): each weighted op ONNX Runtime stores its weight differently —
Conv (channel axis 0), Gemm with transB=1 (axis 0) and without (axis 1), MatMul with an
initializer (axis 1) — a ConvTranspose (axis 1), one weight shared by two MatMuls, and a MatMul
of two activations (its repair changes an activation: no initializer override carries it).

  .venv/bin/python tests/data/repair/make_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def w(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


nodes = [
    helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"], name="relu"),
    helper.make_node("ConvTranspose", ["r", "deconv.weight"], ["d"], name="deconv"),
    helper.make_node("Flatten", ["d"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc1.weight", "fc1.bias"], ["g1"], name="fc1", transB=1),
    helper.make_node("Gemm", ["g1", "fc2.weight"], ["g2"], name="fc2"),
    helper.make_node("MatMul", ["g2", "proj.weight"], ["p"], name="proj"),
    helper.make_node("MatMul", ["p", "shared.weight"], ["s1"], name="shared1"),
    helper.make_node("MatMul", ["s1", "shared.weight"], ["s2"], name="shared2"),
    helper.make_node("Reshape", ["s2", "shape"], ["q"], name="reshape"),
    helper.make_node("Transpose", ["q"], ["qt"], name="transpose", perm=[1, 0]),
    helper.make_node("MatMul", ["q", "qt"], ["y"], name="scores"),
]
inits = [w("conv.weight", 4, 3, 3, 3), w("conv.bias", 4), w("deconv.weight", 4, 2, 1, 1),
         w("fc1.weight", 16, 128), w("fc1.bias", 16), w("fc2.weight", 16, 16), w("proj.weight", 16, 16),
         w("shared.weight", 16, 16), numpy_helper.from_array(np.array([4, 4], np.int64), "shape")]
graph = helper.make_graph(nodes, "float_mixed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 4])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="qnnrules-tests")
model = onnx.shape_inference.infer_shapes(model)
onnx.checker.check_model(model)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "float_mixed.onnx"))
