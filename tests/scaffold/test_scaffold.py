#!/usr/bin/env python3
"""The generators of tools/scaffold/, each run on a temporary copy of the checkout and its
result checked by the tools that read it, so a generator that stops matching the engine or the
rule format fails here:

- add_constraint_kind.py: the unit compiles (-fsyntax-only, the engine's include roots), its
  registration is in place (a probe that includes ConstraintKinds.cpp and asserts the kind is in
  kBuiltinKinds; the same probe fails on the tree without the registration), the generated
  unit test compiles, the docs row and the schema key are there.
- add_backend.py: `qnn-rules lint` checks the new backend clean, `qnn-validate --backend NAME
  --list-rules` lists its rule and a graph validates against it; a typo in a generated file is
  reported at its file:line; a new hardware column reaches the SoCs named.
- add_lowering_path.py: `qnn-validate --lowering NAME` accepts the path (it refused the name
  before), and a typo in the file is reported at its file:line.
- every generator: exit 2 with a message, and the tree unchanged, on a bad name, an existing
  file or a bad option; a second run refuses to overwrite.

Standard library only (Debian's /usr/bin/python3). Arguments (CTest passes them):
  --validate PATH   qnn-validate      --rules-tool PATH   qnn-rules      --cxx PATH   C++ compiler
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCAFFOLD = os.path.join(SOURCE, "tools", "scaffold")
ARGS = None

# A graph of one uint8 ReLU (the generated backend's example op).
RELU_GRAPH = {
    "format": "qnnrules-graph", "version": 1, "name": "g", "nodes": [
        {"name": "x", "kind": "input", "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": {
            "dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine",
            "scale": 0.02, "zero_point": 0}}]},
        {"name": "relu", "kind": "call", "target": "aten.relu.default", "args": [{"ref": "x", "qspec": {
            "dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine",
            "scale": 0.02, "zero_point": 0}}],
         "outputs": [{"dtype": "float32", "shape": [1, 8], "qspec": {
             "dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine",
             "scale": 0.02, "zero_point": 0}}]},
        {"name": "output", "kind": "output", "args": [[{"ref": "relu"}]]}]}


def tree_digest(root):
    """A digest of every file under root (names and contents): a refused run must not change it."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            h.update(os.path.relpath(p, root).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


class Checkout(unittest.TestCase):
    """A temporary copy of the parts of the checkout the generators edit and the tools read."""

    PARTS = ["rules", "engine/include", "engine/src", "docs/rule-format.md", "docs/schemas"]

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="qnnrules-scaffold-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.root = os.path.join(self.tmp, "checkout")
        for part in self.PARTS:
            src, dst = os.path.join(SOURCE, part), os.path.join(self.root, part)
            if os.path.isdir(src):
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
        os.makedirs(os.path.join(self.root, "tests", "unit"))
        self.graph = os.path.join(self.tmp, "relu.json")
        with open(self.graph, "w") as f:
            json.dump(RELU_GRAPH, f)

    def path(self, rel):
        return os.path.join(self.root, rel)

    def read(self, rel):
        with open(self.path(rel), encoding="utf-8") as f:
            return f.read()

    def write(self, rel, text):
        with open(self.path(rel), "w", encoding="utf-8") as f:
            f.write(text)

    def generate(self, script, *args):
        return subprocess.run([sys.executable, os.path.join(SCAFFOLD, script), "--root", self.root, *args],
                              capture_output=True, text=True, timeout=60)

    def assertRefused(self, script, *args, says):
        """The generator exits 2 with `says` in its message and leaves the tree as it was."""
        before = tree_digest(self.root)
        r = self.generate(script, *args)
        self.assertEqual(r.returncode, 2, f"{script} {args}: {r.stdout}{r.stderr}")
        self.assertIn(says, r.stderr)
        self.assertTrue(r.stderr.startswith(script[:-3] + ": error: "), r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(tree_digest(self.root), before, f"{script} {args} changed the tree")

    def tool(self, exe, *args):
        # The copy's rules are the built-in ones; no overlay of the environment, no rule cache.
        env = dict(os.environ, QNNRULES_BUILTIN_RULES=self.path("rules"), QNNRULES_PATH="", QNNRULES_CACHE="0")
        return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=120)

    def validate(self, *args):
        return self.tool(ARGS.validate, *args)

    def lint(self):
        return self.tool(ARGS.rules_tool, "lint")


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


