#!/usr/bin/env python3
"""Writes the example graphs of examples/ (graph format v1, docs/graph-format.md).

Each graph is built node by node here so that what it exercises is readable in one place:

  tiny_cnn_8a8w.json  a small CNN quantized 8a8w: valid on every HTP SoC.
  lpbq_linear.json    a 16a4w block-wise (LPBQ) linear: valid on V69+, an arch-gate error on V68.
  matmul_16a16w.json  a 16-bit x 16-bit MatMul: valid on V73+, an arch-gate error before.
  violations.json     one node per kind of violation (see VIOLATIONS below).

Run it from anywhere: python3 examples/make_examples.py. The files are committed; the schema
check (tests/schema/check_schemas.py) and the CLI tests read them.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

U8 = {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine"}
U16 = {"dtype": "int32", "quant_min": 0, "quant_max": 65535, "qscheme": "per_tensor_affine"}
S16_SYM = {"dtype": "int16", "quant_min": -32767, "quant_max": 32767, "qscheme": "per_tensor_symmetric"}
BIAS32 = {"dtype": "int32", "qscheme": "per_tensor_symmetric", "zero_point": 0}


def act(base, scale, zero_point):
    return dict(base, scale=scale, zero_point=zero_point)


def w8_per_channel(channels, axis=0):
    return {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric",
            "ch_axis": axis, "scale": [0.01] * channels, "zero_point": [0] * channels}


class Graph:
    def __init__(self, name, description):
        self.doc = {"format": "qnnrules-graph", "version": 1, "name": name,
                    "meta": {"description": description}, "nodes": []}
        self.out_qspec = {}

    def _node(self, node):
        self.doc["nodes"].append(node)
        return node["name"]

    def input(self, name, shape, qspec):
        self.out_qspec[name] = qspec
        return self._node({"name": name, "kind": "input",
                           "outputs": [{"dtype": "float32", "shape": shape, "qspec": qspec}]})

    def param(self, name, shape, qspec=None):
        out = {"dtype": "float32", "shape": shape}
        if qspec is not None:
            out["qspec"] = qspec
        self.out_qspec[name] = qspec
        return self._node({"name": name, "kind": "parameter", "outputs": [out]})

    def ref(self, producer, qspec="same"):
        """A tensor argument; by default the edge carries the producer's output encoding."""
        r = {"ref": producer}
        q = self.out_qspec.get(producer) if qspec == "same" else qspec
        if q is not None:
            r["qspec"] = q
        return r

    def call(self, name, target, args, shape, qspec, module=None):
        self.out_qspec[name] = qspec
        node = {"name": name, "kind": "call", "target": target, "args": args,
                "outputs": [{"dtype": "float32", "shape": shape, "qspec": qspec}]}
        if module:
            node["module"] = module
        return self._node(node)

    def output(self, *producers):
        self._node({"name": "output", "kind": "output", "args": [[{"ref": p} for p in producers]]})

    def write(self, path):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)


def tiny_cnn():
    g = Graph("tiny_cnn_8a8w", "A small CNN quantized 8a8w (per-channel weights): valid on every HTP SoC.")
    a_in = act(U8, 0.02, 128)
    g.input("x", [1, 3, 32, 32], a_in)
    g.param("conv1_weight", [16, 3, 3, 3], w8_per_channel(16))
    g.param("conv1_bias", [16], BIAS32)
    g.call("conv1", "aten.conv2d.default",
           [g.ref("x"), g.ref("conv1_weight"), g.ref("conv1_bias"), [1, 1], [1, 1]],
           [1, 16, 32, 32], act(U8, 0.05, 120), module="features.0")
    g.call("relu1", "aten.relu.default", [g.ref("conv1")], [1, 16, 32, 32], act(U8, 0.025, 0),
           module="features.1")
    g.call("pool1", "aten.max_pool2d.default", [g.ref("relu1"), [2, 2], [2, 2]], [1, 16, 16, 16],
           {"shared_with": {"node": "relu1"}}, module="features.2")
    g.param("conv2_weight", [16, 16, 3, 3], w8_per_channel(16))
    g.param("conv2_bias", [16], BIAS32)
    g.call("conv2", "aten.conv2d.default",
           [g.ref("pool1", act(U8, 0.025, 0)), g.ref("conv2_weight"), g.ref("conv2_bias"), [1, 1], [1, 1]],
           [1, 16, 16, 16], act(U8, 0.04, 130), module="features.3")
    g.call("add1", "aten.add.Tensor", [g.ref("conv2"), g.ref("pool1", act(U8, 0.025, 0))],
           [1, 16, 16, 16], act(U8, 0.06, 100), module="features.4")
    g.call("relu2", "aten.relu.default", [g.ref("add1")], [1, 16, 16, 16], act(U8, 0.03, 0),
           module="features.5")
    g.call("gap", "aten.adaptive_avg_pool2d.default", [g.ref("relu2"), [1, 1]], [1, 16, 1, 1],
           act(U8, 0.03, 0), module="avgpool")
    g.call("flat", "aten.flatten.using_ints", [g.ref("gap"), 1], [1, 16], {"shared_with": {"node": "gap"}})
    g.param("fc_weight", [10, 16], w8_per_channel(10))
    g.param("fc_bias", [10], BIAS32)
    g.call("fc", "aten.linear.default", [g.ref("flat", act(U8, 0.03, 0)), g.ref("fc_weight"), g.ref("fc_bias")],
           [1, 10], act(U8, 0.1, 127), module="classifier")
    g.output("fc")
    return g


