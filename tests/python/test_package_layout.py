"""The layout of the Python package python/qnnrules (issue 35): its modules import one another
without a cycle (counting the imports inside functions, which only defer one), and no module
is longer than 400 lines. Read from the source tree with ast, without importing anything."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "qnnrules"
MAX_LINES = 400


def package_modules():
    return {p.stem: p for p in sorted(PACKAGE.glob("*.py"))}


def imported_modules(path, modules):
    """The package's modules that ``path`` imports, anywhere in it: ``from . import x``,
    ``from .x import y``, ``import qnnrules.x``, ``from qnnrules import x``."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            relative = node.level == 1
            absolute = node.level == 0 and (node.module or "").split(".")[0] == "qnnrules"
            if not (relative or absolute):
                continue
            parts = (node.module or "").split(".")
            if absolute:
                parts = parts[1:]
            if parts and parts[0]:
                out.add(parts[0])
            else:  # from . import a, b / from qnnrules import a, b
                out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "qnnrules" and len(parts) > 1:
                    out.add(parts[1])
    return {m for m in out if m in modules and m != path.stem}


def import_graph():
    modules = package_modules()
    return {name: imported_modules(path, modules) for name, path in modules.items()}


def find_cycle(graph):
    """One import cycle as a list of module names (first == last), or None."""
    state = {}  # name -> 1 on the current path, 2 done
    path = []

    def visit(m):
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle_and_accepts_a_dag():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_import_reader_sees_every_form_of_import(tmp_path):
    modules = {"a": None, "b": None, "c": None, "d": None, "e": None}
    src = tmp_path / "x.py"
    src.write_text("from . import a\nfrom .b import f\nimport qnnrules.c\n"
                   "def g():\n    from qnnrules import d\n    from qnnrules.e import h\n"
                   "import os\nfrom torch import fx\n")
    assert imported_modules(src, modules) == {"a", "b", "c", "d", "e"}


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert graph["torch"] and graph["pt2e"], graph  # the reader sees the front end's imports
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_fx_helpers_are_the_bottom_of_the_torch_front_end():
    graph = import_graph()
    assert graph["_fx"] <= {"_requires"}, graph["_fx"]
    for module in ("fx_reader", "pt2e_observers", "pt2e_options", "pt2e_specs", "pt2e_graph", "pt2e"):
        assert "torch" not in graph[module], f"{module} imports qnnrules.torch (the facade)"


def test_no_module_is_longer_than_400_lines():
    long = {name: n for name, path in package_modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long