class ConstraintKindTest(Checkout):
    KEY, NAME = "max_groups", "MaxGroups"
    UNIT = "engine/src/validate/constraints/MaxGroups.cpp"
    LIST_H = "engine/src/validate/constraints/ConstraintKindsList.h"
    TABLE = "engine/src/validate/constraints/ConstraintKinds.cpp"
    TEST = "tests/unit/MaxGroupsConstraintKindTest.cpp"

    def compile(self, source, *extra):
        cmd = [ARGS.cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra",
               "-I", self.path("engine/include"), "-I", self.path("engine/src"), *extra, source]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    def probe(self):
        """Compiles a unit that includes the table and asserts the kind is one of its entries."""
        probe = os.path.join(self.tmp, "probe.cpp")
        with open(probe, "w") as f:
            f.write('#include "validate/constraints/ConstraintKinds.cpp"\n'
                    "namespace qnnrules {\n"
                    "consteval bool scaffoldRegistered() {\n"
                    "  for (const ConstraintKind* k : kBuiltinKinds)\n"
                    f"    if (k == &k{self.NAME}Constraint) return true;\n"
                    "  return false;\n"
                    "}\n"
                    f'static_assert(scaffoldRegistered(), "k{self.NAME}Constraint is not in kBuiltinKinds");\n'
                    "}  // namespace qnnrules\n")
        return self.compile(probe)

    def test_generated_kind_compiles_registered_tested_documented(self):
        r = self.generate("add_constraint_kind.py", self.KEY, "--code", "bitwidth")
        self.assertEqual(r.returncode, 0, r.stderr)
        for line in (f"created {self.UNIT}", f"changed {self.LIST_H}", f"changed {self.TABLE}",
                     f"created {self.TEST}", "changed docs/rule-format.md", "changed docs/schemas/rules.schema.json"):
            self.assertIn(line, r.stdout.splitlines())

        unit = self.compile(self.path(self.UNIT))
        self.assertEqual(unit.returncode, 0, unit.stderr)
        self.assertNotIn(f"{self.NAME}.cpp", unit.stderr, "the generated unit has warnings")
        text = self.read(self.UNIT)
        self.assertIn(f'.key = "{self.KEY}"', text)
        self.assertIn(".code = DiagCode::kBitwidth", text)

        probe = self.probe()
        self.assertEqual(probe.returncode, 0, probe.stderr)
        table = self.read(self.TABLE)
        # One more kind than the project's own table has.
        with open(os.path.join(SOURCE, self.TABLE), encoding="utf-8") as f:
            before = len(re.findall(r"&k\w+Constraint", f.read().split("kBuiltinKinds")[1].split("};")[0]))
        self.assertRegex(table, rf"std::array<const ConstraintKind\*, {before + 1}> kBuiltinKinds")
        self.assertEqual(len(re.findall(r"&k\w+Constraint", table.split("kBuiltinKinds")[1].split("};")[0])), before + 1)

        test = self.compile(self.path(self.TEST), "-I", os.path.join(SOURCE, "tests", "unit"),
                            f'-DQNNRULES_SOURCE_DIR="{SOURCE}"')
        self.assertEqual(test.returncode, 0, test.stderr)
        self.assertIn("GTEST_FAIL()", self.read(self.TEST), "the skeleton must fail until it is written")

        self.assertRegex(self.read("docs/rule-format.md"), rf"(?m)^\| `{self.KEY}` \| int \|.*\n\| `recommended` \|")
        schema = json.loads(self.read("docs/schemas/rules.schema.json"))
        constraints = [d["properties"] for d in schema["$defs"].values() if "recommended" in d.get("properties", {})]
        self.assertEqual(len(constraints), 1)
        constraint = constraints[0]
        self.assertEqual(constraint[self.KEY]["type"], "integer")
        self.assertIn(self.KEY, constraint["recommended"]["items"]["enum"])

    def test_registration_check_fails_without_the_registration(self):
        original_list, original_table = self.read(self.LIST_H), self.read(self.TABLE)
        r = self.generate("add_constraint_kind.py", self.KEY, "--code", "kBitwidth")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.probe().returncode, 0)
        registered_list = self.read(self.LIST_H)
        # The kind's unit alone, neither declared nor in the table.
        self.write(self.LIST_H, original_list)
        self.write(self.TABLE, original_table)
        undeclared = self.probe()
        self.assertNotEqual(undeclared.returncode, 0)
        self.assertIn(f"k{self.NAME}Constraint", undeclared.stderr)
        # Declared, but not in the table: the probe's own assertion says so.
        self.write(self.LIST_H, registered_list)
        unlisted = self.probe()
        self.assertNotEqual(unlisted.returncode, 0)
        self.assertIn(f"k{self.NAME}Constraint is not in kBuiltinKinds", unlisted.stderr)

    def test_refusals(self):
        self.assertRefused("add_constraint_kind.py", "MaxGroups", "--code", "bitwidth", says="is not a constraint key")
        self.assertRefused("add_constraint_kind.py", "max__groups", "--code", "bitwidth", says="is not a constraint key")
        self.assertRefused("add_constraint_kind.py", "symmetric", "--code", "symmetric", says="already a key")
        self.assertRefused("add_constraint_kind.py", "recommended", "--code", "bitwidth", says="already a key")
        self.assertRefused("add_constraint_kind.py", self.KEY, "--code", "no-such-code", says="unknown diagnostic code")
        # A unit of that name already there (another key, same file name).
        self.write("engine/src/validate/constraints/MaxGroups.cpp", "// someone's work\n")
        self.assertRefused("add_constraint_kind.py", self.KEY, "--code", "bitwidth", says="not overwriting")
        os.remove(self.path("engine/src/validate/constraints/MaxGroups.cpp"))
        self.assertEqual(self.generate("add_constraint_kind.py", self.KEY, "--code", "bitwidth").returncode, 0)
        self.assertRefused("add_constraint_kind.py", self.KEY, "--code", "bitwidth", says="already a key")
        # A tree whose table the generator does not recognise is refused, not half-edited.
        self.write(self.TABLE, self.read(self.TABLE).replace("kBuiltinKinds", "kKinds"))
        self.assertRefused("add_constraint_kind.py", "other_kind", "--code", "bitwidth", says="cannot find the table")

    def test_table_full(self):
        # KindMask has one bit per kind: the generator stops at its width, before writing.
        bits = int(re.search(r"using KindMask = uint(\d+)_t;",
                             self.read("engine/src/validate/constraints/ConstraintKind.h")).group(1))
        size = int(re.search(r"ConstraintKind\*, (\d+)> kBuiltinKinds", self.read(self.TABLE)).group(1))
        for i in range(bits - size):
            r = self.generate("add_constraint_kind.py", f"kind_{chr(ord('a') + i)}", "--code", "bitwidth")
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRefused("add_constraint_kind.py", "one_more", "--code", "bitwidth", says="the kind table is full")


