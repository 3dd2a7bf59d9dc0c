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

import dataclasses
import logging
import operator
import os
import tempfile

try:
    import torch
    from torchao.quantization.pt2e.quantizer import (
        DerivedQuantizationSpec,
        FixedQParamsQuantizationSpec,
        QuantizationAnnotation,
        QuantizationSpec,
        SharedQuantizationSpec,
    )
    from torchao.quantization.pt2e.quantizer import Quantizer as _TorchaoQuantizer
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import pt2e_observers as obs
from . import pt2e_options as opt
from .pt2e_observers import (  # noqa: F401 (their public names: qnnrules.pt2e.MinMaxObserverOnce ...)
    AffineQuantizedMinMaxObserverOnce,
    MinMaxObserverOnce,
    PerChannelMinMaxObserverOnce,
)
from . import torch as qt
from .errors import AnnotationError

log = logging.getLogger("qnnrules")
_getitem = operator.getitem

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
    opening one from backend, soc, strict and ``rules`` (overlay directories); ``backend`` None
    is the rules' default backend (the manifest saying ``default: true``; htp in the bundled
    rules).
    """

    def __init__(self, backend=None, soc="SM8750", config="16a8w", recipe=None, strict=True,
                 rules=(), existing="replace", engine=None, name=None, *, is_qat=False, act_observer=None,
                 act_symmetric=False, eps=None, is_conv_per_channel=None, is_linear_per_channel=None,
                 is_embedding_per_channel=None):
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
        # The seed's options (docs/embedding.md, "The seed's options"): keyword arguments give
        # the default ModuleQConfig; set_default_quant_config replaces it.
        self._base = opt.ModuleQConfig(config, is_qat, is_conv_per_channel, is_linear_per_channel,
                                       is_embedding_per_channel, act_observer, act_symmetric, eps)
        self.options = opt.Options()
        self.settings = {}  # node name -> NodeSetting of the last annotate()

    # --- the seed's methods (ExecuTorch QnnQuantizer) --------------------------------------

    def set_default_quant_config(self, quant_dtype, is_qat=False, is_conv_per_channel=False,
                                 is_linear_per_channel=False, is_embedding_per_channel=False, act_observer=None,
                                 act_symmetric=False, eps=None):
        """As QnnQuantizer.set_default_quant_config; ``quant_dtype`` is a QuantDtype or a config
        selection of ours ("16a8w"). Weights of conv / linear / embedding are per-tensor unless
        their switch is on."""
        self.options.default = opt.ModuleQConfig(quant_dtype, is_qat, is_conv_per_channel, is_linear_per_channel,
                                                 is_embedding_per_channel, act_observer, act_symmetric, eps)
        return self

    def set_submodule_qconfig_list(self, submodule_qconfig_list):
        """[(predicate(node) -> bool, ModuleQConfig)]: the first matching predicate gives a node
        its config (get_submodule_type_predicate / get_submodule_name_predicate, or any callable)."""
        self.options.submodule_qconfig_list = list(submodule_qconfig_list)
        return self

    def set_block_size_map(self, block_size_map):
        """{node name: block size}: those nodes get block-wise (LPBQ) weights of that block size."""
        self.options.block_size_map = {k: tuple(v) for k, v in dict(block_size_map).items()}
        return self

    def add_discard_nodes(self, nodes):
        """Node names left unannotated (float); names not in the graph are ignored, as the seed does."""
        self.options.discard_nodes = set(nodes)
        return self

    def add_discard_ops(self, ops):
        """Ops (OpOverloads or their names, "aten.add.Tensor") left unannotated."""
        self.options.discard_ops = set(self.options.discard_ops) | set(ops)
        return self

    def add_custom_quant_annotations(self, custom_quant_annotations):
        """Callables f(GraphModule) run after the annotation; what they write is validated
        like the rest (prepare_pt2e calls validate after annotate)."""
        self.options.custom_quant_annotations = tuple(custom_quant_annotations)
        return self

    def set_recipe(self, recipe):
        """A QuantRecipe: qnnrules.pt2e_options.QuantRecipe, or the seed's own (its strategies
        and default are read into ours)."""
        self.options.recipe = recipe if isinstance(recipe, opt.QuantRecipe) else opt.QuantRecipe.from_seed(recipe)
        return self

    @property
    def custom_quant_annotations(self):
        return self.options.custom_quant_annotations

    @property
    def discard_nodes(self):
        return self.options.discard_nodes

    @property
    def block_size_map(self):
        return self.options.block_size_map

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
        _require_export_graph(model)
        for n in model.graph.nodes:  # replaced, never kept: the engine sees a float graph
            n.meta.pop(qt.TORCH_ANNOTATION_KEY, None)
            n.meta.pop(qt.ANNOTATION_KEY, None)
        graph = qt.from_fx(model, name=self.name)
        default = self.options.default or self._base
        if self._needs_recipe():
            self.settings = opt.node_settings(model, self.options, self._base)
            with tempfile.TemporaryDirectory(prefix="qnnrules-recipe-") as tmp:
                path = os.path.join(tmp, "recipe.yaml")
                self._write_recipe(model, default, path)
                self.graph = self.engine.annotate(graph, default.selection(None), recipe=path)
        else:
            self.settings = {}
            self.graph = self.engine.annotate(graph, default.selection(None), recipe=self.recipe)
        fallback = opt.NodeSetting(default.selection(None), None, default.act_observer, default.eps, default.is_qat)
        _apply(model, self.graph, self.settings, fallback)
        annotations = (self.options.recipe.custom_quant_annotations if self.options.recipe is not None
                       else self.options.custom_quant_annotations)
        for f in annotations:
            f(model)
        _replace_inf(model)
        return model

    def _needs_recipe(self):
        b = self._base
        return self.options.active() or any(
            f is not None for f in (b.is_conv_per_channel, b.is_linear_per_channel, b.is_embedding_per_channel))

    def _write_recipe(self, model, default, path):
        import yaml  # noqa: PLC0415 (only for options)
        names = {n.name for n in model.graph.nodes}
        present = {qt._target_name(n) for n in model.graph.nodes if n.op == "call_function"}
        options = self.options
        keep = opt.Options(discard_nodes={n for n in options.discard_nodes if n in names},
                           discard_ops={t for t in opt._target_names(options.discard_ops) if t in present})
        recipe = opt.recipe_dict(self.settings, default.selection(None), keep, names)
        if self.recipe is not None:  # the user's recipe file: the options' entries win over its own
            with open(self.recipe, encoding="utf-8") as f:
                user = yaml.safe_load(f) or {}
            recipe["overrides"] = list(user.get("overrides", [])) + recipe.get("overrides", [])
            for key in ("discard_nodes", "discard_ops"):
                merged = sorted(set(user.get(key, [])) | set(recipe.get(key, [])))
                if merged:
                    recipe[key] = merged
            if "default" in user and options.default is None:
                recipe["default"] = user["default"]
        with open(path, "w", encoding="utf-8") as f:
            yaml.safe_dump(recipe, f, sort_keys=False)

    # --- validate ------------------------------------------------------------------------

    def validate(self, model):
        """Runs the engine on ``model`` as annotated (or, after convert_pt2e, as quantized).
        Strict: raises ValidationError with every violation. Warn: logs each one; returns the
        diagnostics either way."""
        diagnostics = self.engine.validate(qt.from_fx(model, name=self.name))
        for d in diagnostics:
            log.warning("%s", str(d).rstrip("\n"))
        return diagnostics


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
            ann = target[1].meta.get(qt.TORCH_ANNOTATION_KEY)
            spec = ann.input_qspec_map.get(target[0]) if ann is not None else None
        else:
            ann = target.meta.get(qt.TORCH_ANNOTATION_KEY)
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
    ann = node.meta.get(qt.TORCH_ANNOTATION_KEY)
    if ann is not None and ann.output_qspec is not None:
        return _quant_range(ann.output_qspec)
    for user in node.users:
        uann = user.meta.get(qt.TORCH_ANNOTATION_KEY)
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
        if node.op == "call_function" and qt._target_name(node) in _INF_CANDIDATES:
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
            value = qt._attr(model, node.target)
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
        if qt._target_name(n) not in _MATMULS:
            continue
        for a in n.args[:3]:
            if (isinstance(a, torch.fx.Node) and a.op == "call_function" and qt._target_name(a) in _TRANSPOSES
                    and isinstance(a.args[0], torch.fx.Node) and _is_weight(a.args[0])):
                decomposed.append(n.name)
                break
    if decomposed:
        raise AnnotationError(
            f"linear layer(s) decomposed into a matmul of a transposed weight ({', '.join(decomposed[:5])}"
            f"{', ...' if len(decomposed) > 5 else ''}): weight configs and their SoC gates need aten.linear; "
            "pass torch.export.export(model, args).module() (without run_decompositions) to prepare_pt2e")


# --- engine specs -> torchao specs --------------------------------------------------------

def _apply(model, graph, settings=None, fallback=None):
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
    nodes = graph.to_dict()["nodes"]
    default_act = obs.default_act_observer(model, nodes, fx_nodes)
    multi = {nd["name"]: nd["outputs"] for nd in nodes if len(nd.get("outputs", [])) > 1}
    raw = {}        # torchao key (node, or (arg, node) edge) -> torchao spec or ("shared", key)
    order = []      # the keys in torchao's visiting order: per node, its input edges, then its output
    inputs_of = {}  # node -> its annotated input keys, in argument order
    for nd in nodes:
        node = fx_nodes.get(nd["name"])
        if node is None:
            raise qt.ConversionError(f"graph node '{nd['name']}' is not in the GraphModule")
        keys = []
        setting = settings.get(nd["name"]) or fallback
        if setting is not None and setting.act_observer is None and not setting.qat:
            setting = dataclasses.replace(setting, act_observer=default_act)
        args = nd.get("args", [])
        refs = [(pos, r) for pos, value in enumerate(args) for r in qt._tensor_refs(value)]
        refs += [(None, r) for r in qt._tensor_refs(nd.get("kwargs", {}))]
        for pos, ref in refs:
            if "qspec" not in ref:
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
            node.meta[qt.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(
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
                raise qt.ConversionError(f"a shared encoding names {_key_name(target)}, which has no annotation")
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
            raise qt.ConversionError(
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
