"""GraphModule (or ExportedProgram) -> graph format v1: qnnrules.torch's reader (to_dict,
from_fx, save; what they read is described in qnnrules.torch's docstring)."""

import math
import operator

try:
    import torch
    import torch.fx
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import _qnnrules
from ._fx import (
    _DTYPES,
    _QSCHEMES,
    _QUANTIZE_PREFIXES,
    ANNOTATION_KEY,
    TORCH_ANNOTATION_KEY,
    ConversionError,
    _attr,
    _is_qdq,
    _node_tensors,
    _one_tensor,
    _target_name,
)

def _outputs_from_getitems(node):
    """make_fx in torch 1.13 leaves multi-output nodes (native_batch_norm, max_pool2d_with_indices)
    without meta; their getitem users have it. Positions no getitem reads stay None."""
    by_index = {}
    for user in node.users:
        if user.target is operator.getitem and isinstance(user.args[1], int):
            tensors = _node_tensors(user)
            if tensors and len(tensors) == 1:
                by_index[user.args[1]] = tensors[0]
    if not by_index:
        return None
    return [by_index.get(i) for i in range(max(by_index) + 1)]


def _literal(v, ref):
    """One argument value in format v1: tensor references through ``ref``, literals as JSON values."""
    if isinstance(v, torch.fx.Node):
        return ref(v)
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        # JSON has no inf/nan; FX graphs use them (masked_fill, clamp): kept as strings.
        return v if math.isfinite(v) else str(v)
    if isinstance(v, (list, tuple)):
        return [_literal(e, ref) for e in v]
    if isinstance(v, torch.dtype):
        return _DTYPES.get(v, str(v))
    if isinstance(v, (torch.device, torch.layout, torch.memory_format)):
        return str(v)
    if isinstance(v, slice):
        return [_literal(v.start, ref), _literal(v.stop, ref), _literal(v.step, ref)]
    return str(v)


def _module_path(node):
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return None
    path = list(stack.values())[-1]
    path = path[0] if isinstance(path, tuple) else path
    # torch.export / dynamo spell the root "L['self']" or "L__self__"; the format wants "layer1.0.conv1".
    for prefix in ("L['self'].", "L['self']", "L__self___", "L__self__"):
        if path.startswith(prefix):
            path = path[len(prefix):]
            break
    return path or None


def _spec_attr(spec, name, default=None):
    if isinstance(spec, dict):
        return spec.get(name, default)
    return getattr(spec, name, default)


def _block_size(spec):
    """LPBQ block sizes: ExecuTorch passes them in the weight observer's partial keywords,
    torchao's affine observers as a PerBlock granularity."""
    bs = _spec_attr(spec, "block_size")
    if bs is None:
        ctr = _spec_attr(spec, "observer_or_fake_quant_ctr")
        partial = getattr(ctr, "p", ctr)
        keywords = getattr(partial, "keywords", None) or {}
        bs = keywords.get("block_size")
        if bs is None:
            bs = getattr(keywords.get("granularity"), "block_size", None)
    return [int(b) for b in bs] if bs is not None else None


