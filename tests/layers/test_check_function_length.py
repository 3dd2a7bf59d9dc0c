#!/usr/bin/env python3
"""CTest engine_function_length: the engine's functions are within 100 lines but those
docs/architecture.md names (check_function_length.py), and the check catches a planted long
function and a listed name whose function shrank."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(HERE, "check_function_length.py")


def run(root):
    return subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)


class FunctionLengthTest(unittest.TestCase):
    def test_the_tree_passes(self):
        r = run(ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)

    def copy(self):
        t = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, t)
        shutil.copytree(os.path.join(ROOT, "engine"), os.path.join(t, "engine"))
        os.makedirs(os.path.join(t, "docs"))
        shutil.copy(os.path.join(ROOT, "docs", "architecture.md"), os.path.join(t, "docs"))
        return t

    def test_a_planted_long_function_fails(self):
        t = self.copy()
        with open(os.path.join(t, "engine", "src", "Planted.cpp"), "w") as f:
            f.write("int planted() {\n" + "  int x = 0;\n" * 120 + "  return x;\n}\n")
        r = run(t)
        self.assertEqual(r.returncode, 1)
        self.assertIn("engine/src/Planted.cpp:planted is 123 lines", r.stderr)

    def test_signatures_over_lines_members_in_their_class_and_comments(self):
        # Each planted body is 101 lines from its head's first line; braces in comments, strings
        # and initializers do not open or close anything; a control block is not a function.
        body = "  int x = 0;\n" * 98
        text = ("namespace qnnrules {\n"
                "template <typename T>\nstd::optional<T>\nwrapped(const T& a,\n        int b) {\n" + body[:-13 * 2] + "}\n"
                "class Holder {\n public:\n  int member(int a) const {\n    /* { */ const char* s = \"}\";\n"
                + body + "  }\n  int small() { return 1; }\n};\n"
                "int table[] = {\n" + "  1,\n" * 120 + "};\n"
                "}  // namespace qnnrules\n")
        t = self.copy()
        with open(os.path.join(t, "engine", "src", "Planted.cpp"), "w") as f:
            f.write(text)
        r = run(t)
        self.assertEqual(r.returncode, 1)
        self.assertIn("engine/src/Planted.cpp:wrapped is 101 lines", r.stderr)
        self.assertIn("engine/src/Planted.cpp:Holder::member is 101 lines", r.stderr)
        self.assertNotIn("small", r.stderr)
        self.assertNotIn("table", r.stderr)

    def test_a_stale_name_fails(self):
        t = self.copy()
        doc = os.path.join(t, "docs", "architecture.md")
        with open(doc) as f:
            text = f.read()
        text = text.replace("### Long functions\n", "### Long functions\n\n- `engine/src/Engine.cpp:Engine::ok` — none\n", 1)
        with open(doc, "w") as f:
            f.write(text)
        r = run(t)
        self.assertEqual(r.returncode, 1)
        self.assertIn("engine/src/Engine.cpp:Engine::ok is listed", r.stderr)


if __name__ == "__main__":
    unittest.main()
