"""torch front end: ATen-level graphs from torch.export in, annotations back onto their nodes.

    import torch, qnnrules, qnnrules.torch as qt

    gm = torch.export.export(model.eval(), (example,)).module()   # what prepare_pt2e receives
    engine = qnnrules.Engine(backend="htp", soc="SM8650")
    graph = qt.annotate(engine, gm, "16a8w")         # annotations now in node.meta["qnnrules_annotation"]
    engine.validate(graph)                           # or engine.validate(qt.from_fx(gm))
    qt.save(gm, "model.json")                        # the same graph for qnn-validate

    quantizer = qt.Quantizer(backend="htp", soc="SM8650", config="16a8w")   # a torchao pt2e Quantizer

Graphs come from ``torch.export``: ``ep.module()`` / ``ep.graph_module`` (parameters as get_attr
nodes named by their FQN) or the ExportedProgram itself (lifted parameters), before or after
``convert_pt2e``. There ``nn.Linear`` stays ``aten.linear.default`` with its weight, so weight
configs (4-bit, 2-bit, block-wise) and their gates apply; ``make_fx`` decomposes it into
transpose + addmm and is not supported.

from_fx reads dtypes and shapes (meta "val" or "tensor_meta"), literal arguments, module paths
(innermost ``nn_module_stack`` entry), parameter FQNs, the scales and zero points of
convert_pt2e's quantize/dequantize nodes (tensor constants inlined, so the engine folds them
with real values) and the annotations found in ``node.meta``: PyTorch's
``quantization_annotation`` (QuantizationSpec, SharedQuantizationSpec,
FixedQParamsQuantizationSpec, DerivedQuantizationSpec; block sizes of torchao's PerBlock
observers) and the ``qnnrules_annotation`` dicts that write_back puts there.

write_back stores, per node, ``node.meta["qnnrules_annotation"] = {"input_qspec_map": {arg_node:
spec}, "output_qspec": spec}``, shaped like PyTorch's QuantizationAnnotation. A spec is a plain
dict a quantizer can turn into its own objects: ``{"dtype": torch.uint8, "quant_min": 0,
"quant_max": 255, "qscheme": torch.per_tensor_affine, "ch_axis": 0, "block_size": [...],
"scale": ..., "zero_point": ...}`` (keys present when known), or ``{"shared_with": node}`` /
``{"shared_with": (producer, consumer)}`` like SharedQuantizationSpec's edge_or_node.
"""

try:
    import torch
    import torch.fx
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from ._fx import (  # noqa: F401 (qnnrules.torch's names since the beginning; tests read some)
    _DTYPES,
    _DTYPES_BY_NAME,
    _QSCHEMES,
    _QSCHEMES_BY_NAME,
    ANNOTATION_KEY,
    TORCH_ANNOTATION_KEY,
    ConversionError,
    _attr,
    _is_qdq,
    _target_name,
    _tensor_refs,
)
from .fx_reader import from_fx, save, to_dict  # noqa: F401 (the reader's public names)

# --- writing annotations back -------------------------------------------------------------------

def _spec_to_torch(spec, fx_nodes):
    if "shared_with" in spec:
        ref = spec["shared_with"]
        if "edge" in ref:
            producer, consumer = ref["edge"]
            return {"shared_with": (fx_nodes[producer], fx_nodes[consumer])}
        out = {"shared_with": fx_nodes[ref["node"]]}
        if ref.get("output"):
            out["output"] = ref["output"]
        return out
    out = {"dtype": _DTYPES_BY_NAME.get(spec["dtype"], spec["dtype"])}
    for key in ("quant_min", "quant_max"):
        if key in spec:
            out[key] = spec[key]
    out["qscheme"] = _QSCHEMES_BY_NAME[spec.get("qscheme", "per_tensor_affine")]
    for key in ("ch_axis", "block_size", "scale", "zero_point"):
        if key in spec:
            out[key] = spec[key]
    return out


def write_back(gm, graph):
    """Puts ``graph``'s annotations onto the matching nodes of ``gm`` (by node name) as
    ``node.meta["qnnrules_annotation"]``; nodes without any annotation lose a stale one.
    Returns the number of nodes annotated."""
    if hasattr(gm, "graph_module"):
        gm = gm.graph_module
    fx_nodes = {n.name: n for n in gm.graph.nodes}
    count = 0
    for nd in graph.to_dict()["nodes"]:
        fx = fx_nodes.get(nd["name"])
        if fx is None:
            raise ConversionError(f"graph node '{nd['name']}' is not in the GraphModule")
        input_map = {}
        for r in _tensor_refs(nd.get("args", []) + [nd.get("kwargs", {})]):
            if "qspec" in r:
                input_map[fx_nodes[r["ref"]]] = _spec_to_torch(r["qspec"], fx_nodes)
        output_specs = [_spec_to_torch(o["qspec"], fx_nodes) if "qspec" in o else None
                        for o in nd.get("outputs", [])]
        if not input_map and not any(s is not None for s in output_specs):
            fx.meta.pop(ANNOTATION_KEY, None)
            continue
        ann = {"input_qspec_map": input_map, "output_qspec": output_specs[0] if output_specs else None}
        if len(output_specs) > 1:
            ann["output_qspecs"] = output_specs
        fx.meta[ANNOTATION_KEY] = ann
        count += 1
    return count


def annotate(engine, gm, config="8a8w", recipe=None, name=None, module=None):
    """Annotates ``gm`` with the engine's rules and a quantization config (e.g. "8a8w",
    "16a8w:per_channel"), writes the specs back onto its nodes and returns the annotated
    :class:`qnnrules.Graph`."""
    graph = engine.annotate(from_fx(gm, name=name, module=module), config, recipe=recipe)
    write_back(gm, graph)
    return graph


def validate(engine, gm, name=None, module=None):
    """engine.validate on the GraphModule as annotated (its node.meta annotations), or, after
    convert_pt2e, as quantized (its quantize/dequantize nodes, folded by the engine)."""
    return engine.validate(from_fx(gm, name=name, module=module))


def __getattr__(name):
    # The Quantizer needs torchao, imported only when asked for.
    if name == "Quantizer":
        from .pt2e import Quantizer
        return Quantizer
    if name in ("prepare_pt2e", "prepare_qat_pt2e"):  # torchao's, faster (pt2e_prepare)
        from . import pt2e_prepare
        return getattr(pt2e_prepare, name)
    if name == "convert_pt2e":  # torchao's, its weight fold faster and smaller (pt2e_convert)
        from .pt2e_convert import convert_pt2e
        return convert_pt2e
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