def _spec_to_v1(spec, name_of):
    """A PyTorch quantization spec (object or write_back's dict) -> a format v1 qspec dict."""
    if spec is None:
        return None
    shared = _spec_attr(spec, "shared_with", _spec_attr(spec, "edge_or_node"))
    if shared is not None:
        if isinstance(shared, torch.fx.Node):
            ref = {"node": name_of(shared)}
            out = _spec_attr(spec, "output", 0)
            if out:
                ref["output"] = out
            return {"shared_with": ref}
        producer, consumer = shared
        return {"shared_with": {"edge": [name_of(producer), name_of(consumer)]}}
    dtype = _spec_attr(spec, "dtype")
    if dtype is None:
        raise ConversionError(f"quantization spec without a dtype: {spec!r}")
    d = {"dtype": _DTYPES.get(dtype) or str(dtype).replace("torch.", "")}
    for key in ("quant_min", "quant_max"):
        v = _spec_attr(spec, key)
        if v is not None:
            d[key] = int(v)
    qscheme = _spec_attr(spec, "qscheme")
    if qscheme is not None:
        d["qscheme"] = _QSCHEMES.get(qscheme) or str(qscheme).replace("torch.", "")
    ch_axis = _spec_attr(spec, "ch_axis")
    if ch_axis is not None:
        d["ch_axis"] = int(ch_axis)
    block_size = _block_size(spec)
    if block_size:
        d["block_size"] = block_size
    for key in ("scale", "zero_point"):
        v = _spec_attr(spec, key)
        if v is None:
            continue
        if isinstance(v, torch.Tensor):
            v = v.tolist()
        cast = float if key == "scale" else int
        d[key] = [cast(e) for e in v] if isinstance(v, (list, tuple)) else cast(v)
    return d


def _annotation(node):
    """(input spec of an argument node, output spec of output i) from node.meta, either flavour."""
    ann = node.meta.get(ANNOTATION_KEY)
    if ann is None:
        ann = node.meta.get(TORCH_ANNOTATION_KEY)
    if ann is None:
        return {}, []
    inputs = _spec_attr(ann, "input_qspec_map") or {}
    outputs = _spec_attr(ann, "output_qspecs")
    if outputs is None:
        out = _spec_attr(ann, "output_qspec")
        outputs = [out] if out is not None else []
    return inputs, list(outputs)


def _parameter_names(module):
    if module is None:
        return {}
    # Shared tensors keep their first name (named_parameters drops later duplicates).
    names = {id(p): n for n, p in module.named_parameters()}
    names.update({id(b): n for n, b in module.named_buffers()})
    return names


def _signature_kinds(program):
    """torch.export: placeholder name -> ("parameter" | "constant", FQN) for lifted weights."""
    kinds = {}
    sig = getattr(program, "graph_signature", None)
    if sig is None:
        return kinds
    for spec in getattr(sig, "input_specs", ()):
        kind = getattr(getattr(spec, "kind", None), "name", "")
        arg_name = getattr(getattr(spec, "arg", None), "name", None)
        if arg_name is None:
            continue
        if kind == "PARAMETER":
            kinds[arg_name] = ("parameter", spec.target)
        elif kind in ("BUFFER", "CONSTANT_TENSOR"):
            kinds[arg_name] = ("constant", spec.target)
    return kinds


def _is_guard(node):
    """torch.export's input-guard call (``_guards_fn``): not part of the computation."""
    return node.op == "call_module" and node.target == "_guards_fn"


_MAX_QPARAM_BYTES = 64 << 20  # engine/src/io/Pt2Tensor.h kMaxPayloadBytes


_BUFFER_MIN_ELEMENTS = 64  # smaller constants stay in the dict, readable


def _qdq_args(node, gm, lifted_value=None, buffers=None):
    """convert_pt2e's per-channel and block-wise quantize/dequantize nodes read their scales and
    zero points from tensor constants (get_attr, or lifted inputs of an ExportedProgram, read
    through ``lifted_value``): inlined as flat lists, as the .pt2 reader reads a lifted tensor's
    storage (block-wise ones are 2-D), up to the same size, so the engine folds real values.
    With ``buffers`` (a list), a large positional one whose values are all finite is appended
    to it as (node name, position, 1-D numpy array) and left as an empty list in the dict:
    Graph.from_dict puts the numbers in without JSON (the same values the list would give)."""
    def value(a, position=None):
        if not isinstance(a, torch.fx.Node):
            return a
        t = _attr(gm, a.target) if a.op == "get_attr" else lifted_value(a.name) if lifted_value else None
        if (not isinstance(t, torch.Tensor) or t.dtype.is_complex
                or t.numel() * t.element_size() > _MAX_QPARAM_BYTES):
            return a
        flat = t.detach().reshape(-1)
        if buffers is not None and position is not None and flat.numel() >= _BUFFER_MIN_ELEMENTS:
            wide = flat.to(torch.float32 if flat.dtype.is_floating_point and flat.element_size() < 4 else
                           flat.dtype if flat.dtype.is_floating_point else torch.int64)
            if not wide.is_floating_point() or bool(torch.isfinite(wide).all()):
                buffers.append((node.name, position, wide.contiguous().cpu().numpy()))
                return []
        return flat.tolist()
    args = [node.args[0]] + [value(a, i) for i, a in enumerate(node.args[1:], start=1)]
    return args, {k: value(v) for k, v in node.kwargs.items()}


