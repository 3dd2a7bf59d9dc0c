"""The console scripts qnn-validate and qnn-rules of a wheel: each replaces this Python process
with the executable of the same name in qnnrules/bin/ (its exit code and output, unchanged), which
finds the reader modules beside the package's extension and the package's own rules.

A module of its own beside the qnnrules package, not inside it: importing qnnrules runs its
__init__, which loads the extension and its C++ libraries; from here the command starts after
the interpreter alone."""

import os
import sys


def _exec(name):
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "qnnrules", "bin", name)
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
