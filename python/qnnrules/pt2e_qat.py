"""QAT of Conv + BatchNorm (+ ReLU) with qnnrules.torch.Quantizer: the annotation torchao's fusion
and fold need, as ExecuTorch's QnnQuantizer writes it (pytorch/executorch
backends/qualcomm/quantizer/conv_bn.py, after XNNPACK's ``_do_annotate_conv_bn``).

``prepare_qat_pt2e`` annotates first, then torchao's ``_fuse_conv_bn_qat`` rewrites each
conv + batch_norm into the QAT form (weight scaled by bn_weight / running_std, conv output
divided back, then batch_norm), copying each node's annotation onto its replacement;
``convert_pt2e``'s ``_fold_conv_bn_qat`` then matches that form with quantize/dequantize nodes
at exactly three places (conv input, scaled weight, batch_norm output) and folds the
BatchNorm into the conv's weight and bias. The engine annotates conv and batch_norm as two
ops (the conv's output quantized, the batch_norm's weight, bias and output too), which puts
a fake-quantize inside the fused form: the fold never matches and every BatchNorm stays
float after convert.

So, for each conv whose only user is a batch_norm and whose node is QAT:

- before the engine annotates, a conv without a bias gets a zero one (a numerical no-op):
  the fold then writes the folded bias into a quantized bias, not a new float parameter;
- after, the pair is annotated as one partition: the conv keeps the engine's input, weight
  and bias specs and loses its output spec; the batch_norm has none; the batch_norm's output
  takes the spec the engine chose for the conv's output (after the fold it is the conv's
  output). A ReLU after it keeps its own annotation, as the engine gave it.

``folded_view`` is what Quantizer.validate judges before convert (prepare_qat_pt2e validates
right after annotating): the graph as the fold will leave it, each pair one conv whose
output has the batch_norm output's spec.
"""

import operator

try:
    import torch
    from torchao.quantization.pt2e.quantizer import QuantizationAnnotation
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import _fx as fx

# The convs torchao's fusion and fold trace their patterns from (F.conv1d, F.conv2d,
# F.conv_transpose1d, F.conv_transpose2d); another conv overload would lose its output spec
# with no fold to give it back.
CONV_TARGETS = frozenset({"aten.conv1d.default", "aten.conv2d.default", "aten.conv_transpose1d.default",
                          "aten.conv_transpose2d.input"})
# batch_norm.default returns the tensor; the others a tuple whose item 0 is the output.
_SINGLE_OUTPUT_BN = "aten.batch_norm.default"
BN_TARGETS = frozenset({_SINGLE_OUTPUT_BN, "aten._native_batch_norm_legit.default",
                        "aten._native_batch_norm_legit_functional.default",
                        "aten._native_batch_norm_legit_no_training.default", "aten.cudnn_batch_norm.default"})
PARTITION_KEY = "qnnrules_conv_bn"  # conv.meta: the name of the node whose output the pair gives


def _sole_user(node):
    return next(iter(node.users)) if len(node.users) == 1 else None


def _bn_output(bn):
    if fx._target_name(bn) == _SINGLE_OUTPUT_BN:
        return bn
    for user in bn.users:
        if user.target is operator.getitem and user.args[1] == 0:
            return user
    return None


def conv_bn_pairs(model, is_qat):
    """[(conv, bn, bn output node)] of ``model`` whose conv ``is_qat(conv)``."""
    pairs = []
    for conv in model.graph.nodes:
        if conv.op != "call_function" or fx._target_name(conv) not in CONV_TARGETS:
            continue
        bn = _sole_user(conv)
        if bn is None or bn.op != "call_function" or fx._target_name(bn) not in BN_TARGETS or bn.args[0] is not conv:
            continue
        out = _bn_output(bn)
        if out is not None and is_qat(conv):
            pairs.append((conv, bn, out))
    return pairs


