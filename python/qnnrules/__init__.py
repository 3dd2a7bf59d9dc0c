"""qnnrules: can this quantized graph run on a QNN backend (HTP, LPAI, GPU) on this SoC, and if not, why?

    import qnnrules
    engine = qnnrules.Engine(backend="htp", soc="SM8650", strict=True)
    graph = qnnrules.Graph.from_file("model.json")     # or qnnrules.torch.from_fx(gm)
    engine.validate(graph)                             # raises qnnrules.ValidationError listing every violation

Same rules, same engine and same results as the qnn-validate CLI. See docs/embedding.md.
"""

import os as _os

from . import _location
from ._qnnrules import (AnnotationReport, DelegationReport, Diagnostic, Graph, OrtOverrides, RecipeSuggestion,
                        RunReport, ValidationReport)
from ._qnnrules import Engine as _CoreEngine
from ._version import __version__
from .builder import GraphBuilder, Ref
from .errors import AnnotationError, ConfigError, Error, GraphError, QnnRulesError, RuleError, ValidationError
from .log import log_level, set_log_level

__all__ = [
    "__version__", "AnnotationError", "AnnotationReport", "ConfigError", "DelegationReport", "Diagnostic", "Engine",
    "Error", "Graph", "GraphBuilder", "GraphError", "OrtOverrides", "QnnRulesError", "RecipeSuggestion", "Ref",
    "RuleError", "RunReport", "ValidationError",
    "ValidationReport", "log_level", "set_log_level",
]


def _installed_rules_dir():
    """The rules installed with this package (a wheel's qnnrules/rules, or the share/ directory
    of the same `cmake --install` prefix), or None to let the engine discover them
    ($QNNRULES_BUILTIN_RULES, the install location, the source tree it was built from)."""
    if _os.environ.get("QNNRULES_BUILTIN_RULES") or _location.RULES_DIR_RELATIVE is None:
        return None
    d = _os.path.normpath(_os.path.join(_os.path.dirname(__file__), _location.RULES_DIR_RELATIVE))
    if not _os.path.isdir(d):  # never fall back to another copy of the rules
        raise RuleError(f"the rules installed with the qnnrules package are missing: {d} (reinstall the package)")
    return d


class Engine(_CoreEngine):
    """Rules of one backend for one SoC, loaded once.

    Engine(backend=None, soc=None, strict=True, rules=(), use_environment=True,
           builtin_rules_dir=None, backend_options=None, require_full_delegation=None, lowering=None)

    ``backend``: None opens the backend whose manifest says ``default: true`` (htp in the bundled
    rules); :attr:`backend` then names it.
    ``soc``: None checks the reference quantizer's default (SM8750), and reports say so.
    ``rules``: overlay directories searched after $QNNRULES_PATH (``use_environment``); a rule
    whose id exists replaces it, a new id adds an op. ``backend_options``: {name: value} or
    ["name=value", ...] (values typed: int, bool or the choice's name), checked against the
    backend's option table. ``lowering``: the lowering path the graph is judged for ("ort-qnn",
    "executorch"; None: the graph's default, ONNX -> ort-qnn, else executorch). Raises :class:`RuleError` with every error when rules do not load,
    :class:`ConfigError` (with a did-you-mean) for an unknown backend, SoC or option.
    """

    def __init__(self, backend=None, soc=None, strict=True, rules=(), use_environment=True,
                 builtin_rules_dir=None, backend_options=None, require_full_delegation=None, lowering=None):
        if builtin_rules_dir is None:
            builtin_rules_dir = _installed_rules_dir()
        if isinstance(backend_options, dict):
            backend_options = [f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                               for k, v in backend_options.items()]
        super().__init__(backend=backend, soc=soc, strict=strict, rules=[_os.fspath(r) for r in rules],
                         use_environment=use_environment, builtin_rules_dir=builtin_rules_dir,
                         backend_options=list(backend_options or ()),
                         require_full_delegation=require_full_delegation, lowering=lowering)
