"""torchao's prepare_pt2e / prepare_qat_pt2e with linear-time observer naming (issue 22).

    prepared = qnnrules.torch.prepare_pt2e(gm, quantizer)   # same arguments, same result

torchao inserts each observer through torch's ``_insert_obs_or_fq``
(torch/ao/quantization/fx/prepare.py), which names it with ``get_new_attr_name_with_prefix``:
``activation_post_process_0, 1, ...`` probed from 0 with ``hasattr`` on every insertion, so N
observers cost N^2/2 failed attribute look-ups (each one raises and formats an AttributeError
in nn.Module.__getattr__). It also asks ``assert_and_get_unique_device``, which walks every
parameter and buffer of the model, observers included, on each input observer. On a 28-layer
decoder that is most of prepare_pt2e.

No Quantizer hook runs around observer insertion (``prepare_obs_or_fq_callback`` runs before
it and has nothing to end it), so a Quantizer cannot change the naming without leaving a patch
on torch behind it. These functions run torchao's own prepare_pt2e with both lookups replaced,
for the length of the call, by versions that return the same answers: the naming resumes each
model's probe where the previous one stopped (names are only added during prepare, so every
index below it is still taken; it is probed again, so even a caller that did not use a name
gets the one torch would give), and the device of a model, once found, is kept for the call.
The prepared module is the same (same observer names, classes and graph:
tests/python/test_quantizer_prepare.py); benchmarks/quantizer_pt2e.py measures the difference.

QAT of a CNN with BatchNorm (issue 34): torchao's conv + batch_norm fusion (prepare_qat_pt2e)
and fold (convert_pt2e) trace their patterns with torch.export for each of conv1d, conv2d,
conv_transpose1d and conv_transpose2d, 3 patterns each to fuse and 24 each to fold: 96
exports in one convert_pt2e, nearly all of its time (resnet18: 96 of 98 s on a quiet
machine), whatever the graph holds. Within ``prepare_qat_pt2e`` here and ``convert_pt2e`` (pt2e_convert), a
conv function none of whose ops is in the graph is not traced: its patterns contain that op,
so they cannot match, and the graph gets what torchao's helper does with no match (dead code
removed; the fold's dequantize nodes merged per quantize node). A 2-D CNN pays for conv2d
only; the result is the same graph (tests/python/test_quantizer_qat.py). The patterns traced
are kept for the process: a second model (or quantizer) converts without tracing them again.
"""

import contextlib
import importlib
import threading
import weakref

try:
    # import_module: the package torch.ao.quantization.fx exports a function named prepare,
    # which `import ... .fx.prepare as` would give instead of the module.
    import torch
    _fx_prepare = importlib.import_module("torch.ao.quantization.fx.prepare")
    from torchao.quantization.pt2e import qat_utils as _qat_utils
    from torchao.quantization.pt2e import quantize_pt2e as _quantize_pt2e
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from ._fx import _target_name

# Per model (weakly held): prefix -> the index the next probe starts at; the model's device.
_starts = weakref.WeakKeyDictionary()
_devices = weakref.WeakKeyDictionary()


def _get_new_attr_name_with_prefix(prefix):
    prefix = prefix.replace(".", "_")

    def get_new_attr_name(module):
        starts = _starts.setdefault(module, {})
        i = starts.get(prefix, 0)
        while hasattr(module, prefix + str(i)):
            i += 1
        starts[prefix] = i
        return prefix + str(i)
    return get_new_attr_name


def _assert_and_get_unique_device(module):
    device = _devices.get(module)
    if device is None:
        device = _ORIGINALS["assert_and_get_unique_device"](module)
        if device is not None:  # a module with no tensor yet has none; ask again next time
            _devices[module] = device
    return device


_REPLACEMENTS = {"get_new_attr_name_with_prefix": _get_new_attr_name_with_prefix,
                 "assert_and_get_unique_device": _assert_and_get_unique_device}


_ORIGINALS = {name: getattr(_fx_prepare, name, None) for name in _REPLACEMENTS}


class _Patch:
    """Replacements of a module's functions that nested and concurrent blocks share: installed
    when the first block starts, the originals back when the last one ends (then ``on_end``).
    Where an original is missing (another torch or torchao), it changes nothing."""

    def __init__(self, module, replacements, originals, on_end=None):
        self.module, self.replacements, self.originals, self.on_end = module, replacements, originals, on_end
        self.depth = 0
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def __call__(self):
        if not all(callable(f) for f in self.originals.values()):
            yield
            return
        with self.lock:
            if self.depth == 0:
                for name, replacement in self.replacements.items():
                    setattr(self.module, name, replacement)
            self.depth += 1
        try:
            yield
        finally:
            with self.lock:
                self.depth -= 1
                if self.depth == 0:
                    for name, original in self.originals.items():
                        setattr(self.module, name, original)
                    if self.on_end is not None:
                        self.on_end()


def _forget_models():
    _starts.clear()
    _devices.clear()


_naming_patch = _Patch(_fx_prepare, _REPLACEMENTS, _ORIGINALS, _forget_models)


