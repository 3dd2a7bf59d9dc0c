#!/usr/bin/env python3
"""Adds a constraint kind to the engine, as docs/adding-a-constraint-kind.md describes.

    tools/scaffold/add_constraint_kind.py KEY --code DIAG [--root DIR] [--dry-run]

KEY is the YAML key of a variant's port constraint, in snake_case (`max_bits`); its unit is
named from it (`MaxBits.cpp`, `kMaxBitsConstraint`). DIAG is the diagnostic code a violation
reports, by name (`bitwidth`) or enumerator (`kBitwidth`). It creates and changes:

  engine/src/validate/constraints/<Name>.cpp      the unit: parse, check, sentence, summary (TODOs)
  engine/src/validate/constraints/ConstraintKindsList.h   its declaration
  engine/src/validate/constraints/ConstraintKinds.cpp     its entry at the end of kBuiltinKinds
  tests/unit/<Name>ConstraintKindTest.cpp         loader tests, and one that fails until written
  docs/rule-format.md                             its row in "Port constraints"
  docs/schemas/rules.schema.json                  the key, and its place in `recommended`

Nothing is written when any check fails (a bad or taken key, an existing file, a tree whose
registration points it does not recognise): exit 2 and what is wrong.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scaffold_common import Plan, ScaffoldError, check_root, main_guard, parser, read  # noqa: E402

PROG = "add_constraint_kind"
KINDS_DIR = "engine/src/validate/constraints"
LIST_H = f"{KINDS_DIR}/ConstraintKindsList.h"
TABLE_CPP = f"{KINDS_DIR}/ConstraintKinds.cpp"
KIND_H = f"{KINDS_DIR}/ConstraintKind.h"
DIAG_DEF = "engine/include/qnnrules/core/DiagCodes.def"
DIAG_H = "engine/include/qnnrules/core/Diagnostic.h"
RULE_FORMAT = "docs/rule-format.md"
SCHEMA = "docs/schemas/rules.schema.json"
KEY_RE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
# Keys of a port constraint that are not kinds.
RESERVED = {"recommended"}


def camel(key):
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))


def existing_keys(root):
    keys = set()
    for name in sorted(os.listdir(os.path.join(root, KINDS_DIR))):
        if name.endswith(".cpp"):
            keys.update(re.findall(r'\.key\s*=\s*"([^"]+)"', read(root, f"{KINDS_DIR}/{name}")))
    return keys


def diag_codes(root):
    """{name: enumerator} of every diagnostic code, from DiagCodes.def or Diagnostic.h's enum."""
    if os.path.exists(os.path.join(root, DIAG_DEF)):
        text = read(root, DIAG_DEF)
        return dict((n, e) for e, n in re.findall(r'QNNRULES_DIAG\((k\w+),\s*\d+,\s*"([a-z0-9-]+)"', text))
    text = read(root, DIAG_H)
    m = re.search(r"enum class DiagCode[^{]*\{(.*?)\};", text, re.S)
    if not m:
        raise ScaffoldError(f"cannot find the diagnostic codes (neither {DIAG_DEF} nor DiagCode in {DIAG_H})")
    enums = re.findall(r"\b(k[A-Z]\w*)", m.group(1))
    # Without the .def list, a code's name is its enumerator in kebab case (kArchGate: arch-gate).
    return {re.sub(r"(?<!^)([A-Z])", r"-\1", e[1:]).lower(): e for e in enums}


def resolve_code(root, code):
    codes = diag_codes(root)
    if code in codes:
        return codes[code]
    if code in codes.values():
        return code
    raise ScaffoldError(f"unknown diagnostic code '{code}'; one of: {', '.join(sorted(codes))} "
                        f"(a new kind of violation adds a code to {DIAG_DEF} first)")


