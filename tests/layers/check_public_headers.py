"""The installed C++ headers are the engine's public face: exactly the headers the front ends
(tools/, python/src/, examples/, the find_package consumer tests/package/) include, and what those include in turn. The list is
engine/PublicHeaders.cmake (what `cmake --install` copies); every other header under
engine/include stays in the build tree. Standard library only.

  python3 tests/layers/check_public_headers.py [--root REPO] [--print]

Exit 0 when the list is that closure, 1 with what differs, 2 on bad input. --print writes the
list the file should hold.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"(qnnrules/[^"]+)"', re.M)
LISTED = re.compile(r"^\s*(qnnrules/\S+\.(?:h|def))\s*$", re.M)
FRONT_ENDS = ["tools", "python/src", "examples", "tests/package"]


def includes(path):
    with open(path, encoding="utf-8") as f:
        return INCLUDE.findall(f.read())


def closure(root):
    """The headers the front ends include, with everything they include."""
    include_dir = os.path.join(root, "engine", "include")
    todo = []
    for front in FRONT_ENDS:
        for folder, _, files in os.walk(os.path.join(root, front)):
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
        print(f"engine/PublicHeaders.cmake: {h} is included by a front end (or a public header) but not installed")
    for h in sorted(have - want):
        print(f"engine/PublicHeaders.cmake: {h} is installed but no front end needs it: keep it internal")
    print(f"{len(have)} public header(s), {len(want)} needed")
    return 0 if want == have else 1


if __name__ == "__main__":
    sys.exit(main())
