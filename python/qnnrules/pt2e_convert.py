"""torchao's convert_pt2e with the weight fold in a fraction of its time and memory (issue 34).

    converted = qnnrules.torch.convert_pt2e(prepared)   # same arguments, same result

torchao's convert_pt2e ends with ``constant_fold``: a ``ConstantFolder`` interpreter walks the
whole graph and evaluates every node whose inputs are constants, then keeps only the quantize
nodes' values (the int weights). On a decoder that evaluates, besides each weight's quantize,
its dequantize too (the folder's ``_deduce_value`` runs before its ``is_impure`` says a
dequantize is never folded), so every weight is dequantized back to float for nothing: on 8
layers at Qwen3-0.6B's dimensions, 4.2 of convert_pt2e's 10 CPU seconds, and a float copy of
every weight held at once. Each quantize also runs on the whole weight in one piece, five passes
over memory through weight-sized temporaries (151,936 x 1,024 embedding: 1.8 s).

Here the same folder runs with three changes that leave its result bit for bit the same
(tests/python/test_quantizer_convert.py compares graphs and every buffer with torchao's):
- only nodes a quantize node depends on are evaluated; the rest are unknown to the folder, as
  the dequantize nodes and their users already were (their values were never kept);
- a dequantize is unknown before it is run, not after (the folder's own rule, applied earlier);
- quantize_per_tensor, quantize_per_channel and torchao's quantize_affine run on slices of about
  a megabyte along the weight's first dimension (per channel: along its channel axis; block-wise:
  whole blocks), the same element-wise arithmetic on each, so the temporaries stay in cache.
``benchmarks/quantizer_llm.py`` measures the difference against ExecuTorch's flow.
"""

try:
    import torch
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)
    from torchao.quantization.pt2e import constant_fold as _cf
    from torchao.quantization.pt2e import quantize_pt2e as _quantize_pt2e
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from .pt2e_prepare import present_convs_only

_SLICE_ELEMENTS = 1 << 18  # measured: 64..256 K float32 elements per slice is fastest (1 thread)

_QD = torch.ops.quantized_decomposed
_QUANT_OPS = frozenset(_quantize_pt2e._QUANT_OPS)
# The ops torchao's ConstantFolder.is_impure never folds (its DEQUANT_OPS, a local there).
_DEQUANT_OPS = frozenset((_QD.dequantize_per_channel.default, _QD.dequantize_per_tensor.default,
                          _QD.dequantize_per_tensor.tensor, _QD.convert_element_type.no_fuse,
                          torch.ops.torchao.dequantize_affine))
# Graphs torchao converts per subgraph (scan, while_loop bodies): converted by torchao whole.
_SUBGRAPH_OPS = (torch.ops.higher_order.scan, torch.ops.higher_order.while_loop)


def _sliced(run, input, dim, step):
    """run(start, stop) on slices of ``input`` along ``dim``, step rows at a time, gathered into
    one tensor (the first slice gives the dtype)."""
    out = None
    size = input.shape[dim]
    for start in range(0, size, step):
        stop = min(size, start + step)
        part = run(start, stop)
        if out is None:
            out = torch.empty(input.shape, dtype=part.dtype, device=part.device)
        out.narrow(dim, start, stop - start).copy_(part)
    return out