class BackendTest(Checkout):

    def test_generated_backend_loads_and_validates(self):
        r = self.generate("add_backend.py", "toy", "--description", "Toy: a test backend.")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[:2], ["created rules/toy/backend.yaml", "created rules/toy/ops/example.yaml"])
        lint = self.lint()
        self.assertEqual(lint.returncode, 0, lint.stdout + lint.stderr)
        self.assertIn("toy: 1 rules OK", lint.stdout)
        listed = self.validate("--backend", "toy", "--list-rules")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertRegex(listed.stdout, r"toy\.relu .*rules/toy/ops/example\.yaml:\d+")
        v = self.validate("--backend", "toy", "--soc", "SM8350", self.graph)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("checked against toy rules", v.stdout)
        self.assertIn("VALID", v.stdout)

    def test_typo_in_generated_files_is_reported_at_file_line(self):
        self.assertEqual(self.generate("add_backend.py", "toy").returncode, 0)
        op = self.read("rules/toy/ops/example.yaml")
        self.write("rules/toy/ops/example.yaml", op.replace("    qnn_op: Relu", "    qnn_opp: Relu"))
        lint = self.lint()
        self.assertEqual(lint.returncode, 1, lint.stdout + lint.stderr)
        self.assertIn(f"rules/toy/ops/example.yaml:{line_of(op, 'qnn_op: Relu')}:", lint.stdout + lint.stderr)
        v = self.validate("--backend", "toy", "--list-rules")
        self.assertEqual(v.returncode, 2)
        self.write("rules/toy/ops/example.yaml", op)
        manifest = self.read("rules/toy/backend.yaml")
        self.write("rules/toy/backend.yaml", manifest.replace("description:", "descripton:"))
        lint = self.lint()
        self.assertEqual(lint.returncode, 1, lint.stdout + lint.stderr)
        self.assertIn(f"rules/toy/backend.yaml:{line_of(manifest, 'description:')}:", lint.stdout + lint.stderr)

    def test_new_hardware_column(self):
        r = self.generate("add_backend.py", "npu", "--new-hardware", "V1,V2", "--soc", "SM8850=V2", "--soc", "SM8650=V1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("changed rules/socs.yaml", r.stdout.splitlines())
        socs = self.read("rules/socs.yaml")
        self.assertRegex(socs, r"(?m)^  npu: \[V1, V2\]$")
        self.assertRegex(socs, r"(?m)^  - \{name: SM8850, .*, npu: V2, marketing_name: ")
        lint = self.lint()
        self.assertEqual(lint.returncode, 0, lint.stdout + lint.stderr)
        v = self.validate("--backend", "npu", "--soc", "SM8850", self.graph)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("NPU V2", v.stdout)
        refused = self.validate("--backend", "npu", "--soc", "SM8350", self.graph)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("SM8650, SM8850", refused.stderr)

    def test_extends_and_existing_column(self):
        r = self.generate("add_backend.py", "kid", "--extends", "htp", "--hardware", "htp")
        self.assertEqual(r.returncode, 0, r.stderr)
        lint = self.lint()
        self.assertEqual(lint.returncode, 0, lint.stdout + lint.stderr)
        self.assertRegex(lint.stdout, r"kid: \d+ rules OK \(\d+ inherited from htp\)")
        listed = self.validate("--backend", "kid", "--list-rules")
        self.assertRegex(listed.stdout, r"kid\.relu .*rules/kid/ops/example\.yaml:\d+")
        self.assertRegex(listed.stdout, r"kid\.relu_min_max .*rules/htp/ops/")

    def test_refusals(self):
        self.assertRefused("add_backend.py", "htp", says="rules/htp already exists")
        self.assertRefused("add_backend.py", "Toy", says="is not a backend name")
        self.assertRefused("add_backend.py", "a.b", says="is not a backend name")
        self.assertRefused("add_backend.py", "lowering", says="is not a backend name")
        self.assertRefused("add_backend.py", "toy", "--description", " ", says="one non-empty line")
        self.assertRefused("add_backend.py", "toy", "--extends", "nope", says="no rules/nope/backend.yaml")
        self.assertRefused("add_backend.py", "toy", "--hardware", "nope", says="has no such column")
        self.assertRefused("add_backend.py", "toy", "--soc", "SM8850=V1", says="--soc needs --new-hardware")
        self.assertRefused("add_backend.py", "toy", "--new-hardware", "V1", says="at least one --soc")
        self.assertRefused("add_backend.py", "toy", "--new-hardware", "V1", "--soc", "SM0000=V1", says="has no SoC SM0000")
        self.assertRefused("add_backend.py", "toy", "--new-hardware", "V1", "--soc", "SM8850=V9", says="not a version")
        self.assertRefused("add_backend.py", "htp2", "--new-hardware", "V1", "--soc", "SM8850=V1", "--soc", "SM8850=V1",
                           says="names a SoC twice")
        self.assertRefused("add_backend.py", "lpai", "--new-hardware", "V1", "--soc", "SM8850=V1", says="already exists")
        self.assertEqual(self.generate("add_backend.py", "toy").returncode, 0)
        self.assertRefused("add_backend.py", "toy", says="rules/toy already exists")


class LoweringPathTest(Checkout):

    def test_generated_path_is_accepted(self):
        before = self.validate("--lowering", "my-path", self.graph)
        self.assertEqual(before.returncode, 2)
        self.assertIn("unknown lowering path 'my-path'", before.stderr)
        r = self.generate("add_lowering_path.py", "my-path", "--description", "My path: a test")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[0], "created rules/lowering/my-path.yaml")
        v = self.validate("--lowering", "my-path", self.graph)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("lowering: my-path (My path: a test)", v.stdout)
        paths = len([f for f in os.listdir(self.path("rules/lowering")) if f.endswith((".yaml", ".yml"))])
        lint = self.lint()
        self.assertEqual(lint.returncode, 0, lint.stdout + lint.stderr)
        self.assertIn(f"lowering: {paths} paths OK", lint.stdout)
        # The default path of a JSON graph is still executorch: the new one is the default for nothing.
        self.assertIn("lowering: executorch", self.validate(self.graph).stdout)

    def test_typo_is_reported_at_file_line(self):
        self.assertEqual(self.generate("add_lowering_path.py", "my-path").returncode, 0)
        text = self.read("rules/lowering/my-path.yaml")
        self.write("rules/lowering/my-path.yaml", text.replace("# noop_conversions: keep_encodings",
                                                                "noop_conversions: keep_encoding"))
        v = self.validate("--lowering", "my-path", self.graph)
        self.assertEqual(v.returncode, 2, v.stdout + v.stderr)
        self.assertIn(f"rules/lowering/my-path.yaml:{line_of(text, '# noop_conversions')}:", v.stdout + v.stderr)

    def test_refusals(self):
        self.assertRefused("add_lowering_path.py", "executorch", says="already exists")
        self.assertRefused("add_lowering_path.py", "My_Path", says="is not a lowering path name")
        self.assertRefused("add_lowering_path.py", "my--path", says="is not a lowering path name")
        self.assertRefused("add_lowering_path.py", "x", "--description", "", says="one non-empty line")
        with open(self.path("rules/lowering/renamed.yaml"), "w") as f:
            f.write(self.read("rules/lowering/executorch.yaml").replace("lowering: executorch", "lowering: et-two"))
        self.assertRefused("add_lowering_path.py", "et-two", says="already names a lowering path 'et-two'")
        self.assertEqual(self.generate("add_lowering_path.py", "my-path").returncode, 0)
        self.assertRefused("add_lowering_path.py", "my-path", says="not overwriting")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--validate", required=True, help="the built qnn-validate")
    p.add_argument("--rules-tool", required=True, help="the built qnn-rules")
    p.add_argument("--cxx", default="c++", help="the C++ compiler (CMake's CMAKE_CXX_COMPILER)")
    ARGS, rest = p.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
