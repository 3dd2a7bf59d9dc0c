"""The engine's log level (spdlog): what rule loading and annotation say on stderr.

The level starts at SPDLOG_LEVEL when set (as for the qnn-validate and qnn-rules CLIs), else
"warn"; ``qnnrules.set_log_level("debug")`` changes it for the whole process.
"""

from . import _qnnrules
from .errors import ConfigError

LEVELS = ("trace", "debug", "info", "warn", "error", "critical", "off")


def set_log_level(level: str) -> None:
    """Sets the engine's log level: one of trace, debug, info, warn, error, critical, off
    (case-insensitive). An unknown name raises :class:`ConfigError` with a suggestion."""
    name = str(level).lower()
    if name == "warning":
        name = "warn"
    if name not in LEVELS:
        import difflib
        near = difflib.get_close_matches(name, LEVELS, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        raise ConfigError(f"unknown log level '{level}'{hint} (one of: {', '.join(LEVELS)})")
    _qnnrules._set_log_level(name)


def log_level() -> str:
    """The engine's current log level name."""
    return _qnnrules._log_level()
