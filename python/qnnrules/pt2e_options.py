"""The seed's quantizer options (ExecuTorch 1.5.1 QnnQuantizer, backends/qualcomm/quantizer:
quantizer.py ModuleQConfig / set_* / add_*, quant_recipe.py QuantRecipe) with the same names
and meaning, for qnnrules.torch.Quantizer.

They choose, per node, a config selection of rules/quant_configs.yaml ("16a8w:per_channel,sym"),
a block size, and the observer settings; the Quantizer passes the selections to the engine's
annotator as a recipe (docs/annotation.md, "Recipes"), so the rules still decide every spec and
gate it. Resolution per node, as the seed's _get_quant_config: a node in the block-size map,
then the first matching submodule predicate, then the default config; with a QuantRecipe, its
strategies by priority (later ones first among equals), then its default.
"""

import re
from dataclasses import dataclass, field
from enum import IntEnum, unique
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

try:
    import torch
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from ._fx import _target_name


@unique
class QuantDtype(IntEnum):
    """Bits of activation and weight, as the seed names them (quantizer.py QuantDtype)."""

    use_16a16w = 0
    use_16a8w = 1
    use_16a4w = 2
    use_16a4w_block = 3
    use_8a8w = 4
    use_8a4w = 5
    use_fp16a8w = 6
    use_16a2w = 7


@unique
class QuantGranularity(IntEnum):
    """quant_recipe.py QuantGranularity: the weight granularity of a strategy."""

    PER_TENSOR = 0
    PER_CHANNEL = 1
    PER_BLOCK = 2


_GRANULARITY = {QuantGranularity.PER_TENSOR: "per_tensor", QuantGranularity.PER_CHANNEL: "per_channel",
                QuantGranularity.PER_BLOCK: "per_block"}
_GRANULARITIES = set(_GRANULARITY.values())

CONV_TARGETS = frozenset({"aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default",
                          "aten.conv_transpose1d.default", "aten.conv_transpose2d.input",
                          "aten.conv_transpose3d.input", "aten.convolution.default"})
LINEAR_TARGETS = frozenset({"aten.linear.default"})
EMBEDDING_TARGETS = frozenset({"aten.embedding.default"})


def config_name(quant_dtype):
    """A QuantDtype (or its name, or a config name such as "16a8w") -> the config name."""
    if isinstance(quant_dtype, QuantDtype):
        return quant_dtype.name[len("use_"):]
    name = getattr(quant_dtype, "name", quant_dtype)  # the seed's own QuantDtype enum
    if not isinstance(name, str):
        raise TypeError(f"quant_dtype must be a QuantDtype or a config name, not {quant_dtype!r}")
    return name[len("use_"):] if name.startswith("use_") else name


def split_selection(selection):
    """"16a8w:per_channel,sym" -> ("16a8w", ["per_channel", "sym"])."""
    name, _, mods = str(selection).partition(":")
    return name, [m.strip() for m in mods.split(",") if m.strip()]


def join_selection(name, mods):
    mods = list(dict.fromkeys(m for m in mods if m))
    return f"{name}:{','.join(mods)}" if mods else name


@dataclass
class ModuleQConfig:
    """quantizer.py ModuleQConfig: one config for the nodes a predicate (or the default) covers.
    ``quant_dtype`` also takes a config selection of ours ("16a8w:per_channel")."""

    quant_dtype: Any = QuantDtype.use_8a8w
    is_qat: bool = False
    is_conv_per_channel: bool = False
    is_linear_per_channel: bool = False
    is_embedding_per_channel: bool = False
    act_observer: Optional[type] = None
    act_symmetric: bool = False
    eps: Optional[float] = None

    def __post_init__(self):
        # "8a8w:qat" asks for QAT as is_qat=True does: the fake-quantize observers, and the conv +
        # batch_norm pairing whose fold convert_pt2e needs (pt2e_qat), follow it too.
        if not self.is_qat:
            self.is_qat = "qat" in split_selection(config_name(self.quant_dtype))[1]

    def selection(self, target, granularity=None):
        """The config selection for a node of ``target`` (a name as qnnrules.torch spells it)."""
        name, mods = split_selection(config_name(self.quant_dtype))
        if granularity is None:
            flag = (self.is_conv_per_channel if target in CONV_TARGETS else
                    self.is_linear_per_channel if target in LINEAR_TARGETS else
                    self.is_embedding_per_channel if target in EMBEDDING_TARGETS else None)
            if flag is not None:
                granularity = "per_channel" if flag else "per_tensor"
        if granularity is not None:
            mods = [m for m in mods if m not in _GRANULARITIES] + [granularity]
        if self.act_symmetric:
            mods.append("sym")
        if self.is_qat and "qat" not in mods:
            mods.append("qat")
        return join_selection(name, mods)