def register_declaration(text, symbol, name):
    decls = list(re.finditer(r"^extern const ConstraintKind k\w+Constraint;[^\n]*\n", text, re.M))
    if not decls:
        raise ScaffoldError(f"cannot find the kinds' declarations (extern const ConstraintKind ...) in {LIST_H}")
    at = decls[-1].end()
    line = f"extern const ConstraintKind {symbol};"
    line = f"{line:<51}// {name}.cpp\n"
    return text[:at] + line + text[at:]


def register_entry(text, symbol, mask_bits):
    m = re.search(r"(constexpr std::array<const ConstraintKind\*,\s*)(\d+)(>\s*kBuiltinKinds\s*=\s*\{)(.*?)(\n?\};)",
                  text, re.S)
    if not m:
        raise ScaffoldError(f"cannot find the table kBuiltinKinds (constexpr std::array<const ConstraintKind*, N>) in {TABLE_CPP}")
    size, body = int(m.group(2)), m.group(4)
    entries = re.findall(r"&k\w+Constraint", body)
    if len(entries) != size:
        raise ScaffoldError(f"kBuiltinKinds in {TABLE_CPP} says {size} kinds and lists {len(entries)}")
    if size + 1 > mask_bits:
        raise ScaffoldError(f"the kind table is full: KindMask has {mask_bits} bits, one per kind ({KIND_H})")
    body = body.rstrip() + f"\n    &{symbol},"
    return text[:m.start()] + m.group(1) + str(size + 1) + m.group(3) + body + m.group(5) + text[m.end():]


def mask_bits(root):
    m = re.search(r"using KindMask = uint(\d+)_t;", read(root, KIND_H))
    if not m:
        raise ScaffoldError(f"cannot find KindMask's width in {KIND_H}")
    return int(m.group(1))


def doc_row(text, key, name):
    m = re.search(r"^\| `recommended` \|", text, re.M)
    if not m or "### Port constraints" not in text[:m.start()]:
        raise ScaffoldError(f"cannot find the `recommended` row of the \"Port constraints\" table in {RULE_FORMAT}")
    row = (f"| `{key}` | int | TODO: what `{key}: N` requires of the port "
           f"(`engine/src/validate/constraints/{name}.cpp`) |\n")
    return text[:m.start()] + row + text[m.start():]


def schema_entry(text, key):
    anchor = re.search(r'^( *)"recommended": \{', text, re.M)
    if not anchor:
        raise ScaffoldError(f"cannot find the port constraint's \"recommended\" in {SCHEMA}")
    pad = anchor.group(1)
    prop = f'{pad}"{key}": {{\n{pad}  "description": "TODO: what {key} requires of the port",\n{pad}  "type": "integer"\n{pad}}},\n'
    text = text[:anchor.start()] + prop + text[anchor.start():]
    enum = re.search(r'("items": \{ "enum": \["encoding"[^\]]*)\]', text[anchor.start():])
    if not enum:
        raise ScaffoldError(f"cannot find the keys `recommended` may name in {SCHEMA}")
    at = anchor.start() + enum.end(1)
    text = text[:at] + f', "{key}"' + text[at:]
    try:
        json.loads(text)
    except ValueError as e:
        raise ScaffoldError(f"adding {key} to {SCHEMA} would not leave valid JSON ({e})") from None
    return text


