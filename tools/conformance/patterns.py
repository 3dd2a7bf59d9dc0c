"""Graph patterns (issue 32): small multi-node ONNX graphs that isolate one mechanism the model zoo
showed, each with its neighbours in the same family, so a rule is bounded by cases that differ in
one thing only (the form that fuses, the form that does not, the end that breaks the fusion).

  .venv/bin/python -m conformance.patterns [--only NAME,...]
(with tools/ on PYTHONPATH) writes tests/conformance/patterns/onnx/<pattern>.<config>.onnx, quantized
with ONNX Runtime's QNN workflow (models.build.quantize); then
  .venv/bin/python -m conformance.models.run --onnx tests/conformance/patterns/onnx \\
      --out tests/conformance/patterns/verdicts.json --socs SM8350,SM8650,SM8850
records the real backend's verdicts, and models/compare.py (--data/--onnx/--expected) compares
qnn-validate with them in the fast CTest conformance_patterns. Seeded: the same versions write the
same bytes.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "conformance", "patterns", "onnx")
CONFIGS = ("8a8w", "16a16w")


def _graph(name, nodes, inputs, inits):
    import onnx
    from onnx import TensorProto, helper
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    g.output[0].type.tensor_type.ClearField("shape")
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="qnnrules-patterns")
    m.ir_version = 8
    m = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    onnx.checker.check_model(m, full_check=True)
    return m


def _ints(name, values):
    from onnx import TensorProto, helper
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def _scalar(name, value):
    from onnx import TensorProto, helper
    return helper.make_tensor(name, TensorProto.FLOAT, [], [value])


def reshape_transpose_reshape(in_shape, mid, perm, out_shape, tail="Sigmoid"):
    """x -> Mul -> Reshape(mid) -> Transpose(perm) -> Reshape(out_shape) -> tail: window attention's
    (de)partition as exporters write it, between two compute ops so ORT's quantizer quantizes the
    chain (it leaves data movement between float tensors float). ORT's QNN EP lowers the chain at
    rank 5 when its rank-6 middle tensors keep a unit dimension in place (Rank6ToRank5Fusion)."""
    from onnx import helper
    nodes = [helper.make_node("Mul", ["x0", "k"], ["x"], name="head"),
             helper.make_node("Reshape", ["x", "s1"], ["a"], name="reshape_in"),
             helper.make_node("Transpose", ["a"], ["b"], perm=perm, name="transpose"),
             helper.make_node("Reshape", ["b", "s2"], ["c" if tail else "y"], name="reshape_out")]
    if tail:
        nodes.append(helper.make_node(tail, ["c"], ["y"], name="tail"))
    return nodes, [("x0", in_shape)], [_scalar("k", 0.5), _ints("s1", mid), _ints("s2", out_shape)]


def _const_node(name, array):
    from onnx import helper, numpy_helper
    return helper.make_node("Constant", [], [name], name=name + "_node", value=numpy_helper.from_array(array, name))


def static_subgraph(kind):
    """y = Add(x, f(constants)): a node whose inputs are all constants behind a DequantizeLinear.
    ORT's constant folding leaves a DequantizeLinear alone unless the whole DQ -> X -> Q unit folds
    (X with one input), so such a node reaches QNN and runs when the graph runs (GPT-2's position
    embedding Gather, T5's relative-position buckets)."""
    import numpy as np
    from onnx import helper, numpy_helper
    rng = np.random.default_rng(0)
    x_shape = [8, 16]
    inits, nodes = [], []
    if kind == "gather":  # an embedding table initializer (a weight), constant indices
        inits = [numpy_helper.from_array(rng.standard_normal((64, 16)).astype(np.float32), "table"),
                 numpy_helper.from_array(np.arange(8, dtype=np.int64), "idx")]
        nodes = [helper.make_node("Gather", ["table", "idx"], ["c"], name="static")]
    elif kind == "add":  # two Constant nodes (quantized like activations)
        nodes = [_const_node("k1", rng.standard_normal(x_shape).astype(np.float32)),
                 _const_node("k2", rng.standard_normal(x_shape).astype(np.float32)),
                 helper.make_node("Add", ["k1", "k2"], ["c"], name="static")]
    elif kind == "transpose":  # DQ -> Transpose -> Q: the unit ORT folds
        nodes = [_const_node("k1", rng.standard_normal(x_shape[::-1]).astype(np.float32)),
                 helper.make_node("Transpose", ["k1"], ["c"], perm=[1, 0], name="static")]
    elif kind == "reshape":  # DQ -> Reshape(shape) -> Q: two inputs, not folded
        inits = [numpy_helper.from_array(np.array(x_shape, np.int64), "shape")]
        nodes = [_const_node("k1", rng.standard_normal([128]).astype(np.float32)),
                 helper.make_node("Reshape", ["k1", "shape"], ["c"], name="static")]
    elif kind in ("log", "log_zero"):  # T5's buckets: Cast(int) / const -> Log -> / const
        ints = np.arange(1, 129, dtype=np.int64).reshape(x_shape)
        if kind == "log_zero":
            ints[0, 0] = 0  # Log(0) = -inf: calibration gives the tensor an infinite scale
        nodes = [_const_node("pos", ints),
                 helper.make_node("Cast", ["pos"], ["posf"], to=1, name="cast"),
                 _const_node("k1", np.array(8.0, np.float32)),
                 helper.make_node("Div", ["posf", "k1"], ["d"], name="div"),
                 helper.make_node("Log", ["d"], ["l"], name="log"),
                 _const_node("k2", np.array(2.77, np.float32)),
                 helper.make_node("Div", ["l", "k2"], ["c"], name="static")]
    nodes.append(helper.make_node("Add", ["x", "c"], ["y"], name="add_input"))
    return nodes, [("x", x_shape)], inits


# name: builder of (nodes, inputs, initializers). Each family names what it varies.
PATTERNS = {
    # Rank-6 Reshape -> Transpose -> Reshape (MaxViT, Swin): both ends at rank <= 5, so the EP
    # builds the chain at rank 5 and QNN runs it.
    "rank6_chain_fused": lambda: reshape_transpose_reshape([1, 32, 8, 8], [1, 32, 2, 4, 2, 4], [0, 2, 4, 3, 5, 1],
                                                           [1, 4, 16, 32]),
    # The same chain whose last Reshape writes the graph output: its output Q/DQ pair ends the graph
    # and the EP builds the last Reshape with a float output, which QNN refuses at rank 6 (the
    # fused group fails validation).
    "rank6_chain_graph_output": lambda: reshape_transpose_reshape([1, 32, 8, 8], [1, 32, 2, 4, 2, 4], [0, 2, 4, 3, 5, 1],
                                                                  [1, 4, 16, 32], tail=None),
    # The last Reshape goes to rank 6 (MaxViT's departition Reshape that is also the next grid
    # partition's): the chain's first two nodes pass op validation, the last is refused, and
    # graph finalize cannot create the first Reshape.
    "rank6_chain_out_rank6": lambda: reshape_transpose_reshape([1, 32, 8, 8], [1, 32, 2, 4, 2, 4], [0, 2, 4, 3, 5, 1],
                                                               [1, 32, 4, 2, 4, 2]),
    # The first Reshape reads rank 6: the whole chain is refused, node by node.
    "rank6_chain_in_rank6": lambda: reshape_transpose_reshape([1, 32, 2, 4, 2, 4], [1, 32, 4, 2, 4, 2],
                                                              [0, 2, 4, 3, 5, 1], [1, 16, 4, 32]),
    # No unit dimension kept in place (batch 2): no fusion, every rank-6 node is refused.
    "rank6_chain_batch2": lambda: reshape_transpose_reshape([2, 32, 8, 8], [2, 32, 2, 4, 2, 4], [0, 2, 4, 3, 5, 1],
                                                            [2, 4, 16, 32]),
    # The unit dimension moves (perm[0] != 0): no fusion.
    "rank6_chain_unit_moves": lambda: reshape_transpose_reshape([1, 32, 8, 8], [1, 32, 2, 4, 2, 4], [1, 0, 2, 4, 3, 5],
                                                                [32, 1, 8, 8]),
    # A node whose inputs are all constants behind a DequantizeLinear (static_subgraph).
    "static_gather": lambda: static_subgraph("gather"),
    "static_add": lambda: static_subgraph("add"),
    "static_transpose": lambda: static_subgraph("transpose"),
    "static_reshape": lambda: static_subgraph("reshape"),
    "static_log": lambda: static_subgraph("log"),
    "static_log_zero": lambda: static_subgraph("log_zero"),
}


def build(name, out_dir=OUT):
    import onnx
    from .models.build import quantize
    nodes, inputs, inits = PATTERNS[name]()
    model = _graph(name, nodes, inputs, inits)
    os.makedirs(out_dir, exist_ok=True)
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        fp = os.path.join(tmp, name + ".onnx")
        onnx.save(model, fp)
        for config in CONFIGS:
            quantize(fp, os.path.join(out_dir, f"{name}.{config}.onnx"), config, seed=0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="comma-separated pattern names")
    a = ap.parse_args(argv)
    names = a.only.split(",") if a.only else sorted(PATTERNS)
    for name in names:
        if name not in PATTERNS:
            sys.exit(f"unknown pattern {name!r}; known: {', '.join(sorted(PATTERNS))}")
        build(name)
        print(f"built {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