def _lifted_values(program, lifted):
    """placeholder name -> its tensor, for the lifted buffers and constants of an ExportedProgram."""
    def get(name):
        entry = lifted.get(name)
        if entry is None or entry[0] != "constant":
            return None
        fqn = entry[1]
        constants = getattr(program, "constants", {}) or {}
        return constants[fqn] if fqn in constants else (getattr(program, "state_dict", {}) or {}).get(fqn)
    return get


def to_dict(gm, name=None, module=None, buffers=None):
    """A GraphModule (``ep.module()``, ``ep.graph_module``, prepare/convert_pt2e's result) or an
    ExportedProgram as a graph format v1 dict.

    ``module``: the nn.Module it was exported from; it names parameters that are not reached by
    their FQN (``ep.module()`` already names them). ``buffers``: a list that takes the large
    scale and zero-point constants of quantize/dequantize nodes instead of the dict (see
    _qdq_args; for graph_of / Graph.from_dict, which put them back).
    """
    lifted = _signature_kinds(gm)
    lifted_value = None
    if hasattr(gm, "graph_module"):  # ExportedProgram
        lifted_value = _lifted_values(gm, lifted)
        gm = gm.graph_module
    param_names = _parameter_names(module)
    owner = {}  # fx node -> module path of the parameter it reads
    nodes = []
    # After convert_pt2e the quantize/dequantize nodes carry the real encodings; the nodes still
    # hold the annotations prepare_pt2e observed with, which would take precedence when folded.
    converted = any(n.op == "call_function" and _is_qdq(_target_name(n)) for n in gm.graph.nodes)
    for node in gm.graph.nodes:
        if _is_guard(node):
            continue
        d = {"name": node.name}
        inputs, outputs = ({}, []) if converted else _annotation(node)
        input_specs = {}
        for arg_node, spec in inputs.items():
            input_specs[arg_node] = _spec_to_v1(spec, lambda n: n.name)

        seen = set()

        def ref(arg, _specs=input_specs, _seen=seen, _node=node):
            r = {"ref": arg.name}
            spec = _specs.get(arg)
            if spec is not None:
                # PyTorch keys an input edge by (producer, consumer): a tensor read twice
                # (cat((x, x))) is one edge with one observer, so a second read shares the first.
                if arg in _seen and "shared_with" not in spec:
                    spec = {"shared_with": {"edge": [arg.name, _node.name]}}
                _seen.add(arg)
                r["qspec"] = spec
            return r

        if node.op == "placeholder":
            kind, fqn = lifted.get(node.name, ("input", None))
            d["kind"] = kind
            if fqn:
                d["meta"] = {"fqn": fqn}
        elif node.op == "get_attr":
            value = _attr(gm, node.target)
            d["kind"] = "parameter" if isinstance(value, torch.nn.Parameter) else "constant"
            fqn = param_names.get(id(value)) or (node.target if d["kind"] == "parameter" else None)
            if fqn:
                d["meta"] = {"fqn": fqn}
                owner[node] = fqn.rpartition(".")[0]
        elif node.op == "output":
            d["kind"] = "output"
        elif node.op in ("call_function", "call_method", "call_module"):
            d["kind"] = "call"
            d["target"] = _target_name(node) if node.op == "call_function" else f"{node.op}:{node.target}"
        else:
            raise ConversionError(f"node {node.name}: unknown FX op {node.op!r}")

        if node.op in ("call_function", "call_method", "call_module", "output"):
            args, kwargs = node.args, node.kwargs
            if node.op == "call_function" and _is_qdq(_target_name(node)):
                args, kwargs = _qdq_args(node, gm, lifted_value, buffers)
            d["args"] = [_literal(a, ref) for a in args]
            if kwargs:
                d["kwargs"] = {k: _literal(v, ref) for k, v in kwargs.items()}
        if node.op != "output":
            tensors = _node_tensors(node)
            if tensors is None and node.op == "get_attr" and isinstance(value, torch.Tensor):
                tensors = [_one_tensor(value)]
            if tensors is None:
                tensors = _outputs_from_getitems(node)
            if tensors and any(t is not None for t in tensors):
                outs = []
                for i, t in enumerate(tensors):
                    if t is None:  # unknown or not a tensor: a placeholder keeps the indices right
                        t = {"dtype": "int64", "shape": []}
                    spec = _spec_to_v1(outputs[i], lambda n: n.name) if i < len(outputs) else None
                    if spec is not None:
                        t = dict(t, qspec=spec)
                    outs.append(t)
                d["outputs"] = outs
        path = _module_path(node)
        if path is None and node.op in ("call_function", "call_method", "call_module"):
            owners = [owner[a] for a in node.all_input_nodes if a in owner]
            path = owners[0] if owners else None
        if path:
            d["module"] = path
        nodes.append(d)
    _share_outputs_with_getitems(nodes, converted)
    graph = {"format": "qnnrules-graph", "version": 1, "nodes": nodes}
    # Diagnostics name the graph: the caller's name, else the module's or the GraphModule's class.
    graph_name = name or type(module if module is not None else gm).__name__
    if graph_name.endswith("GraphModuleImpl"):  # ep.module()'s local class
        graph_name = "GraphModule"
    graph["name"] = graph_name
    return graph


