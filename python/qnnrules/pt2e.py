"""A torchao pt2e Quantizer whose decisions are the engine's (qnnrules.torch.Quantizer).

    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    quantizer = qnnrules.torch.Quantizer(backend="htp", soc="SM8650", config="16a8w")
    prepared = prepare_pt2e(torch.export.export(model, args).module(), quantizer)
    prepared(*args)                                  # calibrate
    converted = convert_pt2e(prepared)
    quantizer.validate(converted)                    # the QDQ graph, with its calibrated scales

annotate() converts the GraphModule to graph format v1, lets the C++ annotator choose every
port's spec from the config, the recipe and the backend's rules, and translates each spec into
torchao's objects on ``node.meta["quantization_annotation"]``; no choice is made here.
validate() reads those annotations back (qnnrules.torch.from_fx) and runs the engine.
"""

import logging

import torch
from torchao.quantization.granularity import PerBlock
from torchao.quantization.pt2e._affine_quantization import AffineQuantizedMinMaxObserver
from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    SharedQuantizationSpec,
)
from torchao.quantization.pt2e.quantizer import Quantizer as _TorchaoQuantizer
from torchao.quantization.quant_primitives import MappingType

from . import torch as qt
from .errors import AnnotationError

log = logging.getLogger("qnnrules")

# torch's spelling of the names graph format v1 uses.
_DTYPES = qt._DTYPES_BY_NAME
_QSCHEMES = qt._QSCHEMES_BY_NAME
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


class Quantizer(_TorchaoQuantizer):
    """A pt2e Quantizer for one QNN backend and SoC.

    ``config``: a quantization config of rules/quant_configs.yaml with modifiers ("16a8w",
    "8a8w:per_channel", "16a4w_block"); ``recipe``: a recipe YAML file of per-node overrides.
    ``strict``: validate() raises :class:`qnnrules.ValidationError` listing every violation
    (node, port, rule, expected, actual); otherwise it logs them as warnings on the
    ``qnnrules`` logger. ``existing``: what annotate() does with annotations already on the
    graph: "replace" them (default) or "error" (raise :class:`qnnrules.AnnotationError`
    naming the annotated nodes). ``engine``: an open :class:`qnnrules.Engine` to use instead of
    opening one from backend, soc, strict and ``rules`` (overlay directories).
    """

    def __init__(self, backend="htp", soc="SM8750", config="16a8w", recipe=None, strict=True,
                 rules=(), existing="replace", engine=None, name=None):
        super().__init__()
        if existing not in ("replace", "error"):
            raise ValueError(f"existing must be 'replace' or 'error', not {existing!r}")
        if engine is None:
            from . import Engine
            engine = Engine(backend=backend, soc=soc, strict=strict, rules=rules)
        self.engine = engine
        self.config = config
        self.recipe = None if recipe is None else str(recipe)
        self.existing = existing
        self.name = name
        self.graph = None  # the engine's annotated graph of the last annotate()

    @property
    def strict(self):
        return self.engine.strict

    # --- annotate ------------------------------------------------------------------------

    def annotate(self, model):
        annotated = [n.name for n in model.graph.nodes
                     if qt.TORCH_ANNOTATION_KEY in n.meta or qt.ANNOTATION_KEY in n.meta]
        if annotated and self.existing == "error":
            raise AnnotationError(
                f"{len(annotated)} node(s) are already annotated ({', '.join(annotated[:5])}"
                f"{', ...' if len(annotated) > 5 else ''}); pass existing='replace' to re-annotate them")
        for n in model.graph.nodes:  # replaced, never kept: the engine sees a float graph
            n.meta.pop(qt.TORCH_ANNOTATION_KEY, None)
            n.meta.pop(qt.ANNOTATION_KEY, None)
        graph = qt.from_fx(model, name=self.name)
        self.graph = self.engine.annotate(graph, self.config, recipe=self.recipe)
        _apply(model, self.graph)
        return model

    # --- validate ------------------------------------------------------------------------

    def validate(self, model):
        """Runs the engine on ``model`` as annotated (or, after convert_pt2e, as quantized).
        Strict: raises ValidationError with every violation. Warn: logs each one; returns the
        diagnostics either way."""
        diagnostics = self.engine.validate(qt.from_fx(model, name=self.name))
        for d in diagnostics:
            log.warning("%s", str(d).rstrip("\n"))
        return diagnostics


