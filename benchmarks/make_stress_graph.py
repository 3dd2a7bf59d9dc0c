#!/usr/bin/env python3
"""Writes the stress shapes of the scaling benchmarks (graph format v1), N nodes each.

    benchmarks/make_stress_graph.py --shape alternating --nodes 100000 -o build/bench/alt.json

Shapes:
  chain        a chain of valid 8-bit relu/add nodes (the clean counterpart of `alternating`)
  invalid      a chain where every node fails validation (16-bit relu on a 32-bit range)
  alternating  a chain alternating valid and invalid nodes: every other node falls back to CPU,
               so the partitioner sees N/2 partitions
  fan-in       N inputs concatenated by one aten.cat and N graph outputs
  fan-out      one input used by N relu nodes, all of them graph outputs
"""
import argparse
import json


def act(dtype="uint8", lo=0, hi=255, scale=0.0123, zp=3):
    return {"dtype": dtype, "quant_min": lo, "quant_max": hi, "qscheme": "per_tensor_affine",
            "scale": scale, "zero_point": zp}


# A 32-bit activation range is outside every HTP relu variant: a validation error.
BAD = act("int32", -2147483648, 2147483647, 1e-6, 0)
SHAPE = [1, 64]


def port(q=None):
    p = {"dtype": "float32", "shape": SHAPE}
    if q:
        p["qspec"] = q
    return p


def chain(n, invalid_every):
    nodes = [{"name": "x", "kind": "input", "outputs": [port(act())]}]
    prev = "x"
    for i in range(n):
        bad = invalid_every and i % invalid_every == invalid_every - 1
        q = BAD if bad else act()
        name = f"relu{i}"
        nodes.append({"name": name, "kind": "call", "target": "aten.relu.default",
                      "args": [{"ref": prev, "qspec": q}], "outputs": [port(q)]})
        prev = name
    nodes.append({"name": "output", "kind": "output", "args": [[{"ref": prev}]]})
    return nodes


def fan_in(n):
    nodes = [{"name": f"x{i}", "kind": "input", "outputs": [port(act())]} for i in range(n)]
    nodes.append({"name": "cat", "kind": "call", "target": "aten.cat.default",
                  "args": [[{"ref": f"x{i}", "qspec": act()} for i in range(n)], 0],
                  "outputs": [{"dtype": "float32", "shape": [n, 64], "qspec": act()}]})
    nodes.append({"name": "output", "kind": "output", "args": [[{"ref": "cat"}] + [{"ref": f"x{i}"} for i in range(n)]]})
    return nodes


def fan_out(n):
    nodes = [{"name": "x", "kind": "input", "outputs": [port(act())]}]
    for i in range(n):
        nodes.append({"name": f"relu{i}", "kind": "call", "target": "aten.relu.default",
                      "args": [{"ref": "x", "qspec": act()}], "outputs": [port(act())]})
    nodes.append({"name": "output", "kind": "output", "args": [[{"ref": f"relu{i}"} for i in range(n)]]})
    return nodes


def build(shape, n):
    if shape == "chain":
        return chain(n, 0)
    if shape == "invalid":
        return chain(n, 1)
    if shape == "alternating":
        return chain(n, 2)
    if shape == "fan-in":
        return fan_in(n)
    if shape == "fan-out":
        return fan_out(n)
    raise ValueError(shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", required=True, choices=["chain", "invalid", "alternating", "fan-in", "fan-out"])
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    with open(a.output, "w") as f:
        json.dump({"format": "qnnrules-graph", "version": 1, "name": f"{a.shape}_{a.nodes}",
                   "nodes": build(a.shape, a.nodes)}, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
