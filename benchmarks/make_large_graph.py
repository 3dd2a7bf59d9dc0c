#!/usr/bin/env python3
"""Writes a large synthetic graph (graph format v1) for timing qnn-validate end to end.

Blocks of conv2d -> relu -> view (shared encoding) -> add, annotated 8a8w with calibrated
scales: about 2 KB of JSON per block, so 20000 blocks is a ~40 MB file of 100k nodes.

    benchmarks/make_large_graph.py --blocks 20000 -o /tmp/large.json
"""
import argparse
import json


def act(scale=0.0123, zp=3):
    return {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine",
            "scale": scale, "zero_point": zp}


def weight(channels):
    return {"dtype": "int8", "quant_min": -127, "quant_max": 127, "qscheme": "per_channel_symmetric",
            "ch_axis": 0, "scale": [0.01 * (i + 1) for i in range(channels)], "zero_point": [0] * channels}


def bias(channels):
    return {"dtype": "int32", "qscheme": "per_channel_symmetric", "ch_axis": 0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=20000)
    ap.add_argument("--channels", type=int, default=8)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    c = a.channels
    shape = [1, c, 28, 28]
    nodes = [{"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": shape, "qspec": act()}]}]
    prev = "x"
    for i in range(a.blocks):
        w, b, conv, relu, view, add = (f"{p}{i}" for p in ("w", "b", "conv", "relu", "view", "add"))
        nodes.append({"name": w, "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [c, c, 3, 3]}]})
        nodes.append({"name": b, "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [c]}]})
        nodes.append({"name": conv, "kind": "call", "target": "aten.conv2d.default", "module": f"layer{i}.conv",
                      "args": [{"ref": prev, "qspec": act()}, {"ref": w, "qspec": weight(c)},
                               {"ref": b, "qspec": bias(c)}, [1, 1], [1, 1]],
                      "outputs": [{"dtype": "float32", "shape": shape, "qspec": act()}]})
        nodes.append({"name": relu, "kind": "call", "target": "aten.relu.default",
                      "args": [{"ref": conv, "qspec": {"shared_with": {"node": conv}}}],
                      "outputs": [{"dtype": "float32", "shape": shape, "qspec": act()}]})
        nodes.append({"name": view, "kind": "call", "target": "aten.view.default",
                      "args": [{"ref": relu, "qspec": {"shared_with": {"node": relu}}}, shape],
                      "outputs": [{"dtype": "float32", "shape": shape,
                                   "qspec": {"shared_with": {"edge": [relu, view]}}}]})
        nodes.append({"name": add, "kind": "call", "target": "aten.add.Tensor",
                      "args": [{"ref": view, "qspec": act()}, {"ref": prev, "qspec": act()}],
                      "outputs": [{"dtype": "float32", "shape": shape, "qspec": act()}]})
        prev = add
    nodes.append({"name": "output", "kind": "output", "args": [[{"ref": prev}]]})
    with open(a.output, "w") as f:
        json.dump({"format": "qnnrules-graph", "version": 1, "name": f"synthetic_{a.blocks}", "nodes": nodes}, f)


if __name__ == "__main__":
    main()