KIND_CPP = """\
// {key}: TODO: one sentence saying what a port with `{key}: N` requires of its tensor.
// Generated by tools/scaffold/add_constraint_kind.py (docs/adding-a-constraint-kind.md): fill
// in the TODOs, then the tests of tests/unit/{name}ConstraintKindTest.cpp. The value lives in
// PortConstraint::kindValues (an integer here); a typed field of PortConstraint is for a value
// another layer must read by name (then RuleCacheFields.h too, and kFormatVersion bumped).
#include "ConstraintKindsList.h"

namespace qnnrules {{
namespace {{

// The kind's index in constraintKinds(), the `kind` of its KindValue.
uint16_t index() {{
  static const uint16_t i = static_cast<uint16_t>(kindIndex("{key}"));
  return i;
}}

// The port's value, or null when the port does not use the kind.
const KindValue* value(const PortConstraint& c) {{ return c.valueOf(index()); }}

void parse(const ConstraintParse& p, const strictyaml::Entry& e, const std::string& what, PortConstraint& c) {{
  // TODO: the values {key} takes (here an integer from 0 to 64); errors name file:line:column.
  if (auto n = p.reader.integer(e.value, what, 0, 64)) c.kindValues.push_back({{index(), *n, 0, ""}});
}}

bool active(const PortConstraint& c) {{ return value(c) != nullptr; }}

bool violated(const PortConstraint& c, const BoundTensor& t, const ConstraintCheck& /*env*/) {{
  const KindValue* v = value(c);
  // TODO: true when `t` breaks `{key}: v->integer`. Keep it to comparisons: a fact of the
  // tensor that costs more is computed once per tensor in BoundTensor (computeFacts).
  if (v == nullptr || !t.type.quantized) return false;
  return false;
}}

std::string sentence(const Rule& r, int port, const PortConstraint& c) {{
  // TODO: the sentence a violation reports and the docs list under the rule's table.
  return r.ports[port].name + " must meet {key} " + std::to_string(value(c)->integer) + ".";
}}

void explain(const Rule& r, const Variant& /*v*/, const PortConstraint& c, const BoundTensor& t, Diagnostic& d) {{
  d.message = sentence(r, t.port, c);
  d.expected = "{key} " + std::to_string(value(c)->integer);
  d.actual = actualOf(t);
  d.hint = "TODO: how to quantize " + portName(r, t) + " to meet it";
}}

std::string summary(const Rule& /*r*/, const PortConstraint& c) {{
  const KindValue* v = value(c);
  return v ? "{key} " + std::to_string(v->integer) : std::string();
}}

std::string docNote(const Rule& r, const Variant& /*v*/, int port, const PortConstraint& c) {{
  return active(c) ? sentence(r, port, c) : std::string();
}}

// TODO, optional: `admits` (the annotator must not write what the kind refuses), and `mutate`
// (with `satisfy` when the mutation suite's solver would not meet it by chance) so that
// RuleMutationTest covers the kind; see ConstraintKind.h.

}}  // namespace

const ConstraintKind {symbol} = {{
    .key = "{key}",
    .code = DiagCode::{code},
    .parse = parse,
    .active = active,
    .violated = violated,
    .explain = explain,
    .summary = summary,
    .docNote = docNote,
}};

}}  // namespace qnnrules
"""

TEST_CPP = """\
// The constraint kind `{key}` (engine/src/validate/constraints/{name}.cpp): generated by
// tools/scaffold/add_constraint_kind.py with the loader's tests; `Violation` fails until the
// kind's check and its tests are written (docs/adding-a-constraint-kind.md, step 5).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "TestHardware.h"
#include "qnnrules/load/RuleLoader.h"
#include "validate/constraints/ConstraintKind.h"

namespace qnnrules {{
namespace {{

// A one-rule file whose input port says `{key}: VALUE` (line 13).
std::string ruleWith(const std::string& value) {{
  return "version: 1\\n"
         "rules:\\n"
         "  - id: t.relu\\n"
         "    targets: [aten.relu.default]\\n"
         "    qnn_op: Relu\\n"
         "    pattern: siso\\n"
         "    description: Relu lowers to QNN Relu.\\n"
         "    inputs: [{{name: input}}]\\n"
         "    outputs: [{{name: output}}]\\n"
         "    variants:\\n"
         "      - name: a8\\n"
         "        ports:\\n"
         "          input: {{dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET, {key}: " + value + "}}\\n"
         "          output: {{dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}}\\n";
}}

TEST({name}ConstraintKindTest, IsATableKind) {{ EXPECT_GE(kindIndex("{key}"), 0); }}

TEST({name}ConstraintKindTest, LoadsItsValue) {{
  std::vector<Rule> rules;
  DiagnosticList errors;
  loadRuleText(ruleWith("3"), "t.yaml", rules, errors, {{}}, testing::gatedBy("htp"));
  ASSERT_TRUE(errors.empty()) << formatText(errors.front());
  ASSERT_EQ(rules.size(), 1u);
  const KindValue* v = rules[0].variants[0].ports[0].valueOf(static_cast<uint16_t>(kindIndex("{key}")));
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->integer, 3);
}}

TEST({name}ConstraintKindTest, BadValueNamesFileAndLine) {{
  std::vector<Rule> rules;
  DiagnosticList errors;
  loadRuleText(ruleWith("[1, 2]"), "t.yaml", rules, errors, {{}}, testing::gatedBy("htp"));
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front().mark.toString().rfind("t.yaml:13:", 0), 0u) << formatText(errors.front());
}}

TEST({name}ConstraintKindTest, Violation) {{
  // TODO: a graph whose port breaks `{key}` gets DiagCode::{code} naming the port, and one
  // that meets it is valid (see the validator tests, e.g. tests/unit/ValidatorTest.cpp).
  GTEST_FAIL() << "write the validator tests of the constraint kind '{key}' ({name}.cpp)";
}}

}}  // namespace
}}  // namespace qnnrules
"""


