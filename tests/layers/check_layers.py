"""The engine's folders are layers: a file includes only headers of its own folder or of a folder
below it (docs/architecture.md, "Layers"). Standard library only.

  python3 tests/layers/check_layers.py [--root ENGINE_DIR]

Reads every .h/.cpp under ENGINE_DIR/include/qnnrules and ENGINE_DIR/src, resolves each
#include "..." (relative to the file, then to include/), and prints every include that points
to a higher folder, with file:line. Exit 0 when there is none, 1 otherwise, 2 on bad input.
Files directly in include/qnnrules or src (the Engine) are the top layer.
"""
import argparse
import os
import re
import sys

# Lowest first. core: status, diagnostics, JSON writing, limits; yaml: the strict YAML reader;
# graph: the graph and its encodings; model: rules, SoCs, manifests, configs, lowering paths as
# values; facts: what the passes read about one graph bound to a rule set, built once; validate;
# annotate; passes: folds and rewrites on a graph; delegate: partitioning; load: every loader, the registry, the rule cache; io: graph readers and writers; report:
# renderers of pieces; pipeline: the run report and its renderers; then the Engine.
ORDER = ["core", "yaml", "graph", "model", "facts", "validate", "annotate", "passes", "delegate", "load", "io", "report",
         "pipeline"]
TOP = "(engine)"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path, roots):
    for root in roots:
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            parts = rel.split(os.sep)
            return parts[0] if len(parts) > 1 else TOP
    return None


def check(engine):
    include = os.path.join(engine, "include")
    roots = [os.path.join(include, "qnnrules"), os.path.join(engine, "src")]
    if not all(os.path.isdir(r) for r in roots):
        raise FileNotFoundError(f"{engine} has no include/qnnrules and src")
    rank = {name: i for i, name in enumerate(ORDER + [TOP])}
    problems = []
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(folder, name)
                layer = layer_of(path, roots)
                if layer not in rank:
                    problems.append(f"{path}: folder '{layer}' is not a layer (known: {', '.join(ORDER)})")
                    continue
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = os.path.normpath(os.path.join(folder, m.group(1)))
                        if not os.path.exists(target):
                            target = os.path.normpath(os.path.join(include, m.group(1)))
                        if not os.path.exists(target):
                            continue  # a third-party or generated header
                        other = layer_of(target, roots)
                        if other in rank and rank[other] > rank[layer]:
                            problems.append(f"{path}:{number}: {layer} includes {m.group(1)} of the higher layer {other}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "engine"))
    a = ap.parse_args()
    try:
        problems = check(os.path.normpath(a.root))
    except (OSError, UnicodeDecodeError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    print(f"{len(problems)} include(s) against the layer order: {' < '.join(ORDER)} < {TOP}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
