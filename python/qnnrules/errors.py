"""Exceptions raised by qnnrules. Each carries the engine's diagnostics as values.

They are plain Python (no extension needed), so code can catch them without importing the
engine; the extension raises them with a one-line summary and the list of diagnostics.
"""


class QnnRulesError(Exception):
    """Base class. ``diagnostics`` is the list of :class:`qnnrules.Diagnostic` behind it."""

    def __init__(self, summary, diagnostics=()):
        self.summary = summary
        self.diagnostics = list(diagnostics)
        # The message holds every diagnostic in the CLI's text form (node, port, rule id,
        # rule file:line, expected, actual, hint), not just "validation failed".
        blocks = [str(d).rstrip("\n") for d in self.diagnostics]
        super().__init__("\n".join([summary] + blocks))


class ValidationError(QnnRulesError, ValueError):
    """Strict mode found violations. ``diagnostics`` lists all of them."""

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]


class AnnotationError(QnnRulesError, ValueError):
    """Ports could not be annotated as the config or recipe asked (see ``diagnostics``)."""


class GraphError(QnnRulesError, ValueError):
    """A graph could not be read: malformed JSON, schema errors (each with its JSON pointer), limits."""


class RuleError(QnnRulesError, ValueError):
    """Rules could not be loaded, or the backend / SoC / configuration is unknown."""


class ConfigError(RuleError):
    """A quantization config selection or recipe is unknown or malformed (a RuleError, as before)."""


Error = QnnRulesError  # the base class under its short name (qnnrules.Error)
