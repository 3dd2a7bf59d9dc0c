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
"""

import contextlib
import importlib
import threading
import weakref

try:
    # import_module: the package torch.ao.quantization.fx exports a function named prepare,
    # which `import ... .fx.prepare as` would give instead of the module.
    _fx_prepare = importlib.import_module("torch.ao.quantization.fx.prepare")
    from torchao.quantization.pt2e import quantize_pt2e as _quantize_pt2e
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

_lock = threading.Lock()
_depth = 0
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


def _supported():
    return all(callable(f) for f in _ORIGINALS.values())


@contextlib.contextmanager
def linear_observer_naming():
    """Within the block, torch's observer insertion names observers and finds the model's
    device in linear time (see the module docstring). Nested and concurrent blocks share one
    replacement; the originals come back when the last one ends. On a torch without these
    functions it changes nothing."""
    global _depth
    if not _supported():
        yield
        return
    with _lock:
        if _depth == 0:
            for name, replacement in _REPLACEMENTS.items():
                setattr(_fx_prepare, name, replacement)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for name, original in _ORIGINALS.items():
                    setattr(_fx_prepare, name, original)
                _starts.clear()
                _devices.clear()


def prepare_pt2e(model, quantizer):
    """torchao's prepare_pt2e(model, quantizer), observers named in linear time."""
    with linear_observer_naming():
        return _quantize_pt2e.prepare_pt2e(model, quantizer)


def prepare_qat_pt2e(model, quantizer):
    """torchao's prepare_qat_pt2e(model, quantizer), observers named in linear time."""
    with linear_observer_naming():
        return _quantize_pt2e.prepare_qat_pt2e(model, quantizer)
