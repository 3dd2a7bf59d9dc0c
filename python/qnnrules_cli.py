"""The console scripts qnn-validate and qnn-rules of a wheel: each replaces this Python process
with the executable of the same name in qnnrules/bin/ (its exit code and output, unchanged), which
finds the reader modules beside the package's extension and the package's own rules.

A module of its own beside the qnnrules package, not inside it: importing qnnrules runs its
__init__, which loads the extension and its C++ libraries; from here the command starts after
the interpreter alone.

The qnnrules-cli wheel (packaging/cli/, any CPython >= 3.9: keep this file to 3.9's syntax)
installs this same file as qnnrules_cli/__init__.py, in a package that holds the commands
(qnnrules_cli/bin/), the reader modules and the rules, and no extension; there it runs
qnnrules_cli/bin/<name>. `python -m qnnrules_cli [rules] ARGS` runs qnn-validate (qnn-rules)
from either wheel."""

import os
import sys


def _bin_dir():
    """qnnrules/bin beside this module (the qnnrules wheel), or this package's own bin/ when this
    file is qnnrules_cli/__init__.py (the qnnrules-cli wheel: only a package has __path__)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "bin") if "__path__" in globals() else os.path.join(here, "qnnrules", "bin")


def _executable(name):
    """The package's executable, or (QNNRULES_VALIDATE_EXE) a build tree's qnn-validate."""
    override = os.environ.get("QNNRULES_VALIDATE_EXE") if name == "qnn-validate" else None
    return override or os.path.join(_bin_dir(), name)


def _exec(name):
    exe = _executable(name)
    if not os.access(exe, os.X_OK):
        sys.exit(f"{name}: {exe} is missing: this qnnrules package was not installed from a wheel "
                 f"(pip install .); in a build tree the command is build/tools/{name}/{name}")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [name, *sys.argv[1:]])


def qnn_validate():
    _exec("qnn-validate")


def qnn_rules():
    _exec("qnn-rules")


# What pre-commit passes a hook: its `args`, then the staged files that match its `files`.
_GRAPH_SUFFIXES = (".onnx", ".pt2")


def qnn_validate_files(argv=None):
    """pre-commit's entry: qnn-validate with the given options on each .onnx / .pt2 file given
    (one run per file, as qnn-validate takes one graph). Exits with the worst exit code: 2 (a file
    it cannot read, a usage error) over 1 (violations in strict mode) over 0."""
    import subprocess
    args = sys.argv[1:] if argv is None else list(argv)
    files = [a for a in args if a.endswith(_GRAPH_SUFFIXES) and os.path.isfile(a)]
    options = [a for a in args if a not in files]
    exe = _executable("qnn-validate")
    worst = 0
    for f in files:
        sys.stdout.flush()
        code = subprocess.run([exe, f, *options], check=False).returncode
        worst = max(worst, code if code in (0, 1, 2) else 2)
    sys.exit(worst)


def main():
    """`python -m qnnrules_cli ARGS` runs qnn-validate ARGS; `python -m qnnrules_cli rules ARGS`
    runs qnn-rules ARGS (as `python -m qnnrules` does in the qnnrules wheel)."""
    if sys.argv[1:2] == ["rules"]:
        del sys.argv[1]
        qnn_rules()
    else:
        qnn_validate()


if __name__ == "__main__":
    main()
