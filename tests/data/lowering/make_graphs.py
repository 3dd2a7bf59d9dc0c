"""Writes the JSON graphs of the lowering-path and required-vs-recommended tests (issue 21):

  conv_16a16w.json     a Conv with 16-bit activations and symmetric int16 weights: refused on V68
                       (oracle conv2d/16a16w/SM8350); ort-qnn fails the session, executorch falls back
  sigmoid8_calibrated.json  an 8-bit Sigmoid whose output has a calibrated scale (recommended 1/256)
  concat_own_encoding.json  a Concat whose output has its own encoding (recommended: shared)
  sigmoid16_wrong.json a 16-bit Sigmoid with a wrong output scale: ort-qnn rewrites it, executorch does not

    /usr/bin/python3 tests/data/lowering/make_graphs.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def act(bits, scale, zp):
    hi = (1 << bits) - 1
    return {"dtype": "uint8" if bits == 8 else "uint16", "quant_min": 0, "quant_max": hi,
            "qscheme": "per_tensor_affine", "scale": scale, "zero_point": zp}


def graph(name, nodes):
    return {"format": "qnnrules-graph", "version": 1, "name": name, "nodes": nodes}


def inp(name, shape, spec):
    return {"name": name, "kind": "input", "outputs": [{"dtype": "float32", "shape": shape, "qspec": spec}]}


def out(name, ref):
    return {"name": name, "kind": "output", "args": [[{"ref": ref}]]}


def conv_16a16w():
    a = act(16, 0.0005, 32768)
    w = {"dtype": "int16", "quant_min": -32767, "quant_max": 32767, "qscheme": "per_tensor_symmetric",
         "scale": 0.0001, "zero_point": 0}
    b = {"dtype": "int32", "qscheme": "per_tensor_symmetric", "zero_point": 0}
    y = act(16, 0.001, 32768)
    return graph("conv_16a16w", [
        inp("x", [1, 4, 8, 8], a),
        {"name": "weight", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [8, 4, 3, 3], "qspec": w}]},
        {"name": "bias", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [8], "qspec": b}]},
        {"name": "conv", "kind": "call", "target": "aten.conv2d.default",
         "args": [{"ref": "x", "qspec": a}, {"ref": "weight", "qspec": w}, {"ref": "bias", "qspec": b}],
         "outputs": [{"dtype": "float32", "shape": [1, 8, 6, 6], "qspec": y}]},
        {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "conv", "qspec": y}],
         "outputs": [{"dtype": "float32", "shape": [1, 8, 6, 6], "qspec": y}]},
        out("y", "relu"),
    ])


def sigmoid(name, bits, out_scale, out_zp):
    a = act(bits, 0.05 if bits == 8 else 0.0002, 128 if bits == 8 else 32768)
    y = act(bits, out_scale, out_zp)
    return graph(name, [
        inp("x", [1, 16], a),
        {"name": "sigmoid", "kind": "call", "target": "aten.sigmoid.default", "args": [{"ref": "x", "qspec": a}],
         "outputs": [{"dtype": "float32", "shape": [1, 16], "qspec": y}]},
        out("y", "sigmoid"),
    ])


def concat_own_encoding():
    a, b = act(8, 0.02, 128), act(8, 0.03, 120)
    y = act(8, 0.04, 125)  # its own encoding, as ONNX Runtime's quantizer writes it
    return graph("concat_own_encoding", [
        inp("a", [1, 4], a),
        inp("b", [1, 4], b),
        {"name": "cat", "kind": "call", "target": "aten.cat.default",
         "args": [[{"ref": "a", "qspec": a}, {"ref": "b", "qspec": b}], 1],
         "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": y}]},
        out("y", "cat"),
    ])


def main():
    graphs = {
        "conv_16a16w.json": conv_16a16w(),
        "sigmoid8_calibrated.json": sigmoid("sigmoid8_calibrated", 8, 0.0039, 3),
        "sigmoid16_wrong.json": sigmoid("sigmoid16_wrong", 16, 0.00002, 100),
        "concat_own_encoding.json": concat_own_encoding(),
    }
    for name, g in graphs.items():
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(g, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
