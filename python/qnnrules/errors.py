"""Exceptions raised by qnnrules: one hierarchy, each carrying the engine's diagnostics as values.

    Error                      base (also importable as QnnRulesError)
    ├── RuleError              rule files do not load (every error, with file:line)
    ├── ConfigError            unknown SoC, backend, backend option, quantization config; bad recipe
    ├── GraphError             a graph cannot be read (schema errors with their JSON pointer)
    ├── ValidationError        strict mode found violations
    └── AnnotationError        ports cannot be annotated as the config or recipe asks

All are ValueErrors too. They are plain Python (no extension needed), so code can catch them
without importing the engine; the extension raises them with a one-line summary and the list
of diagnostics. Field names match the reports': ``diagnostics`` (every one), ``errors`` and
``warnings`` (lists of that severity), ``error_count`` and ``warning_count``.
"""


class Error(ValueError):
    """Base class. ``diagnostics`` is the list of :class:`qnnrules.Diagnostic` behind it."""

    def __init__(self, summary, diagnostics=()):
        self.summary = summary
        self.diagnostics = list(diagnostics)
        # The message holds every diagnostic in the CLI's text form (node, port, rule id,
        # rule file:line, expected, actual, hint), not just "validation failed".
        blocks = [str(d).rstrip("\n") for d in self.diagnostics]
        super().__init__("\n".join([summary] + blocks))

    @property
    def errors(self):
        """The diagnostics of severity error (a list, as ``ValidationReport.errors``)."""
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self):
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def error_count(self):
        return len(self.errors)

    @property
    def warning_count(self):
        return len(self.warnings)


QnnRulesError = Error  # the base class under its earlier name


class RuleError(Error):
    """Rule files could not be loaded (``diagnostics`` has every error with file:line:column)."""


class ConfigError(Error):
    """A name or setting the caller chose is unknown or malformed: SoC, backend, backend option,
    quantization config or recipe. The message says what is known, with a did-you-mean."""


class GraphError(Error):
    """A graph could not be read: malformed JSON, schema errors (each with its JSON pointer), limits."""


class ValidationError(Error):
    """Strict mode found violations. ``diagnostics`` lists all of them, ``errors`` the errors."""


class AnnotationError(Error):
    """Ports could not be annotated as the config or recipe asked (see ``diagnostics``)."""
