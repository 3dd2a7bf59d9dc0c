"""The engine's folders are layers (docs/architecture.md, "Layers"). Standard library only.

  python3 tests/layers/check_layers.py [--root ENGINE_DIR] [--backends DIR]

Two checks, each printed with file:line:

1. Includes. A file includes only headers of its own folder or of a folder below it. Reads every
   .h/.cpp under ENGINE_DIR/include/qnnrules, ENGINE_DIR/src and the backends folder (default:
   ENGINE_DIR/../backends, when it exists) and resolves each #include "..." relative to the file,
   then to include/, then to src/ (the engine's two include roots). Files directly in
   include/qnnrules or src (the Engine) are the top layer; every file of backends/ is the layer
   backends.

2. Declarations and definitions. A concept's declaration and definition live in one layer: every
   function a header of a layer (include/qnnrules/<folder>/, src/<folder>/, backends/) declares
   without defining it (a free function, or a member function of a class the header defines) is
   defined in that layer's sources (src/<folder>/, any depth; src/*.cpp and src/*.h for the top
   layer; backends/ for backends) or in the header itself. Headers
   are read with a brace-and-parenthesis scanner (comments, literals and preprocessor lines
   blanked), not a C++ parser: a function is a declaration at namespace or class scope whose name
   is followed by its parameter list, with no '=' before it (a variable) and no '= default',
   '= delete' or '= 0' after it; templates are skipped (defined in their headers). A definition is
   the name (Class::name for a member) followed by its parameters, qualifiers and '{' (or a
   constructor's ':'). EXCEPTIONS names the declarations defined elsewhere on purpose, each with
   why; one that no longer needs its exception is reported too.

Exit 0 when there is no problem, 1 otherwise, 2 on bad input.
"""
import argparse
import os
import re
import sys

# Lowest first. core: status, diagnostics, JSON writing, limits; yaml: the strict YAML reader;
# graph: the graph and its encodings; model: rules, SoCs, manifests, configs, lowering paths as
# values; backends (the top-level backends/ folder): the delegation policies a manifest's
# `delegation` facts describe, which implement model/DelegationPolicy.h and include only model/
# and below; facts: what the passes read about one graph bound to a rule set, built once;
# validate; annotate; passes: folds and rewrites on a graph; delegate: partitioning; load: every
# loader, the registry, the rule cache; io: graph readers and writers; report: renderers of
# pieces; pipeline: the run report and its renderers; then the Engine.
ORDER = ["core", "yaml", "graph", "model", "backends", "facts", "validate", "annotate", "passes", "delegate", "load",
         "io", "report", "pipeline"]
TOP = "(engine)"
BACKENDS = "backends"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# Declarations defined outside their layer on purpose: (header relative to include/qnnrules or to
# the backends folder, qualified name) -> why.
EXCEPTIONS = {
    ("model/DelegationPolicy.h", "makeDelegationPolicy"):
        "the one plug-in point of backends/: RuleSet (model) asks for a manifest's policy through this "
        "declaration and backends/BackendPolicies.cpp, a layer above model (it includes model/), "
        "defines it; defining it in model/ would make model include backends/",
}


# ---------------------------------------------------------------------------------------------
# 1. Includes


def roots_of(engine, backends):
    """[(directory, fixed layer or None)]: a fixed layer names every file below the directory."""
    roots = [(os.path.join(engine, "include", "qnnrules"), None), (os.path.join(engine, "src"), None)]
    if backends and os.path.isdir(backends):
        roots.append((backends, BACKENDS))
    return roots


def layer_of(path, roots):
    for root, fixed in roots:
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            if fixed:
                return fixed
            parts = rel.split(os.sep)
            return parts[0] if len(parts) > 1 else TOP
    return None


def sources(roots):
    """Every .h/.cpp below the roots, in a stable order."""
    for root, _ in roots:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".h", ".cpp")):
                    yield os.path.join(folder, name)


def check_includes(engine, roots):
    include, src = os.path.join(engine, "include"), os.path.join(engine, "src")
    rank = {name: i for i, name in enumerate(ORDER + [TOP])}
    problems = []
    for path in sources(roots):
        folder = os.path.dirname(path)
        layer = layer_of(path, roots)
        if layer not in rank:
            problems.append(f"{path}: folder '{layer}' is not a layer (known: {', '.join(ORDER)})")
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                for base in (folder, include, src):
                    target = os.path.normpath(os.path.join(base, m.group(1)))
                    if os.path.exists(target):
                        break
                else:
                    continue  # a third-party or generated header
                other = layer_of(target, roots)
                if other in rank and rank[other] > rank[layer]:
                    problems.append(f"{path}:{number}: {layer} includes {m.group(1)} of the higher layer {other}")
    return problems