def _share_outputs_with_getitems(nodes, converted):
    """pt2e quantizes a multi-output node (chunk, split, ...) on its getitem users, never on the
    node itself: an unannotated output i takes the encoding of ``getitem(node, i)`` (its
    annotation, or after convert_pt2e the quantize node after it, which the engine folds)."""
    by_name = {n["name"]: n for n in nodes}
    quantized = set()
    if converted:
        for n in nodes:
            if n.get("target", "").startswith(_QUANTIZE_PREFIXES) and n["args"]:
                quantized.add(n["args"][0].get("ref") if isinstance(n["args"][0], dict) else None)
    for n in nodes:
        if n.get("target") != "getitem" or len(n.get("args", [])) < 2:
            continue
        src, index = n["args"][0], n["args"][1]
        if not isinstance(src, dict) or not isinstance(index, int) or "ref" not in src:
            continue
        parent = by_name.get(src["ref"])
        outs = parent.get("outputs", []) if parent else []
        annotated = any("qspec" in o for o in n.get("outputs", [])) or n["name"] in quantized
        if annotated and len(outs) > 1 and index < len(outs) and "qspec" not in outs[index]:
            outs[index]["qspec"] = {"shared_with": {"node": n["name"]}}


def from_fx(gm, name=None, module=None):
    """A GraphModule or ExportedProgram as a :class:`qnnrules.Graph` (see to_dict)."""
    buffers = []
    d = to_dict(gm, name=name, module=module, buffers=buffers)
    return graph_of(d, buffers)


def graph_of(d, buffers=()):
    """A format v1 dict (to_dict's, with the ``buffers`` it filled) as a :class:`qnnrules.Graph`."""
    return _qnnrules.Graph.from_dict(d, d.get("name", "<fx>"), buffers=list(buffers) or None)


def save(gm, path, name=None, module=None, indent=1):
    """Writes the graph (with its annotations) as a JSON file for ``qnn-validate``; returns the path."""
    from_fx(gm, name=name, module=module).save(path, indent=indent)
    return path