def _rows(input, dim, unit=1):
    """Slice length along ``dim`` (a multiple of ``unit``) for about _SLICE_ELEMENTS elements,
    or None when the tensor is small enough to run whole."""
    if input.dim() == 0 or input.numel() <= 2 * _SLICE_ELEMENTS or not input.is_cpu:
        return None
    per_row = max(1, input.numel() // max(1, input.shape[dim]))
    return max(unit, (_SLICE_ELEMENTS // per_row) // unit * unit)


def _per_tensor(op):
    def run(input, *params, **kwargs):
        step = _rows(input, 0)
        if step is None or kwargs:
            return op(input, *params, **kwargs)
        return _sliced(lambda a, b: op(input[a:b], *params), input, 0, step)
    return run


def _per_channel(input, scales, zero_points, axis, *params, **kwargs):
    op = _QD.quantize_per_channel.default
    dim = axis % input.dim() if input.dim() else 0
    step = _rows(input, dim)
    if step is None or kwargs or scales.dim() != 1 or zero_points.shape != scales.shape:
        return op(input, scales, zero_points, axis, *params, **kwargs)
    return _sliced(lambda a, b: op(input.narrow(dim, a, b - a), scales[a:b], zero_points[a:b], axis, *params),
                   input, dim, step)


def _affine(input, block_size, scale, zero_point, *params, **kwargs):
    op = torch.ops.torchao.quantize_affine
    unit = block_size[0] if len(block_size) == input.dim() and input.dim() else 0
    step = _rows(input, 0, unit) if unit > 0 else None
    aligned = (step is not None and scale.dim() == input.dim() and scale.shape[0] * unit == input.shape[0]
               and (zero_point is None or zero_point.numel() == 0 or zero_point.shape == scale.shape))
    if not aligned or kwargs:
        return op(input, block_size, scale, zero_point, *params, **kwargs)
    zp = (lambda a, b: zero_point) if zero_point is None or zero_point.numel() == 0 else \
        (lambda a, b: zero_point[a // unit:b // unit])
    return _sliced(lambda a, b: op(input[a:b], block_size, scale[a // unit:b // unit], zp(a, b), *params),
                   input, 0, step)


_SLICED = {
    _QD.quantize_per_tensor.default: _per_tensor(_QD.quantize_per_tensor.default),
    _QD.quantize_per_tensor.tensor: _per_tensor(_QD.quantize_per_tensor.tensor),
    _QD.quantize_per_channel.default: _per_channel,
    torch.ops.torchao.quantize_affine: _affine,
}


def _quantize_inputs(graph):
    """The nodes some quantize node depends on (itself included)."""
    needed = set()
    stack = [n for n in graph.nodes if n.op == "call_function" and n.target in _QUANT_OPS]
    while stack:
        node = stack.pop()
        if node not in needed:
            needed.add(node)
            stack.extend(node.all_input_nodes)
    return needed


class _WeightFolder(_cf.ConstantFolder):
    """torchao's ConstantFolder evaluating only what a quantize node depends on (module doc)."""

    def __init__(self, gm):
        super().__init__(gm, skip_constructors=True)
        self._needed = _quantize_inputs(gm.graph)

    def run_node(self, node):
        if node.op in ("call_function", "call_method", "call_module", "get_attr") and node not in self._needed:
            return self.unknown_value
        return super().run_node(node)

    def _deduce_value(self, node):
        if node.op == "call_function" and node.target in _DEQUANT_OPS:
            return self.unknown_value
        fast = _SLICED.get(node.target) if node.op == "call_function" else None
        if fast is None or self.lifted_constant_names is not None:
            return super()._deduce_value(node)
        args, kwargs = self.fetch_args_kwargs_from_env(node)
        return fast(*args, **kwargs)


def fold_quantized_weights(gm, recompile=True):
    """torchao's constant_fold(gm, _quant_node_constraint) with _WeightFolder: each quantize node
    of constants becomes a get_attr of its integer tensor; the float weights left unused are
    removed from the module."""
    with torch.utils._python_dispatch._disable_current_modes():
        folder = _WeightFolder(gm)
        folder.run()
        for node, constant in folder.node_replacements.items():
            if _quantize_pt2e._quant_node_constraint(node):
                _cf.replace_node_with_constant(gm, node, constant)
        unused = [n for n in gm.graph.find_nodes(op="get_attr") if not n.users]
        for node in unused:
            if hasattr(gm, node.target):
                delattr(gm, node.target)
            gm.graph.erase_node(node)
        gm.graph.eliminate_dead_code()
    if recompile:
        gm.graph.lint()
        gm.recompile()


def dequantize_at_use(gm, recompile=True):
    """Moves each dequantize of a folded weight from the top of the graph, where the fold leaves
    it beside its get_attr, to just before its user. Same computation, same results; but a
    forward of the converted model no longer dequantizes every weight before the first layer
    runs and holds all of them as float at once (Qwen3-0.6B dimensions, 8 layers: the
    evaluation's peak RSS 6.8 GB → see docs/performance.md)."""
    moved = False
    for node in list(gm.graph.nodes):
        if (node.op == "call_function" and node.target in _DEQUANT_OPS and len(node.users) == 1
                and all(n.op == "get_attr" for n in node.all_input_nodes)):
            user = next(iter(node.users))
            if node.next is not user:
                user.prepend(node)
                moved = True
    if moved and recompile:
        gm.graph.lint()
        gm.recompile()


def convert_pt2e(model, use_reference_representation=False, fold_quantize=True):
    """torchao's convert_pt2e(model, ...): conv + batch_norm folded with the patterns of the
    graph's convs only (pt2e_prepare), weights folded by fold_quantized_weights."""
    subgraphs = any(n.op == "call_function" and n.target in _SUBGRAPH_OPS for n in model.graph.nodes)
    with present_convs_only():
        if use_reference_representation or not fold_quantize or subgraphs:  # as torchao does it
            return _quantize_pt2e.convert_pt2e(model, use_reference_representation, fold_quantize)
        model = _quantize_pt2e.convert_pt2e(model, fold_quantize=False)
    fold_quantized_weights(model, recompile=False)
    dequantize_at_use(model, recompile=False)
    model.graph.lint()
    model.recompile()
    return model