# ---------------------------------------------------------------------------------------------
# 2. Declarations and definitions


def blank(text):
    """The code of a C++ file with comments, string and character literals and preprocessor lines
    replaced by spaces (newlines kept, so that an offset keeps its line)."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            j = text.find(")" + m.group(1) + '"', i + m.end())
            j = n if j < 0 else j + len(m.group(1)) + 2
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):  # not a digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def matching(code, i, open_, close):
    """The index of the bracket closing code[i], or len(code)."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == open_:
            depth += 1
        elif code[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return len(code)


KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "noexcept", "alignas",
            "static_assert", "catch", "void", "int", "bool", "char", "double", "float", "long", "short", "unsigned",
            "signed", "auto", "const", "constexpr", "new", "delete", "throw", "typeid", "requires", "explicit",
            "static_cast", "const_cast", "reinterpret_cast", "dynamic_cast"}
OPERATOR = re.compile(r"\boperator\s*(\(\s*\)|\[\s*\]|[^\w\s(]+|[\w:]+(?:\s*[*&]+)?)\s*(?=\()")


def operator_word(m):
    """An operator's name as one identifier ("operator==" -> "operator_61__61_"), so that the
    scanners read it as a name and no '<' or '>' of it as a template bracket."""
    symbol = re.sub(r"\s+", "", m.group(1))
    return "operator_" + "".join(c if c.isalnum() else f"_{ord(c)}_" for c in symbol) + " "


def readable(name):
    """A name as the source spells it (operator_61__61_ -> operator==)."""
    return re.sub(r"operator_(\w+)", lambda m: "operator" + re.sub(r"_(\d+)_", lambda d: chr(int(d.group(1))),
                                                                     m.group(1)), name)
ACCESS = re.compile(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+")
ATTRIBUTE = re.compile(r"\[\[.*?\]\]")


def without_templates(text):
    """`text` with its <...> argument lists removed (innermost first), operators kept."""
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"(?<=\w)\s*<[^<>;{}]*>", "", text)
    return text


def scope_of(head):
    """What a '{' opens, from the text before it: ('namespace',), ('class', name), ('enum',), or
    ('body',) (a function body, an initializer, a lambda: nothing declared inside counts)."""
    head = ATTRIBUTE.sub(" ", ACCESS.sub("", head)).strip()
    if "(" in without_templates(head) or "=" in head:
        return ("body",)
    if re.search(r"\bnamespace\b", head) or re.match(r"extern\s*$", head):
        return ("namespace",)
    if re.search(r"\benum\b", head):
        return ("enum",)
    m = re.search(r"\b(?:class|struct|union)\s+(\w+)(?:\s+final)?\s*(?::[^:].*)?$", head, re.S)
    if m and not head.startswith("template"):
        return ("class", m.group(1))
    if m:  # a class template: its members are defined in the header
        return ("template",)
    if re.search(r"\b(?:class|struct|union)\s*$", head):
        return ("class", None)
    return ("body",)


def function_name(statement, cls):
    """The name a declaration statement declares a function by ("name", or "operator==" ...), or
    None when it is not a function declaration (a variable, a type, a using, a pointer to a
    function, a template...)."""
    s = ATTRIBUTE.sub(" ", ACCESS.sub("", statement)).strip()
    if not s or re.match(r"(using|typedef|friend|static_assert|template|extern\s+template|return)\b", s):
        return None
    s = without_templates(OPERATOR.sub(operator_word, s))
    m = re.search(r"(~?[A-Za-z_]\w*)\s*\(", s)
    if not m or "=" in s[:m.start()]:
        return None
    name, before = m.group(1), s[:m.start()].strip()
    close = matching(s, m.end() - 1, "(", ")")
    after = s[close + 1:]
    if name in KEYWORDS or re.match(r"\s*[*&]", s[m.end():]) or re.search(r"=\s*(default|delete|0)\s*$", after):
        return None
    if not before or before.endswith("::"):  # no return type: a constructor, a destructor, or a macro
        if not (cls and name.lstrip("~") == cls) and not name.startswith("operator_"):
            return None
    return name


def declarations(text):
    """[(qualified name, line)] of the functions a header declares without defining them."""
    code = blank(text)
    found, stack, start, i = [], [("namespace",)], 0, 0
    while i < len(code):
        c = code[i]
        if c == "(":
            i = matching(code, i, "(", ")") + 1
            continue
        if c == "{":
            scope = scope_of(code[start:i])
            if scope[0] in ("body", "enum", "template"):
                i = matching(code, i, "{", "}") + 1
                start = i
                continue
            stack.append(scope)
            start = i + 1
        elif c == "}":
            if len(stack) > 1:
                stack.pop()
            start = i + 1
        elif c == ";":
            scope = stack[-1]
            if scope[0] in ("namespace", "class"):
                cls = scope[1] if scope[0] == "class" else None
                name = function_name(code[start:i], cls)
                if name and not (scope[0] == "class" and cls is None):
                    offset = start + len(code[start:i]) - len(code[start:i].lstrip())
                    found.append((f"{cls}::{name}" if cls else name, code.count("\n", 0, offset) + 1))
            start = i + 1
        i += 1
    return found


