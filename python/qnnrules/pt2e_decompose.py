"""The ops ExecuTorch's QnnQuantizer decomposes before it annotates, decomposed the same way in the
GraphModule before the engine annotates it (the engine's annotator does the same on a graph it
reads: engine/src/annotate/Decompose.h, docs/annotation.md). ExecuTorch's lowering decomposes them
anyway, after quantization, and QNN then refuses the quantized pieces, whose tensors carry no
encoding (rules/lowering/executorch.yaml; lowering oracle llama_layer/qnnrules/<config>/<SoC>,
gpt2_layer/qnnrules/<config>/<SoC>, act_probe/qnnrules/8a8w/SM8650):

- silu(x) -> mul(x, sigmoid(x))                  (pytorch/executorch DecomposeSilu)
- addmm(b, x, w) -> add(mm(x, w), b)             (DecomposeAddmm; without beta or alpha)
- leaky_relu(x, s) -> prelu(x, c), c = tensor(s) (LiftConstantScalarOperands)

The node keeps its name on its last piece, so recipes and reports name it as before."""

try:
    import torch
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from .pt2e_lift import constant_before  # noqa: E402 (after the torch extra's check)

_aten = torch.ops.aten
_SILU = (_aten.silu.default, _aten.silu_.default)
_LEAKY = (_aten.leaky_relu.default, _aten.leaky_relu_.default)


def _annotated(node):
    return "quantization_annotation" in node.meta


def _new(graph, node, target, args, val):
    new = graph.call_function(target, args)
    new.meta.update({k: v for k, v in node.meta.items() if k in ("nn_module_stack", "stack_trace", "source_fn_stack")})
    new.meta["val"] = val
    return new


def decompose_for_annotation(model):
    """Decomposes in place; returns the names of the nodes decomposed."""
    graph = model.graph
    done = []
    for node in list(graph.nodes):
        if node.op != "call_function" or _annotated(node) or node.kwargs:
            continue
        val = node.meta.get("val")
        if node.target in _SILU and len(node.args) == 1:
            with graph.inserting_before(node):
                sig = _new(graph, node, _aten.sigmoid.default, (node.args[0],), val)
                sig._rename(node.name + "_sigmoid")
            last = (_aten.mul.Tensor, (node.args[0], sig))
        elif node.target == _aten.addmm.default and len(node.args) == 3:
            bias, x, w = node.args
            with graph.inserting_before(node):
                mm = _new(graph, node, _aten.mm.default, (x, w), val)
                mm._rename(node.name + "_mm")
            last = (_aten.add.Tensor, (mm, bias))
        elif node.target in _LEAKY and len(node.args) in (1, 2) and (
                len(node.args) == 1 or isinstance(node.args[1], (int, float))):
            slope = float(node.args[1]) if len(node.args) == 2 else 0.01
            dtype = val.dtype if val is not None else torch.float32
            const = constant_before(model, node, node.name + "_slope", torch.tensor(slope, dtype=dtype))
            last = (_aten.prelu.default, (node.args[0], const))
        else:
            continue
        done.append(node.name)
        node.target, node.args = last  # the node is its last piece: its name and users stay
    if done:
        model.recompile()
    return done
