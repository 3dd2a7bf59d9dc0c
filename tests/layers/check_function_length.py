#!/usr/bin/env python3
"""No engine function over 100 lines (issue 35), except those docs/architecture.md names in its
"Long functions" list, each with why. Reads every .cpp and .h under engine/ (standard library
only): a definition starts at a line at column 0 that opens a body ('{' at its end, a '(' before
it; not a namespace, class, struct, enum or union) and ends where its braces close; its length is
that span's line count. Fails (exit 1) on a function over the limit that the list does not name,
and on a name the list keeps for a function that is no longer over it (the list only shrinks).

    python3 tests/layers/check_function_length.py [--root DIR] [--list]
"""
import argparse
import os
import re
import sys

LIMIT = 100
DOC = os.path.join("docs", "architecture.md")
HEADER = "### Long functions"
NOT_FUNCTIONS = re.compile(r"^(namespace|class|struct|enum|union|extern|template\s*<[^>]*>\s*(class|struct))\b")
NAME = re.compile(r"([A-Za-z_][\w:~<>]*)\s*\(")


def strip(line):
    """The line without // comments and string or char literals (their braces do not count)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def functions(path):
    """[(name, first line, length)] of the top-level definitions of one file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = [l.rstrip("\n") for l in f]
    # The text of raw string literals (a page's script, R"js(...)js") is blanked, not read as code.
    lines, end = [], None
    for l in raw:
        if end is not None:
            if end in l:
                l, end = l.split(end, 1)[1], None
            else:
                lines.append("")
                continue
        m = re.search(r'R"([^(\s]*)\(', l)
        if m and (')' + m.group(1) + '"') not in l[m.end():]:
            end = ')' + m.group(1) + '"'
            l = l[:m.start()]
        lines.append(strip(l))
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        head = line.strip()
        if (line[:1].strip() and head.endswith("{") and "(" in head and not NOT_FUNCTIONS.match(head)
                and not head.startswith(("#", "}", "static_assert"))):
            # The signature may start on an earlier line (a return type alone on its line).
            sig = head if "(" in head.split("{")[0] else ""
            m = NAME.search(sig.split("(")[0] + "(") if sig else None
            name = m.group(1) if m else head[:40]
            depth, j = 0, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0:
                    break
                j += 1
            out.append((name, i + 1, j - i + 1))
            i = j + 1
            continue
        i += 1
    return out


def listed(root):
    """{"file:function"} of the list in docs/architecture.md."""
    names, inside = set(), False
    with open(os.path.join(root, DOC), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                inside = line.strip() == HEADER
                continue
            if inside and line.startswith("- "):
                names.update(re.findall(r"`(engine/[^`:]+:[^`]+)`", line.split(" — ")[0]))
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--list", action="store_true", help="print every function over the limit")
    a = ap.parse_args()
    long = {}
    for base, _, files in os.walk(os.path.join(a.root, "engine")):
        for f in sorted(files):
            if f.endswith((".cpp", ".h")):
                path = os.path.join(base, f)
                rel = os.path.relpath(path, a.root)
                for name, line, n in functions(path):
                    if n > LIMIT:
                        long[f"{rel}:{name}"] = (line, n)
    if a.list:
        for k, (line, n) in sorted(long.items(), key=lambda kv: -kv[1][1]):
            print(f"{n:5d}  {k} (line {line})")
    known = listed(a.root)
    bad = [f"{k} is {n} lines (line {line}), over {LIMIT}: split it, or name it in {DOC} '{HEADER}' with why"
           for k, (line, n) in sorted(long.items()) if k not in known]
    stale = [f"{k} is listed in {DOC} '{HEADER}' but no longer over {LIMIT} lines: take it off the list"
             for k in sorted(known - set(long))]
    for m in bad + stale:
        print("check_function_length: " + m, file=sys.stderr)
    print(f"check_function_length: {len(long)} function(s) over {LIMIT} lines, {len(known)} listed")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