DEFINITION_TAIL = re.compile(r"\s*(?:const|noexcept(?:\s*\([^()]*\))?|override|final|mutable|&&|&|volatile|\s)*"
                             r"(?:->[^;{}]*)?(\{|:(?!:)|try\b|=\s*default\b)")


def definitions(text):
    """The names a file defines functions by: each bare name, and Class::name for a member."""
    code = blank(text)
    code = OPERATOR.sub(operator_word, code)
    names = set()
    for m in re.finditer(r"(?:\b(\w+)\s*(?:<[^<>;{}()]*>)?\s*::\s*)?(~?\b[A-Za-z_]\w*)\s*\(", code):
        close = matching(code, m.end() - 1, "(", ")")
        tail = DEFINITION_TAIL.match(code, close + 1)
        if not tail or m.group(2) in KEYWORDS:
            continue
        if tail.group(1) == ":" and not m.group(1):
            continue  # a ':' after a free function's parameters is a label or a conditional, not a body
        name = m.group(2)
        names.add(name)
        if m.group(1):
            names.add(f"{m.group(1)}::{name}")
    return names


def sources_of_layer(layer, engine, backends):
    """The files where a layer's functions may be defined."""
    if layer == BACKENDS:
        return [os.path.join(backends, f) for f in sorted(os.listdir(backends)) if f.endswith((".h", ".cpp"))]
    src = os.path.join(engine, "src")
    if layer == TOP:
        return [os.path.join(src, f) for f in sorted(os.listdir(src)) if f.endswith((".h", ".cpp"))]
    out = []
    for folder, dirs, files in os.walk(os.path.join(src, layer)):
        dirs.sort()
        out += [os.path.join(folder, f) for f in sorted(files) if f.endswith((".h", ".cpp"))]
    return out


def check_definitions(engine, backends, roots):
    include = os.path.join(engine, "include", "qnnrules")
    headers = [p for p in sources(roots) if p.endswith(".h")]
    cache = {}

    def defined(path):
        if path not in cache:
            with open(path, encoding="utf-8") as f:
                cache[path] = definitions(f.read())
        return cache[path]

    everywhere = None
    problems, used = [], set()
    for header in headers:
        layer = layer_of(header, roots)
        base = next(root for root, _ in roots if not os.path.relpath(header, root).startswith(".."))
        key_base = os.path.relpath(header, base).replace(os.sep, "/")
        with open(header, encoding="utf-8") as f:
            declared = declarations(f.read())
        if not declared:
            continue
        local = set(defined(header))
        for path in sources_of_layer(layer, engine, backends):
            local |= defined(path)
        for name, line in declared:
            if name in local:
                continue
            key = (key_base, name)
            if key in EXCEPTIONS:
                used.add(key)
                continue
            if everywhere is None:
                everywhere = [p for p in sources(roots) if not p.startswith(include + os.sep)]
            where = [p for p in everywhere if name in defined(p)]
            shown = readable(name)
            if where:
                at = ", ".join(f"{os.path.relpath(p, os.path.dirname(engine))} ({layer_of(p, roots)})" for p in where)
                problems.append(f"{header}:{line}: {shown} is declared in the layer {layer} but defined in {at}: "
                                f"move the definition to the layer's sources, or the declaration to the layer "
                                f"that defines it")
            else:
                problems.append(f"{header}:{line}: {shown} is declared in the layer {layer} but defined nowhere in "
                                f"its sources: define it there, or drop the declaration")
    for key in sorted(set(EXCEPTIONS) - used):
        problems.append(f"check_layers.py: the exception for {key[1]} ({key[0]}) is no longer needed: take it off")
    return problems


def check(engine, backends=None):
    if backends is None:
        backends = os.path.join(os.path.dirname(os.path.abspath(engine)), "backends")
    roots = roots_of(engine, backends)
    if not all(os.path.isdir(r) for r, _ in roots[:2]):
        raise FileNotFoundError(f"{engine} has no include/qnnrules and src")
    return check_includes(engine, roots) + check_definitions(engine, backends, roots)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "engine"))
    ap.add_argument("--backends", default=None, help="the backends folder (default: ROOT/../backends)")
    a = ap.parse_args()
    try:
        problems = check(os.path.normpath(a.root), a.backends and os.path.normpath(a.backends))
    except (OSError, UnicodeDecodeError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s) against the layer order: {' < '.join(ORDER)} < {TOP}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
