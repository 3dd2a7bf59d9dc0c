"""Python numbers lifted to constant tensors in the GraphModule where the engine lifted them.

The engine's annotator lifts a number operand of a binary op (``x * 0.25``, ``1.0 - x``) to a 0-d
constant before annotating it, as ExecuTorch's QnnQuantizer does (pytorch/executorch
backends/qualcomm/_passes/lift_constant_scalar_operands.py): the constant is then quantized like
the other operand, so ExecuTorch's lowering delegates the op instead of handing QNN a float32
number beside a quantized tensor, which it refuses. The engine names each constant
``<node>_<port>`` and puts it right before its user; here the same constant becomes a buffer read
by a get_attr node of that name, so the annotations find it by name like every other node."""

try:
    import torch
    from torch import fx as torch_fx
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import _fx as fx

_DTYPES = fx._DTYPES_BY_NAME


def _tensor_overload(target, position):
    """The overload of ``target``'s op that takes a tensor at ``position`` (aten.rsub.Scalar ->
    aten.rsub.Tensor, aten.pow.Tensor_Scalar -> aten.pow.Tensor_Tensor), or ``target`` when its
    own schema already takes one there (aten.mul.Tensor); None when the op has none."""
    def takes_tensor(op):
        args = op._schema.arguments
        return position < len(args) and isinstance(args[position].type, torch.TensorType)
    if not isinstance(target, torch._ops.OpOverload):
        return None
    if takes_tensor(target):
        return target
    packet = target.overloadpacket
    name = target._overloadname
    for candidate in (name.replace("Scalar", "Tensor"), "Tensor", "self"):
        op = getattr(packet, candidate, None)
        if op is not None and takes_tensor(op):
            return op
    return None


def constant_before(model, user, name, tensor):
    """A buffer ``name`` holding ``tensor``, read by a get_attr node of that name right before
    ``user``, with a fake tensor of ``user``'s fake mode as its meta "val" (prepare reads it)."""
    model.register_buffer(name, tensor)
    with model.graph.inserting_before(user):
        attr = model.graph.create_node("get_attr", name, name=name)
    fake = getattr(user.meta.get("val"), "fake_mode", None)
    attr.meta["val"] = fake.from_tensor(tensor) if fake is not None else tensor
    return attr


def lift_numbers(model, nodes):
    """Makes the engine's lifted constants (``nodes``: the annotated graph's node dicts) in
    ``model``; returns the names of those it made. A constant whose user reads no number at that
    position, or whose op has no tensor form, is left out (its annotation is then skipped)."""
    fx_nodes = {n.name: n for n in model.graph.nodes}
    made = []
    for i, nd in enumerate(nodes):
        if nd.get("kind") != "constant" or nd["name"] in fx_nodes:
            continue
        # Its user follows it, after any other constant lifted for the same node.
        user_dict, position = None, None
        for later in nodes[i + 1:i + 4]:
            position = next((p for p, a in enumerate(later.get("args", []))
                             if isinstance(a, dict) and a.get("ref") == nd["name"]), None)
            if position is not None:
                user_dict = later
                break
        user = fx_nodes.get(user_dict["name"]) if user_dict else None
        if user is None or position >= len(user.args):
            continue
        value = user.args[position]
        target = _tensor_overload(user.target, position)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or target is None:
            continue
        dtype = _DTYPES.get(nd["outputs"][0]["dtype"], torch.float32)
        attr = constant_before(model, user, nd["name"], torch.tensor(value, dtype=dtype))
        args = list(user.args)
        args[position] = attr
        user.args = tuple(args)
        user.target = target
        made.append(attr.name)
    if made:
        model.recompile()
    return made