def run():
    p = parser(PROG, __doc__)
    p.add_argument("key", metavar="KEY", help="the YAML key of the new port constraint, snake_case (max_bits)")
    p.add_argument("--code", required=True, help="the diagnostic code a violation reports (bitwidth, or kBitwidth)")
    a = p.parse_args()
    root = os.path.abspath(a.root)
    check_root(root, [LIST_H, TABLE_CPP, KIND_H, RULE_FORMAT, SCHEMA])
    key = a.key
    if not KEY_RE.match(key) or len(key) > 40:
        raise ScaffoldError(f"'{key}' is not a constraint key: snake_case (lower-case letters, digits, "
                            "single underscores, a letter first), at most 40 characters, e.g. max_bits")
    if key in RESERVED or key in existing_keys(root):
        raise ScaffoldError(f"'{key}' is already a key of a port constraint")
    name = camel(key)
    symbol = f"k{name}Constraint"
    unit = f"{KINDS_DIR}/{name}.cpp"
    taken = {n.lower() for n in os.listdir(os.path.join(root, KINDS_DIR))}
    if f"{name}.cpp".lower() in taken or f"{name}.h".lower() in taken:
        raise ScaffoldError(f"{unit} (or a file of that name in another case) already exists; not overwriting it")
    list_h = read(root, LIST_H)
    if re.search(rf"\b{symbol}\b", list_h):
        raise ScaffoldError(f"{symbol} is already declared in {LIST_H}")
    code = resolve_code(root, a.code)

    plan = Plan(root)
    plan.create(unit, KIND_CPP.format(key=key, name=name, symbol=symbol, code=code))
    plan.change(LIST_H, register_declaration(list_h, symbol, name))
    plan.change(TABLE_CPP, register_entry(read(root, TABLE_CPP), symbol, mask_bits(root)))
    plan.create(f"tests/unit/{name}ConstraintKindTest.cpp", TEST_CPP.format(key=key, name=name, code=code))
    plan.change(RULE_FORMAT, doc_row(read(root, RULE_FORMAT), key, name))
    plan.change(SCHEMA, schema_entry(read(root, SCHEMA), key))
    plan.apply(a.dry_run, f"fill in the TODOs of {unit}, the test Violation of "
                          f"tests/unit/{name}ConstraintKindTest.cpp and the rows of {RULE_FORMAT} and {SCHEMA}; "
                          "then build, run the unit tests and regenerate the docs (qnn-rules docs); "
                          "see docs/adding-a-constraint-kind.md")


if __name__ == "__main__":
    main_guard(PROG, run)
