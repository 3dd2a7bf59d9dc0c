"""Writes the JSON graphs of the lowering-path and required-vs-recommended tests (issue 21):

  conv_16a16w.json     a Conv with 16-bit activations and symmetric int16 weights: refused on V68
                       (oracle conv2d/16a16w/SM8350); ort-qnn fails the session, executorch falls back
  sigmoid8_calibrated.json  an 8-bit Sigmoid whose output has a calibrated scale (recommended 1/256)
  concat_own_encoding.json  a Concat whose output has its own encoding (recommended: shared)
  sigmoid16_wrong.json a 16-bit Sigmoid with a wrong output scale: ort-qnn rewrites it, executorch does not
  matmul_16x16.json    16-bit x 16-bit MatMuls, input 1 computed (ort-qnn converts it to 8 bits) and a
                       parameter (ORT lowers that one to FullyConnected, unconverted: refused on V68)
  where_float_const.json  an 8-bit Where beside a float32 constant: V68 accepts it at op validation
                       and fails at graph finalize (oracle where/8a_fconst/SM8350), whatever the path
  embedding_cast.json  an embedding Gather followed by a Cast to float32 with its own, narrower
                       encoding (as transformers' RMSNorm and ORT's quantizer write it): ORT drops the
                       Cast and merges the encodings, so the Gather's scales differ and it runs as
                       float32, which V68 cannot finalize (model suite qwen2/<config>/SM8350)
  embedding_cast_dead_user.json  the same, with the embedding's output also read by a dead
                       _assert_tensor_metadata check (as torch.export leaves one and our Quantizer
                       converts it; the ONNX exporter drops it): ORT still merges, so V68 still
                       fails at finalize (quantizer suite llama/<config>/SM8350)
  embedding_requant.json  the exported form of the same: no Cast, the Gather's user reads it in the
                       Cast's encoding (Q1 -> DQ1 -> Q2 -> DQ2): ORT merges the pairs all the same
                       (tests/conformance/quantizer/bisect_gather.json, requant/SM8350)
  embedding_requant_fanout.json  as embedding_requant, with a second user reading the table's
                       encoding (DQ1 has two consumers): ORT merges nothing, the Gather stays
                       quantized (bisect_gather.json, requant_fanout/SM8350 runs)

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


def matmul_16x16():
    a, b, w = act(16, 0.0002, 32768), act(16, 0.0003, 32000), act(16, 0.0001, 30000)
    y = act(16, 0.001, 32768)
    return graph("matmul_16x16", [
        inp("x", [1, 8, 16], a),
        inp("z", [1, 16, 4], b),
        {"name": "weight", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [16, 4], "qspec": w}]},
        {"name": "mm_act", "kind": "call", "target": "aten.matmul.default",
         "args": [{"ref": "x", "qspec": a}, {"ref": "z", "qspec": b}],
         "outputs": [{"dtype": "float32", "shape": [1, 8, 4], "qspec": y}]},
        {"name": "mm_weight", "kind": "call", "target": "aten.matmul.default",
         "args": [{"ref": "x", "qspec": a}, {"ref": "weight", "qspec": w}],
         "outputs": [{"dtype": "float32", "shape": [1, 8, 4], "qspec": y}]},
        {"name": "output", "kind": "output", "args": [[{"ref": "mm_act"}, {"ref": "mm_weight"}]]},
    ])


def where_float_const():
    a = act(8, 0.02, 128)
    cond = {"name": "cond", "kind": "input", "outputs": [{"dtype": "bool", "shape": [1, 8]}]}
    return graph("where_float_const", [
        inp("x", [1, 8], a),
        cond,
        {"name": "fill", "kind": "constant", "outputs": [{"dtype": "float32", "shape": [1, 8]}]},
        {"name": "where", "kind": "call", "target": "aten.where.self",
         "args": [{"ref": "cond"}, {"ref": "x", "qspec": a}, {"ref": "fill"}],
         "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": a}]},
        {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "where", "qspec": a}],
         "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": a}]},
        out("y", "relu"),
    ])


def embedding_cast():
    table = act(8, 0.0006, 136)
    narrow = act(8, 0.000587, 141)  # the Cast's range, calibrated on the gathered rows only
    idx = {"name": "ids", "kind": "input", "outputs": [{"dtype": "int64", "shape": [1, 16]}]}
    return graph("embedding_cast", [
        idx,
        {"name": "table", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [128, 64], "qspec": table}]},
        {"name": "embed", "kind": "call", "target": "aten.embedding.default",
         "args": [{"ref": "table", "qspec": table}, {"ref": "ids"}],
         "outputs": [{"dtype": "float32", "shape": [1, 16, 64], "qspec": table}]},
        {"name": "to_float", "kind": "call", "target": "aten.to.dtype", "args": [{"ref": "embed", "qspec": table}, "torch.float32"],
         "outputs": [{"dtype": "float32", "shape": [1, 16, 64], "qspec": narrow}]},
        {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "to_float", "qspec": narrow}],
         "outputs": [{"dtype": "float32", "shape": [1, 16, 64], "qspec": narrow}]},
        out("y", "relu"),
    ])


def embedding_cast_dead_user():
    g = embedding_cast()
    g["name"] = "embedding_cast_dead_user"
    check = {"name": "check", "kind": "call", "target": "aten._assert_tensor_metadata.default",
             "args": [{"ref": "embed", "qspec": act(8, 0.0006, 136)}], "kwargs": {"dtype": "torch.float32"}}
    g["nodes"].insert(3, check)  # after the embedding, before the Cast
    return g


def embedding_requant(fanout=False):
    table = act(8, 0.0006, 136)
    narrow = act(8, 0.000587, 141)
    sig = act(8, 1 / 256, 0)
    idx = {"name": "ids", "kind": "input", "outputs": [{"dtype": "int64", "shape": [1, 16]}]}
    nodes = [
        idx,
        {"name": "table", "kind": "parameter", "outputs": [{"dtype": "float32", "shape": [128, 64], "qspec": table}]},
        {"name": "embed", "kind": "call", "target": "aten.embedding.default",
         "args": [{"ref": "table", "qspec": table}, {"ref": "ids"}],
         "outputs": [{"dtype": "float32", "shape": [1, 16, 64], "qspec": table}]},
        {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "embed", "qspec": narrow}],
         "outputs": [{"dtype": "float32", "shape": [1, 16, 64], "qspec": narrow}]},
    ]
    outs = [{"ref": "relu"}]
    if fanout:
        nodes.append({"name": "sigmoid", "kind": "call", "target": "aten.sigmoid.default",
                      "args": [{"ref": "embed", "qspec": table}],
                      "outputs": [{"dtype": "float32", "shape": [1, 16, 64], "qspec": sig}]})
        outs.append({"ref": "sigmoid"})
    nodes.append({"name": "output", "kind": "output", "args": [outs]})
    return graph("embedding_requant_fanout" if fanout else "embedding_requant", nodes)


def main():
    graphs = {
        "conv_16a16w.json": conv_16a16w(),
        "sigmoid8_calibrated.json": sigmoid("sigmoid8_calibrated", 8, 0.0039, 3),
        "sigmoid16_wrong.json": sigmoid("sigmoid16_wrong", 16, 0.00002, 100),
        "concat_own_encoding.json": concat_own_encoding(),
        "matmul_16x16.json": matmul_16x16(),
        "where_float_const.json": where_float_const(),
        "embedding_cast.json": embedding_cast(),
        "embedding_cast_dead_user.json": embedding_cast_dead_user(),
        "embedding_requant.json": embedding_requant(),
        "embedding_requant_fanout.json": embedding_requant(fanout=True),
    }
    for name, g in graphs.items():
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(g, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
