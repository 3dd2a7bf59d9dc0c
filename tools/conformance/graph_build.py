"""Writes conformance cases as qnnrules graphs (graph format v1, docs/graph-format.md).

Standard library only: the comparison test runs it without the project's venv. The ATen node is
named by the case's key (the same name its ONNX node has), so a diagnostic maps back to its case.
"""

# storage type -> (PyTorch dtype, quant_min, quant_max) as graph-format.md spells them.
_QDTYPE = {"uint8": ("uint8", 0, 255), "int8": ("int8", -128, 127), "uint16": ("uint16", 0, 65535),
           "int16": ("int16", -32768, 32767), "int4": ("int8", -8, 7), "int2": ("int8", -2, 1),
           "int32": ("int32", None, None)}


def key(case):
    return case["id"].replace("/", ".")


def qspec(enc, rank):
    if "q" not in enc:
        return None
    dtype, lo, hi = _QDTYPE[enc["q"]]
    hi = hi if hi is not None else 0
    q = {"dtype": dtype}
    if lo is not None:
        q.update(quant_min=lo, quant_max=hi)
    # Symmetric (as a PyTorch observer would say) when the zero point is the container's middle:
    # 0 for signed types, 2^(bits-1) for unsigned ones (QNN offset -2^(n-1)).
    mid = 0 if not enc["q"].startswith("u") else (hi + 1) // 2
    if "axis" in enc:
        sym = all(z == mid for z in enc["zp"])
        q.update(qscheme="per_channel_symmetric" if sym else "per_channel_affine", ch_axis=enc["axis"],
                 scale=enc["scale"], zero_point=enc["zp"])
        if "block" in enc:
            block = [1] * rank
            block[1 - enc["axis"]] = enc["block"]
            q["block_size"] = block
    else:
        q.update(qscheme="per_tensor_symmetric" if enc["zp"] == mid else "per_tensor_affine",
                 scale=enc["scale"], zero_point=enc["zp"])
    return q


def _dtype(enc):
    if "float" in enc:
        return enc["float"]
    if "plain" in enc:
        return enc["plain"]
    return "float32"


def _port(t):
    out = {"dtype": _dtype(t["enc"]), "shape": t["shape"]}
    q = qspec(t["enc"], len(t["shape"]))
    if q is not None:
        out["qspec"] = q
    return out


def case_nodes(case):
    """The graph nodes of one case (inputs, parameters, the call), and the name of its call node."""
    k = key(case)
    nodes, refs = [], {}
    for i, t in enumerate(case["inputs"]):
        if t["role"] == "scalar":
            continue  # a Python number in the ATen graph: it is in aten_args already
        name = f"{k}.in{i}"
        kind = "input" if t["role"] == "act" else "parameter"
        nodes.append({"name": name, "kind": kind, "outputs": [_port(t)]})
        ref = {"ref": name}
        q = qspec(t["enc"], len(t["shape"]))
        if q is not None:
            ref["qspec"] = q
        refs[f"${i}"] = ref

    def arg(v):
        if isinstance(v, str) and v in refs:
            return refs[v]
        if isinstance(v, list):
            return [arg(x) for x in v]
        return v

    nodes.append({"name": k, "kind": "call", "target": case["aten"], "args": [arg(a) for a in case["aten_args"]],
                  "outputs": [_port(t) for t in case["outputs"]]})
    return nodes, k


def graph(cases, name):
    """One graph holding every case as an independent subgraph."""
    nodes, calls = [], []
    for c in cases:
        n, call = case_nodes(c)
        nodes += n
        calls.append(call)
    nodes.append({"name": "output", "kind": "output", "args": [[{"ref": c} for c in calls]]})
    return {"format": "qnnrules-graph", "version": 1, "name": name, "nodes": nodes}
