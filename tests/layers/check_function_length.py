#!/usr/bin/env python3
"""No engine function over 100 lines (issue 35), except those docs/architecture.md names in its
"Long functions" list, each with why. Reads every .cpp and .h under engine/ (standard library
only): a definition is a body that a namespace or class scope opens after a head with a '(' (not
an initializer; an extern "C" function is a function), at any indentation, its signature on one line or
several, a member function defined in its class included; its length is the line count from its
head's first line to its closing brace. Fails (exit 1) on a function over the limit that the list does not name,
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


def code_lines(path):
    """The file's lines with comments, string and char literals and raw strings blanked."""
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = [l.rstrip("\n") for l in f]
    # The text of raw string literals (a page's script, R"js(...)js") is blanked, not read as code.
    lines, end, block = [], None, False
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
        l = strip(l)
        if block:  # inside /* ... */
            if "*/" not in l:
                lines.append("")
                continue
            l, block = l.split("*/", 1)[1], False
        l = re.sub(r"/\*.*?\*/", " ", l)
        if "/*" in l:
            l, block = l.split("/*", 1)[0], True
        lines.append(l)
    return lines


SCOPE = re.compile(r"^(?:template\s*<.*>\s*)?(namespace|extern|class|struct|union|enum)\b\s*([A-Za-z_]\w*)?")


def functions(path):
    """[(name, first line, length)] of the definitions of one file: every body a namespace or a
    class opens whose head (the text since the last ';', '{' or '}' of that scope) has a '(' —
    functions at any indentation, signatures over several lines, member functions defined in
    their class (named Class::member) — from its head's first line to its closing brace."""
    lines = code_lines(path)
    out = []
    # Scope stack: (kind, name, first line, function name); kinds: scope (namespace/extern),
    # class, function, block (any brace inside a function, or an initializer).
    stack = [("scope", "", 0, "")]
    head, head_line = "", None
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("#"):
            continue
        for ch in line:
            if ch == "{":
                kind = stack[-1][0]
                text = " ".join(head.split())
                if kind in ("function", "block"):
                    stack.append(("block", "", number, ""))
                else:
                    scope = SCOPE.match(text)
                    if scope and "(" not in text:  # a function returning `struct X` has one
                        is_class = scope.group(1) in ("class", "struct", "union", "enum")
                        stack.append(("class" if is_class else "scope", scope.group(2) or "", number, ""))
                    elif "(" in text and not text.rstrip().endswith("="):  # not an initializer
                        named = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", text)  # extern "C" entry points
                        m = NAME.search(named.split("(")[0] + "(")
                        name = m.group(1) if m else text[:40]
                        owner = stack[-1][1] if kind == "class" and "::" not in name else ""
                        stack.append(("function", "", head_line or number, f"{owner}::{name}" if owner else name))
                    else:
                        stack.append(("block", "", number, ""))
                head, head_line = "", None
            elif ch == "}":
                if len(stack) > 1:
                    kind, _, first, name = stack.pop()
                    if kind == "function":
                        out.append((name, first, number - first + 1))
                head, head_line = "", None
            elif ch == ";" and stack[-1][0] in ("scope", "class"):
                head, head_line = "", None
            elif ch == ":" and stack[-1][0] == "class" and head.strip() in ("public", "protected", "private"):
                head, head_line = "", None  # an access specifier ends, the next member's head starts
            else:
                if ch.strip() and head_line is None:
                    head_line = number
                head += ch
        head += " "
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