def add_zero_biases(model, pairs):
    """A zero bias (a parameter, requires_grad False) on each conv of ``pairs`` without one."""
    changed = False
    for conv, _, _ in pairs:
        args = list(conv.args)
        if len(args) > 2 and args[2] is not None:
            continue
        val = conv.meta.get("val")
        if val is None:
            continue
        args += [None] * (3 - len(args))
        zeros = torch.zeros(val.shape[1], dtype=val.dtype, device=val.device)
        name = f"{conv.name}_zero_bias"
        model.register_parameter(name, torch.nn.Parameter(zeros, requires_grad=False))
        with model.graph.inserting_before(conv):
            bias = model.graph.get_attr(name)
        bias.meta["val"] = val.fake_mode.from_tensor(zeros, static_shapes=True) if hasattr(val, "fake_mode") else zeros
        args[2] = bias
        conv.args = tuple(args)
        changed = True
    if changed:
        model.recompile()


def annotate_pairs(pairs):
    """Rewrites the engine's torchao annotations of each pair as one partition (module docstring).
    Returns the number of pairs rewritten; a pair whose conv has no annotation is left as it is."""
    count = 0
    for conv, bn, out in pairs:
        conv_ann = conv.meta.get(fx.TORCH_ANNOTATION_KEY)
        out_ann = out.meta.get(fx.TORCH_ANNOTATION_KEY)
        if conv_ann is None or not conv_ann.input_qspec_map:
            continue
        output = conv_ann.output_qspec
        if output is None or not hasattr(output, "dtype"):  # shared or none: keep the batch_norm's own
            output = out_ann.output_qspec if out_ann is not None else None
        conv.meta[fx.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(
            input_qspec_map=dict(conv_ann.input_qspec_map), output_qspec=None, _annotated=True)
        bn.meta[fx.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(_annotated=True)
        if out is not bn:
            out.meta[fx.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(output_qspec=output, _annotated=True)
        else:
            bn.meta[fx.TORCH_ANNOTATION_KEY].output_qspec = output
        conv.meta[PARTITION_KEY] = out.name
        count += 1
    return count


def _pending_pairs(model):
    """The partitions annotate_pairs made that the fold has not yet met: conv still read only
    by its batch_norm."""
    pairs = []
    nodes = {n.name: n for n in model.graph.nodes}
    for conv in model.graph.nodes:
        out = nodes.get(conv.meta.get(PARTITION_KEY)) if PARTITION_KEY in conv.meta else None
        bn = _sole_user(conv)
        if out is not None and bn is not None and fx._target_name(bn) in BN_TARGETS and _bn_output(bn) is out:
            pairs.append((conv.name, bn.name, out.name))
    return pairs


def folded_view(model, graph):
    """``graph`` (model's format v1 dict) as the fold will make it: each pending pair one conv
    with the batch_norm output's spec, its readers reading the conv, and the batch_norm's own
    parameters (read by nothing else) gone. Unchanged when nothing is pending."""
    pairs = _pending_pairs(model)
    if not pairs:
        return graph
    nodes = graph["nodes"]
    by_name = {n["name"]: n for n in nodes}
    renamed = {}
    dropped = set()
    for conv, bn, out in pairs:
        spec = next((o.get("qspec") for o in by_name[out].get("outputs", [])[:1]), None)
        conv_out = by_name[conv]["outputs"][0]
        conv_out.pop("qspec", None)
        if spec is not None:
            conv_out["qspec"] = spec
        renamed[out] = conv
        dropped.update({bn, out})
    readers = {}
    for nd in nodes:
        if nd["name"] in dropped:
            continue
        for r in fx._tensor_refs(nd.get("args", []) + [nd.get("kwargs", {})]):
            readers[r["ref"]] = readers.get(r["ref"], 0) + 1
            if r["ref"] in renamed:
                r["ref"] = renamed[r["ref"]]
            _rename_shared(r.get("qspec"), renamed)
        for o in nd.get("outputs", []):
            _rename_shared(o.get("qspec"), renamed)
    for bn in (b for _, b, _ in pairs):
        for r in fx._tensor_refs(by_name[bn].get("args", [])):
            source = by_name.get(r["ref"])
            if source is not None and source.get("kind") in ("parameter", "constant") and not readers.get(r["ref"]):
                dropped.add(r["ref"])
    return dict(graph, nodes=[n for n in nodes if n["name"] not in dropped])


def _rename_shared(spec, renamed):
    ref = (spec or {}).get("shared_with")
    if not ref:
        return
    if "node" in ref and ref["node"] in renamed:
        ref["node"] = renamed[ref["node"]]
    if "edge" in ref:
        ref["edge"] = [renamed.get(e, e) for e in ref["edge"]]