@dataclass(frozen=True)
class NodeSetting:
    """What the options decide for one node."""

    selection: str
    block_size: Optional[Tuple[int, ...]] = None
    act_observer: Optional[type] = None
    eps: Optional[float] = None
    qat: bool = False


def get_submodule_type_predicate(module_type_str):
    """True for nodes inside a module whose type name contains ``module_type_str`` (the seed's
    quantizer.get_submodule_type_predicate, on nn_module_stack)."""
    def predicate(node):
        stack = node.meta.get("nn_module_stack")
        return bool(stack) and any(module_type_str in str(v[1] if isinstance(v, tuple) else v)
                                   for v in stack.values())
    predicate.module_type = module_type_str
    return predicate


def get_submodule_name_predicate(module_name_str):
    """True for nodes inside a module whose nn_module_stack key contains ``module_name_str``
    (the seed's get_submodule_name_predicate)."""
    def predicate(node):
        stack = node.meta.get("nn_module_stack")
        return bool(stack) and any(module_name_str in k for k in stack.keys())
    predicate.module_name = module_name_str
    return predicate


@dataclass
class _Strategy:
    config: ModuleQConfig
    granularity: QuantGranularity
    extra_kwargs: Dict
    note: str
    priority: int
    targets: Optional[frozenset] = None     # ByNodeTarget
    patterns: Optional[Tuple[str, ...]] = None  # ByNameRegex

    def matches(self, node, target):
        if self.targets is not None:
            return target in self.targets
        stack = node.meta.get("nn_module_stack") if node.op == "call_function" else None
        if not stack:
            return False
        for v in reversed(list(stack.values())):
            path = v[0] if isinstance(v, tuple) else v
            if path and any(re.search(p, path) for p in self.patterns):
                return True
        return False


def _target_names(targets):
    out = set()
    for t in targets:
        if isinstance(t, str):
            out.add(t)
        else:
            node = type("N", (), {"target": t})()
            out.add(_target_name(node))
    return frozenset(out)


class QuantRecipe:
    """quant_recipe.py QuantRecipe: a default strategy plus strategies by op target
    (add_node_target) and by module-stack regex (add_regex), each with a granularity and a
    priority (the highest wins; among equals the one added later)."""

    def __init__(self, quant_dtype, is_qat=False, act_observer=None, granularity=QuantGranularity.PER_TENSOR,
                 act_symmetric=False, note="", extra_kwargs=None, verbose=False):
        self.verbose = verbose
        self.custom_quant_annotations: Sequence[Callable] = []
        self._default = _Strategy(ModuleQConfig(quant_dtype, is_qat, act_observer=act_observer,
                                                act_symmetric=act_symmetric),
                                  QuantGranularity(granularity), dict(extra_kwargs or {}), note, 1)
        self._strategies = []

    def _add(self, quant_dtype, is_qat, act_observer, granularity, act_symmetric, note, priority, extra_kwargs,
             **match):
        self._strategies.append(_Strategy(
            ModuleQConfig(quant_dtype, is_qat, act_observer=act_observer, act_symmetric=act_symmetric),
            QuantGranularity(granularity), dict(extra_kwargs or {}), note, priority, **match))
        return self

    def add_node_target(self, targets, quant_dtype, is_qat, act_observer, granularity, act_symmetric=False,
                        note="", priority=1, extra_kwargs=None):
        return self._add(quant_dtype, is_qat, act_observer, granularity, act_symmetric, note, priority,
                         extra_kwargs, targets=_target_names(targets))

    def add_regex(self, regex, quant_dtype, is_qat, act_observer, granularity, act_symmetric=False, note="",
                  priority=1, extra_kwargs=None):
        patterns = (regex,) if isinstance(regex, str) else tuple(regex)
        return self._add(quant_dtype, is_qat, act_observer, granularity, act_symmetric, note, priority,
                         extra_kwargs, patterns=patterns)

    @classmethod
    def from_seed(cls, recipe):
        """The same recipe from ExecuTorch's QuantRecipe object (its default and its
        ByNodeTarget / ByNameRegex strategies, in the order added)."""
        ours = cls(recipe._default_quant_dtype, recipe._default_is_qat, recipe._default_act_observer,
                   recipe._default_granularity, recipe._default_act_symmetric, recipe._default_note,
                   recipe._default_extra_kwargs, recipe.verbose)
        ours.custom_quant_annotations = recipe.custom_quant_annotations
        for s in recipe._strategies:
            common = (s.quant_dtype, s.is_qat, s.act_observer, s.granularity, s.act_symmetric, s.note, s.priority,
                      s.extra_kwargs)
            if hasattr(s, "targets"):
                ours.add_node_target(s.targets, *common)
            else:
                ours.add_regex(s.patterns, *common)
        return ours

    def strategies(self):
        """By priority, the later added first among equals, then the default."""
        ranked = sorted(enumerate(self._strategies), key=lambda x: (x[1].priority, x[0]), reverse=True)
        return [s for _, s in ranked] + [self._default]

    def setting(self, node, target):
        for s in self.strategies():
            if s is self._default or s.matches(node, target):
                return _strategy_setting(s, target)
        return None