# --- engine specs -> torchao specs --------------------------------------------------------

def _apply(model, graph):
    """Writes ``graph``'s annotations onto the nodes of ``model`` with the same names."""
    fx_nodes = {n.name: n for n in model.graph.nodes}
    nodes = graph.to_dict()["nodes"]
    multi = {nd["name"]: nd["outputs"] for nd in nodes if len(nd.get("outputs", [])) > 1}
    for nd in nodes:
        node = fx_nodes.get(nd["name"])
        if node is None:
            raise qt.ConversionError(f"graph node '{nd['name']}' is not in the GraphModule")
        inputs = {}
        args = nd.get("args", [])
        for pos, value in enumerate(args):
            for ref in qt._tensor_refs(value):
                if "qspec" in ref:
                    bias_of = node if pos == 2 and _is_derived_bias(ref["qspec"], args) else None
                    inputs[fx_nodes[ref["ref"]]] = _torch_spec(ref["qspec"], fx_nodes, multi, bias_of)
        for ref in qt._tensor_refs(nd.get("kwargs", {})):
            if "qspec" in ref:
                inputs[fx_nodes[ref["ref"]]] = _torch_spec(ref["qspec"], fx_nodes, multi)
        outputs = nd.get("outputs", [])
        output = None
        # pt2e has one output spec per node; nodes with several outputs are quantized on their
        # getitem users. Parameters are quantized on the edges that read them.
        if len(outputs) == 1 and "qspec" in outputs[0] and nd["kind"] in ("input", "call"):
            output = _torch_spec(outputs[0]["qspec"], fx_nodes, multi)
        inputs = {k: v for k, v in inputs.items() if v is not None}
        if inputs or output is not None:
            node.meta[qt.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(
                input_qspec_map=inputs, output_qspec=output, _annotated=True)


def _is_derived_bias(spec, args):
    """The annotator's conv/linear bias: int32 over the whole int32 range at argument 2, beside
    an annotated input and weight (16-bit activations are int32 too, but 0..65535)."""
    if spec.get("dtype") != "int32" or (spec.get("quant_min"), spec.get("quant_max")) != _INT32_RANGE:
        return False
    return len(args) > 2 and all(isinstance(a, dict) and "qspec" in a for a in args[:2])


def _torch_spec(spec, fx_nodes, multi, bias_of=None):
    """One engine spec as a torchao spec. ``multi``: the outputs of multi-output nodes, which
    pt2e cannot annotate (getitem users sharing one of them share what that output shares)."""
    if "shared_with" in spec:
        ref = spec["shared_with"]
        if "edge" in ref:
            producer, consumer = ref["edge"]
            return SharedQuantizationSpec((fx_nodes[producer], fx_nodes[consumer]))
        if ref["node"] in multi:
            target = multi[ref["node"]][ref.get("output", 0)].get("qspec")
            return _torch_spec(target, fx_nodes, multi) if target is not None else None
        return SharedQuantizationSpec(fx_nodes[ref["node"]])
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
    if spec.get("block_size"):
        observer = AffineQuantizedMinMaxObserver.with_args(
            mapping_type=MappingType.SYMMETRIC, target_dtype=dtype,
            granularity=PerBlock(tuple(spec["block_size"])), quant_min=qmin, quant_max=qmax,
            eps=torch.finfo(torch.float32).eps)
    elif ch_axis is not None:
        observer = PerChannelMinMaxObserver.with_args(ch_axis=ch_axis)
    else:
        observer = MinMaxObserver
    return QuantizationSpec(dtype=dtype, quant_min=qmin, quant_max=qmax, qscheme=qscheme, ch_axis=ch_axis,
                            observer_or_fake_quant_ctr=observer)

