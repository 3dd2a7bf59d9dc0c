"""The console scripts qnn-validate and qnn-rules of a wheel: each replaces this Python process
with the executable of the same name in qnnrules/bin/ (its exit code and output, unchanged), which
finds the reader modules beside the package's extension and the package's own rules.

A module of its own beside the qnnrules package, not inside it: importing qnnrules runs its
__init__, which loads the extension and its C++ libraries; from here the command starts after
the interpreter alone."""

import os
import sys


def _executable(name):
    """The package's executable, or (QNNRULES_VALIDATE_EXE) a build tree's qnn-validate."""
    override = os.environ.get("QNNRULES_VALIDATE_EXE") if name == "qnn-validate" else None
    return override or os.path.join(os.path.dirname(os.path.abspath(__file__)), "qnnrules", "bin", name)


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
