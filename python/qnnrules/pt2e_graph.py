"""What qnnrules.torch.Quantizer asks of and does to the graph itself, apart from specs: it
refuses graphs that are not from torch.export (weight configs need aten.linear), and replaces
infinite constants by the quantization range of their node, as the seed does."""

import operator

try:
    import torch
    from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import _fx as fx
from .errors import AnnotationError

_getitem = operator.getitem


# --- infinite constants (the seed's QnnQuantizer._replace_inf) -----------------------------

_INF_CANDIDATES = frozenset({
    "aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor", "aten.add.Scalar",
    "aten.sub.Scalar", "aten.mul.Scalar", "aten.div.Scalar", "aten.masked_fill.Scalar", "aten.masked_fill.Tensor",
    "aten.scalar_tensor.default", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar",
    "aten.full.default", "aten.full_like.default", "aten.fill.Scalar"})
_FP16_MAX = float(torch.finfo(torch.float16).max)


def _quant_range(spec, limit=64):
    """quant_max - quant_min of a torchao spec, following shared specs."""
    while isinstance(spec, SharedQuantizationSpec) and limit > 0:
        limit -= 1
        target = spec.edge_or_node
        if isinstance(target, tuple):
            ann = target[1].meta.get(fx.TORCH_ANNOTATION_KEY)
            spec = ann.input_qspec_map.get(target[0]) if ann is not None else None
        else:
            ann = target.meta.get(fx.TORCH_ANNOTATION_KEY)
            spec = ann.output_qspec if ann is not None else None
    dtype = getattr(spec, "dtype", None)
    if dtype is None or dtype.is_floating_point:
        return None
    info = torch.iinfo(dtype)
    qmin = info.min if spec.quant_min is None else spec.quant_min
    qmax = info.max if spec.quant_max is None else spec.quant_max
    return qmax - qmin


def _range_of(node):
    """The quantization range of ``node``'s output: its own output spec, else the edge into its
    first annotated user (an unannotated mask producer feeding an annotated add)."""
    ann = node.meta.get(fx.TORCH_ANNOTATION_KEY)
    if ann is not None and ann.output_qspec is not None:
        return _quant_range(ann.output_qspec)
    for user in node.users:
        uann = user.meta.get(fx.TORCH_ANNOTATION_KEY)
        if uann is not None and node in uann.input_qspec_map:
            r = _quant_range(uann.input_qspec_map[node])
            if r:
                return r
    return None


def _replace_inf(model):
    """Attention masks hold -inf or float32's lowest value (masked_fill, where, a constant
    mask); observed, they give a scale of about 1e34 and wipe out the range of everything
    they are added to. As the seed does, such literals (beyond float16's range) become ± the
    quantization range of the node's output (65535 for 16-bit, 255 for 8-bit), and so do the
    values of float constants read by annotated nodes."""
    changed = False
    for node in model.graph.nodes:
        if node.op == "call_function" and fx._target_name(node) in _INF_CANDIDATES:
            args = list(node.args)
            big = [i for i, a in enumerate(args) if isinstance(a, float) and abs(a) >= _FP16_MAX]
            if not big:
                continue
            r = _range_of(node)
            if not r:
                continue
            for i in big:
                args[i] = float(r) if args[i] > 0 else -float(r)
            node.args = tuple(args)
            changed = True
        elif node.op == "get_attr":
            value = fx._attr(model, node.target)
            if (not isinstance(value, torch.Tensor) or isinstance(value, torch.nn.Parameter)
                    or not value.is_floating_point()):
                continue
            ranges = [r for r in (_range_of(node),) if r]
            if not ranges or not bool((value.abs() >= _FP16_MAX).any()):
                continue
            with torch.no_grad():
                value.clamp_(-float(ranges[0]), float(ranges[0]))
            changed = True
    if changed:
        model.recompile()


# --- what the Quantizer takes ------------------------------------------------------------

_MATMULS = ("aten.addmm.default", "aten.mm.default", "aten.bmm.default", "aten.matmul.default")
_TRANSPOSES = ("aten.t.default", "aten.permute.default", "aten.transpose.int", "aten.numpy_T.default")


def _is_weight(node):
    return node.op == "get_attr" or (node.op == "placeholder" and node.name.startswith(("p_", "_param_constant")))


def _require_export_graph(model):
    """Weight configs (4-bit, 2-bit, block-wise) and their SoC gates apply to the weight input of
    ``aten.linear`` / ``aten.conv*``: a graph where a linear layer is a matmul of a transposed
    parameter (make_fx, run_decompositions) would be annotated without them and pass the gates
    silently. Such graphs are refused, naming the nodes."""
    calls = [n for n in model.graph.nodes if n.op == "call_function" and n.target is not _getitem]
    if calls and not any("nn_module_stack" in n.meta for n in calls):
        raise AnnotationError(
            "the graph is not from torch.export (no node has an nn_module_stack; make_fx and symbolic_trace "
            "graphs are not supported): pass torch.export.export(model, args).module() to prepare_pt2e")
    decomposed = []
    for n in calls:
        if fx._target_name(n) not in _MATMULS:
            continue
        for a in n.args[:3]:
            if (isinstance(a, torch.fx.Node) and a.op == "call_function" and fx._target_name(a) in _TRANSPOSES
                    and isinstance(a.args[0], torch.fx.Node) and _is_weight(a.args[0])):
                decomposed.append(n.name)
                break
    if decomposed:
        raise AnnotationError(
            f"linear layer(s) decomposed into a matmul of a transposed weight ({', '.join(decomposed[:5])}"
            f"{', ...' if len(decomposed) > 5 else ''}): weight configs and their SoC gates need aten.linear; "
            "pass torch.export.export(model, args).module() (without run_decompositions) to prepare_pt2e")