def linear_observer_naming():
    """Within the block (a context manager), torch's observer insertion names observers and
    finds the model's device in linear time (see the module docstring). Nested and concurrent
    blocks share one replacement; the originals come back when the last one ends. On a torch
    without these functions it changes nothing."""
    return _naming_patch()


# --- conv + batch_norm patterns of absent convs ------------------------------------------------

def _has_conv_of(model, conv_fn):
    """Whether ``model`` has a node of ``conv_fn``'s family (aten.conv2d.* for F.conv2d, or
    the generic aten.convolution an older export could trace it to)."""
    prefixes = (f"aten.{conv_fn.__name__}.", "aten.convolution.", "aten._convolution.")
    return any(n.op == "call_function" and _target_name(n).startswith(prefixes) for n in model.graph.nodes)


def _fuse_helper(m, conv_fn, example_inputs, is_cuda):
    if _has_conv_of(m, conv_fn):
        return _ORIGINAL_HELPERS["_fuse_conv_bn_qat_helper"](m, conv_fn, example_inputs, is_cuda)
    m.graph.eliminate_dead_code()  # what the helper does when nothing matches
    m.recompile()
    for n in m.graph.nodes:
        _qat_utils._update_special_qspecs_after_replacement(n, {})
    return m


def _fold_helper(m, conv_fn, example_inputs, is_cuda):
    if _has_conv_of(m, conv_fn):
        return _ORIGINAL_HELPERS["_fold_conv_bn_qat_helper"](m, conv_fn, example_inputs, is_cuda)
    m.graph.eliminate_dead_code()  # what the helper does when nothing matches
    m.recompile()
    _qat_utils._duplicate_dequantize_node(m)
    m.recompile()
    _qat_utils._remove_extra_dequantize(m)
    m.graph.eliminate_dead_code()
    m.recompile()
    return m


_patterns = {}  # the traced patterns, by what determines them (see _pattern_key)


def _pattern_key(pattern, example_inputs, is_cuda, kwargs):
    """What a pattern's trace depends on: its function's code and closure (torchao builds each
    pattern as a closure over conv_fn and flags), the example inputs' and kwargs' shapes and
    dtypes, the device; None (not cached) for anything else."""
    fn = getattr(pattern, "fn", None)
    if fn is None or not hasattr(fn, "__code__"):
        return None

    def spec(v):
        return ("tensor", tuple(v.shape), v.dtype) if isinstance(v, torch.Tensor) else v

    try:
        key = (fn.__code__, tuple(c.cell_contents for c in fn.__closure__ or ()),
               tuple(spec(t) for t in example_inputs), bool(is_cuda),
               tuple(sorted((k, spec(v)) for k, v in kwargs.items())))
        hash(key)
    except (TypeError, ValueError):
        return None
    return key


def _traced_pattern(pattern, example_inputs, is_cuda=False, **kwargs):
    """torchao's _get_aten_graph_module_for_pattern, each pattern traced once per process: the
    subgraph rewriter only reads the pattern and replacement graphs (it copies the
    replacement's nodes), so one trace serves every model."""
    key = _pattern_key(pattern, example_inputs, is_cuda, kwargs)
    if key is None:
        return _ORIGINAL_HELPERS["_get_aten_graph_module_for_pattern"](pattern, example_inputs, is_cuda, **kwargs)
    with _patterns_lock:
        traced = _patterns.get(key)
    if traced is None:
        traced = _ORIGINAL_HELPERS["_get_aten_graph_module_for_pattern"](pattern, example_inputs, is_cuda, **kwargs)
        with _patterns_lock:
            traced = _patterns.setdefault(key, traced)
    return traced


_HELPERS = {"_fuse_conv_bn_qat_helper": _fuse_helper, "_fold_conv_bn_qat_helper": _fold_helper,
            "_get_aten_graph_module_for_pattern": _traced_pattern}
_ORIGINAL_HELPERS = {name: getattr(_qat_utils, name, None) for name in _HELPERS}
_patterns_lock = threading.Lock()


_conv_patch = _Patch(_qat_utils, _HELPERS, _ORIGINAL_HELPERS)


def present_convs_only():
    """Within the block (a context manager), torchao's conv + batch_norm fusion and fold trace
    only the patterns of conv functions the graph uses, once per process (see the module
    docstring). Nested and concurrent blocks share one replacement; on a torchao without these
    helpers it changes nothing."""
    return _conv_patch()


def prepare_pt2e(model, quantizer):
    """torchao's prepare_pt2e(model, quantizer), observers named in linear time."""
    with linear_observer_naming():
        return _quantize_pt2e.prepare_pt2e(model, quantizer)


def prepare_qat_pt2e(model, quantizer):
    """torchao's prepare_qat_pt2e(model, quantizer), observers named in linear time, conv +
    batch_norm fused with the patterns of the graph's convs only."""
    with linear_observer_naming(), present_convs_only():
        return _quantize_pt2e.prepare_qat_pt2e(model, quantizer)

