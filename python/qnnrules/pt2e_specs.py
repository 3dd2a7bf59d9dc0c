"""Engine specs -> torchao specs: what qnnrules.torch.Quantizer writes on
``node.meta["quantization_annotation"]`` from the engine's annotated graph (shared encodings
rooted so torchao's union-find meets no cycle, derived bias specs, fixed qparams, the
observers of pt2e_observers)."""

import dataclasses

try:
    import torch
    from torchao.quantization.pt2e.quantizer import (
        DerivedQuantizationSpec,
        FixedQParamsQuantizationSpec,
        QuantizationAnnotation,
        QuantizationSpec,
        SharedQuantizationSpec,
    )
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import _fx as fx
from . import pt2e_observers as obs

# torch's spelling of the names graph format v1 uses.
_DTYPES = fx._DTYPES_BY_NAME
_QSCHEMES = fx._QSCHEMES_BY_NAME
_PER_CHANNEL = (torch.per_channel_affine, torch.per_channel_symmetric)
_INT32_RANGE = (-(2**31), 2**31 - 1)


def _derive_bias_qparams(observers):
    """Bias encoding from the input's and the weight's observers: scale = input x weight scale,
    offset 0 (per channel when the weight is; block-wise weights give the largest block scale
    of each output channel, as LPBQ's per-channel scale)."""
    act, weight = observers
    act_scale, _ = act.calculate_qparams()
    w_scale, _ = weight.calculate_qparams()
    w_scale = w_scale.to(torch.float32)
    if w_scale.dim() > 1:
        w_scale = w_scale.reshape(w_scale.shape[0], -1).amax(dim=1)
    scale = (act_scale.to(torch.float32) * w_scale).reshape(-1)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def _apply(model, graph, settings=None, fallback=None, nodes=None):
    """Writes ``graph``'s annotations onto the nodes of ``model`` with the same names.

    Shared encodings are written so that torchao's shared-spec resolution (a union-find over
    edges and nodes, prepare.py _get_edge_or_node_to_group_id, with implicit sharing between
    the edges of one tensor) cannot meet a cycle: each group of ports that share one encoding
    has one root, the port torchao visits first, which holds the group's own spec, and every
    other port holds a SharedQuantizationSpec naming that root directly. The engine's sharing
    references (a chain such as cat output -> cat input 0 edge -> producer output, or a
    reference to a later node) are followed to their group first.

    ``settings``: node name -> NodeSetting (observer class, eps, QAT) of the seed's options;
    a node without one takes ``fallback``. A PTQ node with no activation observer of its own
    takes pt2e_observers.default_act_observer's."""
    settings = settings or {}
    fx_nodes = {n.name: n for n in model.graph.nodes}
    nodes = nodes if nodes is not None else graph.to_dict()["nodes"]
    default_act = obs.default_act_observer(model, nodes, fx_nodes)
    multi = {nd["name"]: nd["outputs"] for nd in nodes if len(nd.get("outputs", [])) > 1}
    raw = {}        # torchao key (node, or (arg, node) edge) -> torchao spec or ("shared", key)
    order = []      # the keys in torchao's visiting order: per node, its input edges, then its output
    inputs_of = {}  # node -> its annotated input keys, in argument order
    for nd in nodes:
        node = fx_nodes.get(nd["name"])
        if node is None and nd.get("kind") == "constant":
            continue  # a number the engine lifted that stays a number here (pt2e_lift.lift_numbers)
        if node is None:
            raise fx.ConversionError(f"graph node '{nd['name']}' is not in the GraphModule")
        keys = []
        setting = settings.get(nd["name"]) or fallback
        if setting is not None and setting.act_observer is None and not setting.qat:
            setting = dataclasses.replace(setting, act_observer=default_act)
        args = nd.get("args", [])
        refs = [(pos, r) for pos, value in enumerate(args) for r in fx._tensor_refs(value)]
        refs += [(None, r) for r in fx._tensor_refs(nd.get("kwargs", {}))]
        for pos, ref in refs:
            if "qspec" not in ref or ref["ref"] not in fx_nodes:
                continue
            bias_of = node if pos == 2 and _is_derived_bias(ref["qspec"], args) else None
            arg = fx_nodes[ref["ref"]]
            spec = _torch_spec(ref["qspec"], fx_nodes, multi, bias_of, setting, static=obs.is_static(model, arg))
            key = (arg, node)
            if spec is not None and key not in raw:
                raw[key] = spec
                keys.append(key)
        inputs_of[node] = keys
        order.extend(keys)
        outputs = nd.get("outputs", [])
        # pt2e has one output spec per node; nodes with several outputs are quantized on their
        # getitem users. Parameters are quantized on the edges that read them.
        if len(outputs) == 1 and "qspec" in outputs[0] and nd["kind"] in ("input", "call"):
            spec = _torch_spec(outputs[0]["qspec"], fx_nodes, multi, setting=setting)
            if spec is not None:
                raw[node] = spec
                order.append(node)
    final = _rooted(raw, order)
    for node, keys in inputs_of.items():
        inputs = {key[0]: final[key] for key in keys}
        output = final.get(node)
        if inputs or output is not None:
            node.meta[fx.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(
                input_qspec_map=inputs, output_qspec=output, _annotated=True)


def _rooted(raw, order):
    """``raw``'s specs with every shared reference pointing to its group's root (see _apply)."""
    parent = {k: k for k in order}

    def find(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for k in order:
        spec = raw[k]
        if isinstance(spec, tuple):
            target = spec[1]
            if target not in raw:
                raise fx.ConversionError(f"a shared encoding names {_key_name(target)}, which has no annotation")
            a, b = find(k), find(target)
            if a != b:
                parent[a] = b
    position = {k: i for i, k in enumerate(order)}
    groups = {}
    for k in order:
        groups.setdefault(find(k), []).append(k)
    # Groups whose observer sees several tensors: one joining two inputs of a node, and the
    # groups of those inputs' producers, which torchao merges with it (the edges of one tensor).
    joined = set()
    for g, members in groups.items():
        if _joins_inputs(members):
            joined.add(g)
            joined.update(find(k[0]) for k in members if isinstance(k, tuple) and k[0] in parent)
    final = {}
    for g, members in groups.items():
        concrete = [raw[k] for k in members if not isinstance(raw[k], tuple)]
        if not concrete:
            raise fx.ConversionError(
                "shared encodings with no port holding an encoding of their own: "
                + ", ".join(_key_name(k) for k in members[:5]))
        root = min(members, key=position.__getitem__)
        final[root] = raw[root] if not isinstance(raw[root], tuple) else concrete[0]
        if g in joined:
            final[root] = obs.global_min_max(final[root])
        for k in members:
            if k != root:
                final[k] = SharedQuantizationSpec(root)
    return final


def _joins_inputs(members):
    """A group holding two different inputs of one node (cat, stack): its one observer sees
    different tensors on each batch."""
    inputs = {}
    for k in members:
        if isinstance(k, tuple):
            inputs.setdefault(k[1], set()).add(k[0])
    return any(len(args) > 1 for args in inputs.values())


def _key_name(key):
    return f"the edge {key[0].name} -> {key[1].name}" if isinstance(key, tuple) else f"the output of {key.name}"


def _is_derived_bias(spec, args):
    """The annotator's conv/linear bias: int32 over the whole int32 range at argument 2, beside
    an annotated input and weight (16-bit activations are int32 too, but 0..65535)."""
    if spec.get("dtype") != "int32" or (spec.get("quant_min"), spec.get("quant_max")) != _INT32_RANGE:
        return False
    return len(args) > 2 and all(isinstance(a, dict) and "qspec" in a for a in args[:2])


def _torch_spec(spec, fx_nodes, multi, bias_of=None, setting=None, static=False):
    """One engine spec as a torchao spec. ``multi``: the outputs of multi-output nodes, which
    pt2e cannot annotate (getitem users sharing one of them share what that output shares).
    ``setting``: the node's observer choices (act_observer, eps, QAT fake-quantize);
    ``static``: the port reads a parameter (observed once in PTQ)."""
    if "shared_with" in spec:
        ref = spec["shared_with"]
        if "edge" in ref:
            producer, consumer = ref["edge"]
            return ("shared", (fx_nodes[producer], fx_nodes[consumer]))
        if ref["node"] in multi:
            target = multi[ref["node"]][ref.get("output", 0)].get("qspec")
            return _torch_spec(target, fx_nodes, multi, setting=setting) if target is not None else None
        return ("shared", fx_nodes[ref["node"]])
    dtype = _DTYPES.get(spec["dtype"])
    if dtype is None or dtype.is_floating_point:  # float16 activations stay float in pt2e
        return None
    qscheme = _QSCHEMES[spec.get("qscheme", "per_tensor_affine")]
    qmin, qmax = spec.get("quant_min"), spec.get("quant_max")
    ch_axis = spec.get("ch_axis", 0) if qscheme in _PER_CHANNEL else None
    if bias_of is not None:
        act, weight = bias_of.args[0], bias_of.args[1]
        return DerivedQuantizationSpec(
            derived_from=[(act, bias_of), (weight, bias_of)], derive_qparams_fn=_derive_bias_qparams,
            dtype=dtype, quant_min=qmin, quant_max=qmax, qscheme=qscheme, ch_axis=ch_axis)
    if "scale" in spec and "zero_point" in spec and qscheme not in _PER_CHANNEL:
        return FixedQParamsQuantizationSpec(dtype=dtype, scale=float(spec["scale"]),
                                            zero_point=int(spec["zero_point"]), quant_min=qmin,
                                            quant_max=qmax, qscheme=qscheme)
    return QuantizationSpec(dtype=dtype, quant_min=qmin, quant_max=qmax, qscheme=qscheme, ch_axis=ch_axis,
                            observer_or_fake_quant_ctr=obs.observer(spec, dtype, qmin, qmax, ch_axis, setting, static))
