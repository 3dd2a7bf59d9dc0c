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

try:
    import torch  # noqa: F401 (the `torch` extra's check, naming this module)
    from torchao.quantization.pt2e.quantizer import Quantizer as _TorchaoQuantizer
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import _fx as fx
from . import pt2e_options as opt
from . import pt2e_decompose as decompose
from . import pt2e_lift as lift
from . import pt2e_qat as qat
from .errors import AnnotationError
from .fx_reader import from_fx, graph_of, to_dict
from .pt2e_graph import _replace_inf, _require_export_graph
from .pt2e_observers import (  # noqa: F401 (their public names: qnnrules.pt2e.MinMaxObserverOnce ...)
    AffineQuantizedMinMaxObserverOnce,
    MinMaxObserverOnce,
    PerChannelMinMaxObserverOnce,
)
from .pt2e_specs import _apply

log = logging.getLogger("qnnrules")


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
                     if fx.TORCH_ANNOTATION_KEY in n.meta or fx.ANNOTATION_KEY in n.meta]
        if annotated and self.existing == "error":
            raise AnnotationError(
                f"{len(annotated)} node(s) are already annotated ({', '.join(annotated[:5])}"
                f"{', ...' if len(annotated) > 5 else ''}); pass existing='replace' to re-annotate them")
        _require_export_graph(model)
        for n in model.graph.nodes:  # replaced, never kept: the engine sees a float graph
            n.meta.pop(fx.TORCH_ANNOTATION_KEY, None)
            n.meta.pop(fx.ANNOTATION_KEY, None)
        decompose.decompose_for_annotation(model)  # as ExecuTorch's QnnQuantizer does (pt2e_decompose)
        default = self.options.default or self._base
        fallback = opt.NodeSetting(default.selection(None), None, default.act_observer, default.eps, default.is_qat)
        recipe = self._needs_recipe()
        self.settings = opt.node_settings(model, self.options, self._base) if recipe else {}
        pairs = qat.conv_bn_pairs(model, lambda n: (self.settings.get(n.name) or fallback).qat)
        qat.add_zero_biases(model, pairs)  # before the engine sees the graph: it annotates the bias
        graph = from_fx(model, name=self.name)
        if recipe:
            self.graph = self.engine.annotate(graph, default.selection(None),
                                              recipe_text=self._recipe_text(model, default))
        else:
            self.graph = self.engine.annotate(graph, default.selection(None), recipe=self.recipe)
        nodes = self.graph.to_dict()["nodes"]
        lift.lift_numbers(model, nodes)
        _apply(model, self.graph, self.settings, fallback, nodes)
        qat.annotate_pairs(pairs)
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

    def _recipe_text(self, model, default):
        """The options as an engine recipe (docs/annotation.md), YAML text the engine parses in
        memory; the user's recipe file, if any, merged in."""
        import yaml  # noqa: PLC0415 (only for options)
        names = {n.name for n in model.graph.nodes}
        present = {fx._target_name(n) for n in model.graph.nodes if n.op == "call_function"}
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
        return yaml.safe_dump(recipe, sort_keys=False)

    # --- validate ------------------------------------------------------------------------

    def validate(self, model):
        """Runs the engine on ``model`` as annotated (or, after convert_pt2e, as quantized).
        Strict: raises ValidationError with every violation. Warn: logs each one; returns the
        diagnostics either way."""
        buffers = []
        graph = qat.folded_view(model, to_dict(model, name=self.name, buffers=buffers))
        diagnostics = self.engine.validate(graph_of(graph, buffers))
        for d in diagnostics:
            log.warning("%s", str(d).rstrip("\n"))
        return diagnostics
