"""The forms a random graph is drawn from: one function per ONNX op or exporter idiom.

Each form is emit(builder, x) -> [float outputs] or None when it does not apply to x (wrong rank,
too large). It draws its attributes and second operands from the builder's generators and states
every output's shape itself (generate.py checks them against ONNX's strict shape inference, so a
wrong shape here is a generator bug that is counted, not a graph that is run). The forms are
what ONNX exporters write for the ops the HTP backend is most often asked to run, including the
awkward ones: negative axes, broadcasting against scalars and rank-mismatched constants, Gelu in
its Erf form, RMSNorm and LayerNorm decomposed, shape arithmetic (Shape -> Gather -> Unsqueeze ->
Concat -> Reshape, Shape -> Slice, Range, ConstantOfShape) that ORT must fold to know shapes.
"""
from .ops_compute import (binary, clip, conv, einsum, gelu_erf, gemm, global_pool, layernorm, layernorm_decomposed,
                          matmul, pool, pow_, reduce, resize, rmsnorm, softmax, sqrt, unary, where)
from .ops_layout import (cast, concat, constant_of_shape, expand, flatten_slice, gather, pad, range_, reshape,
                         reshape_dynamic, slice_, split, squeeze, transpose, unsqueeze)

# form name -> (weight, emit): how often each is drawn.
FORMS = {
    "Conv": (8, conv), "MatMul": (8, matmul), "Gemm": (4, gemm),
    "Add": (5, binary("Add")), "Sub": (3, binary("Sub")), "Mul": (5, binary("Mul")), "Div": (3, binary("Div")),
    "Relu": (3, unary("Relu")), "Sigmoid": (2, unary("Sigmoid")), "Tanh": (2, unary("Tanh")),
    "HardSwish": (2, unary("HardSwish")), "GeluErf": (3, gelu_erf), "Clip": (2, clip),
    "Softmax": (4, softmax), "LayerNormalization": (4, layernorm), "LayerNormDecomposed": (1, layernorm_decomposed),
    "RMSNorm": (1, rmsnorm), "ReduceMean": (3, reduce("ReduceMean")), "ReduceMax": (2, reduce("ReduceMax")),
    "Reshape": (5, reshape), "ReshapeDynamic": (4, reshape_dynamic), "FlattenSlice": (2, flatten_slice),
    "Transpose": (5, transpose), "Concat": (4, concat), "Split": (3, split), "Slice": (4, slice_),
    "Gather": (3, gather), "Unsqueeze": (3, unsqueeze), "Squeeze": (2, squeeze), "Expand": (3, expand),
    "Where": (3, where), "Pow": (2, pow_), "Sqrt": (2, sqrt), "MaxPool": (3, pool("MaxPool")),
    "AveragePool": (2, pool("AveragePool")), "GlobalAveragePool": (1, global_pool), "Resize": (3, resize),
    "Pad": (3, pad), "Einsum": (3, einsum), "Cast": (2, cast), "Range": (1, range_),
    "ConstantOfShape": (1, constant_of_shape),
}