def _strategy_setting(s, target):
    granularity = _GRANULARITY[s.granularity]
    if target not in CONV_TARGETS | LINEAR_TARGETS | EMBEDDING_TARGETS:
        granularity = None  # the config's own default; nothing of the node depends on it
    block = s.extra_kwargs.get("block_size") if s.granularity == QuantGranularity.PER_BLOCK else None
    return NodeSetting(s.config.selection(target, granularity), tuple(block) if block else None,
                       s.config.act_observer, s.config.eps, s.config.is_qat)


def module_setting(config, target, block_size=None):
    """A ModuleQConfig's setting for one node (with the block-size map's entry, if any)."""
    if block_size is not None:
        return NodeSetting(config.selection(target, "per_block"), tuple(int(b) for b in block_size),
                           config.act_observer, config.eps, config.is_qat)
    return NodeSetting(config.selection(target), None, config.act_observer, config.eps, config.is_qat)


@dataclass
class Options:
    """Everything set through the seed's methods on one Quantizer."""

    default: Optional[ModuleQConfig] = None
    submodule_qconfig_list: list = field(default_factory=list)
    block_size_map: Dict[str, Tuple[int, ...]] = field(default_factory=dict)
    discard_nodes: set = field(default_factory=set)
    discard_ops: set = field(default_factory=set)
    custom_quant_annotations: Sequence[Callable] = ()
    recipe: Optional[QuantRecipe] = None

    def active(self):
        return bool(self.default is not None or self.submodule_qconfig_list or self.block_size_map
                    or self.discard_nodes or self.discard_ops or self.recipe is not None)


def node_settings(gm, options, base):
    """{node name: NodeSetting} for the call nodes of ``gm``; ``base`` is the default
    ModuleQConfig when none was set."""
    default = options.default or base
    out = {}
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        target = _target_name(node)
        if options.recipe is not None:
            out[node.name] = options.recipe.setting(node, target)
            continue
        config = default
        for predicate, qconfig in options.submodule_qconfig_list:
            if predicate(node):
                config = _as_module_qconfig(qconfig)
                break
        out[node.name] = module_setting(config, target, options.block_size_map.get(node.name))
    return out


def _as_module_qconfig(qconfig):
    if isinstance(qconfig, ModuleQConfig):
        return qconfig
    if isinstance(qconfig, str):
        return ModuleQConfig(qconfig)
    # The seed's ModuleQConfig: the same fields.
    return ModuleQConfig(**{k: getattr(qconfig, k) for k in ModuleQConfig.__dataclass_fields__})


def recipe_dict(settings, default_selection, options, names):
    """The engine recipe (docs/annotation.md) that gives each node its selection: one override
    per distinct setting, matching its nodes by exact name (one RE2 alternation)."""
    groups = {}
    for name, s in settings.items():
        if s is None or (s.selection == default_selection and s.block_size is None):
            continue
        groups.setdefault((s.selection, s.block_size), []).append(name)
    overrides = []
    for (selection, block), members in groups.items():
        o = {"name": "^(" + "|".join(re.escape(m) for m in members) + ")$", "config": selection, "priority": 1000}
        if block:
            o["block_size"] = [int(b) for b in block]
        overrides.append(o)
    recipe = {"version": 1, "default": default_selection}
    if overrides:
        recipe["overrides"] = overrides
    discard_nodes = sorted(options.discard_nodes)
    if discard_nodes:
        recipe["discard_nodes"] = discard_nodes
    if options.discard_ops:
        recipe["discard_ops"] = sorted(_target_names(options.discard_ops))
    return recipe
