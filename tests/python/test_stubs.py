"""The typed stubs shipped with the package (qnnrules/_qnnrules.pyi, py.typed) declare exactly
the extension's classes and members, with the extension's parameter names, and the package
version is the CMake project's."""

import ast
import re
from pathlib import Path

import qnnrules
from qnnrules import _qnnrules

PACKAGE = Path(qnnrules.__file__).parent
ROOT = Path(__file__).resolve().parents[2]


def stub_classes():
    tree = ast.parse((PACKAGE / "_qnnrules.pyi").read_text())
    classes = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members[item.name] = [a.arg for a in item.args.args if a.arg != "self"]
                elif isinstance(item, ast.AnnAssign):
                    members[item.target.id] = None
            classes[node.name] = members
    return classes


def pybind_params(fn):
    """Parameter names from pybind11's signature line: 'name(self: T, a: U = 1) -> R'."""
    first = (fn.__doc__ or "").strip().splitlines()[0]
    inner = first[first.index("(") + 1:first.rindex(")")]
    names = re.findall(r"(?:^|, )(\w+):", inner)
    return [n for n in names if n != "self"]


def test_stubs_declare_every_class_and_member_with_its_parameters():
    stubs = stub_classes()
    public = {n for n in dir(_qnnrules) if not n.startswith("_") and isinstance(getattr(_qnnrules, n), type)}
    assert set(stubs) == public
    for name, members in stubs.items():
        cls = getattr(_qnnrules, name)
        real = {m for m in vars(cls) if not m.startswith("_")}
        real |= {m for m in ("__init__", "__len__")
                 if m in vars(cls) and (vars(cls)[m].__doc__ or "").startswith(m + "(")}  # bound by pybind11
        declared = set(members)
        assert declared == real, name
        for member, params in members.items():
            if params is None or isinstance(vars(cls)[member], property):
                continue
            fn = getattr(cls, member)
            if isinstance(vars(cls)[member], staticmethod):
                fn = vars(cls)[member].__func__
            if member == "__len__":
                continue
            assert params == pybind_params(fn), f"{name}.{member}"


def test_package_is_marked_typed_and_versioned():
    assert (PACKAGE / "py.typed").is_file()
    version = re.search(r"project\(qnnrules VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert qnnrules.__version__ == version
