"""The installed C++ headers are the engine's public face: exactly the headers an embedder
includes, and what those include in turn. An embedder is what builds against the installed CMake
package: the find_package consumer tests/package/ (what it includes is the embedding API: the
Engine, the graph reader and writer, the run report's renderers, in-memory recipes) and the
examples/. The list is engine/PublicHeaders.cmake (what `cmake --install` copies); every other
header under engine/include stays in the build tree, and at most MAX_INSTALLED are installed.

The in-tree front ends, tools/ and python/src/, are not embedders: they are built from the
source tree with the engine (pip builds the Python extension from source too), so they may
include any engine header (the registry, the rule table, the passes) without making it public.
Standard library only.

  python3 tests/layers/check_public_headers.py [--root REPO] [--print]

Exit 0 when the list is that closure and not over MAX_INSTALLED, 1 with what differs, 2 on bad
input. --print writes the list the file should hold.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"(qnnrules/[^"]+)"', re.M)
LISTED = re.compile(r"^\s*(qnnrules/\S+\.(?:h|def))\s*$", re.M)
EMBEDDERS = ["examples", "tests/package"]
MAX_INSTALLED = 30


def includes(path):
    with open(path, encoding="utf-8") as f:
        return INCLUDE.findall(f.read())


def closure(root):
    """The headers the embedders include, with everything they include."""
    include_dir = os.path.join(root, "engine", "include")
    todo = []
    for embedder in EMBEDDERS:
        for folder, _, files in os.walk(os.path.join(root, embedder)):
            for name in files:
                if name.endswith((".h", ".cpp", ".cc")):
                    todo += includes(os.path.join(folder, name))
    seen = set()
    while todo:
        header = todo.pop()
        if header in seen:
            continue
        path = os.path.join(include_dir, header)
        if not os.path.exists(path):
            continue  # a generated or third-party header
        seen.add(header)
        todo += includes(path)
    return seen


def listed(root):
    with open(os.path.join(root, "engine", "PublicHeaders.cmake"), encoding="utf-8") as f:
        return set(LISTED.findall(f.read()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--print", action="store_true", help="print the list the file should hold")
    a = ap.parse_args()
    root = os.path.normpath(a.root)
    try:
        want = closure(root)
        if a.print:
            print("\n".join(sorted(want)))
            return 0
        have = listed(root)
    except (OSError, UnicodeDecodeError) as e:
        print(f"check_public_headers: {e}", file=sys.stderr)
        return 2
    for h in sorted(want - have):
        print(f"engine/PublicHeaders.cmake: {h} is included by an embedder (or a public header) but not installed")
    for h in sorted(have - want):
        print(f"engine/PublicHeaders.cmake: {h} is installed but no embedder needs it: keep it internal")
    too_many = len(have) > MAX_INSTALLED
    if too_many:
        print(f"engine/PublicHeaders.cmake: {len(have)} headers installed, more than {MAX_INSTALLED}: "
              "keep what the public headers name by reference only behind forward declarations")
    print(f"{len(have)} public header(s), {len(want)} needed, at most {MAX_INSTALLED}")
    return 0 if want == have and not too_many else 1


if __name__ == "__main__":
    sys.exit(main())