def lpbq_linear():
    g = Graph("lpbq_linear", "A 16a4w block-wise (LPBQ) linear layer: needs HTP V69 or newer.")
    a_in = act(U16, 0.0005, 32768)
    g.input("x", [1, 256], a_in)
    g.param("proj_weight", [128, 256], {
        "dtype": "int8", "quant_min": -7, "quant_max": 7, "qscheme": "per_channel_symmetric",
        "ch_axis": 0, "block_size": [1, 64]})
    g.param("proj_bias", [128], BIAS32)
    g.call("proj", "aten.linear.default", [g.ref("x"), g.ref("proj_weight"), g.ref("proj_bias")],
           [1, 128], act(U16, 0.0007, 30000), module="mlp.proj")
    g.output("proj")
    return g


def matmul_16a16w():
    g = Graph("matmul_16a16w", "A MatMul with 16-bit activations and a 16-bit second input: needs HTP V73 or newer.")
    g.input("q", [1, 8, 64, 32], act(U16, 0.0004, 32768))
    g.input("k_t", [1, 8, 32, 64], dict(S16_SYM, scale=0.0003, zero_point=0))
    g.call("scores", "aten.matmul.default", [g.ref("q"), g.ref("k_t")], [1, 8, 64, 64],
           act(U16, 0.001, 32768), module="attn")
    g.output("scores")
    return g


# One node per kind of violation, each commented with the diagnostic it must produce on SM8650.
def violations():
    g = Graph("violations", "One node per kind of violation; every one is reported, with its fix.")
    g.input("x", [1, 8, 16, 16], act(U8, 0.02, 128))
    g.input("x16", [1, 8, 16, 16], act(U16, 0.0004, 32768))
    # [symmetric]: an affine (zero point 3) 16-bit weight on conv2d (16a16w). HTP accepts
    # asymmetric 8-bit weights but not 16-bit ones: conformance case conv2d/16a16w_asym/SM8650.
    g.param("w_asym", [8, 8, 3, 3], {"dtype": "int16", "quant_min": -32767, "quant_max": 32767,
                                     "qscheme": "per_tensor_affine", "scale": 0.0001, "zero_point": 3})
    g.call("conv_asym", "aten.conv2d.default", [g.ref("x16"), g.ref("w_asym")], [1, 8, 16, 16],
           act(U16, 0.0005, 32768), module="block.conv_asym")
    # [axis]: conv2d weight quantized per channel along axis 1 instead of 0.
    g.param("w_axis1", [8, 8, 3, 3], {"dtype": "int8", "quant_min": -127, "quant_max": 127,
                                      "qscheme": "per_channel_symmetric", "ch_axis": 1,
                                      "scale": [0.01] * 8, "zero_point": [0] * 8})
    g.call("conv_axis", "aten.conv2d.default", [g.ref("x"), g.ref("w_axis1")], [1, 8, 16, 16],
           act(U8, 0.05, 128), module="block.conv_axis")
    # [fixed-scale] and [fixed-offset]: sigmoid's 8-bit output must be scale 1/256, offset 0.
    g.call("gate", "aten.sigmoid.default", [g.ref("conv_axis")], [1, 8, 16, 16], act(U8, 0.01, 10),
           module="block.gate")
    # [shared]: a reshape (math-invariant) whose output has its own encoding instead of its input's.
    g.call("flat", "aten.view.default", [g.ref("gate"), [1, 2048]], [1, 2048], act(U8, 0.5, 7))
    # [no-matching-variant]: 8-bit activations into a 16-bit-output linear (mixed widths).
    g.param("fc_w", [4, 2048], w8_per_channel(4))
    g.call("fc_mixed", "aten.linear.default", [g.ref("flat"), g.ref("fc_w")], [1, 4], act(U16, 0.001, 32768),
           module="head.fc")
    # [no-rule]: an op no rule covers would silently fall back to CPU.
    g.call("mystery", "aten.my_unknown_op.default", [g.ref("fc_mixed")], [1, 4], act(U16, 0.001, 32768))
    g.output("mystery", "conv_asym")
    return g


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    for build in (tiny_cnn, lpbq_linear, matmul_16a16w, violations):
        g = build()
        path = os.path.join(out, g.doc["name"] + ".json")
        g.write(path)
        print("wrote", os.path.relpath(path))


if __name__ == "__main__":
    main()
