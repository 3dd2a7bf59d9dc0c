#!/usr/bin/env python3
"""Brings the console samples of the docs up to date with what the tools print today.

  scripts/update-doc-samples.py --validate build/tools/qnn-validate/qnn-validate [--python .venv/bin/python]
      [--pythonpath build/python] [--dry-run]

tests/python/test_docs.py checks the samples (which commands run, how '...' elides lines); this
script reruns each sample that no longer matches and rewrites the lines it shows, keeping the
sample's shape: every shown line is replaced by the most similar line of today's output, in
order, and the '...' elisions stay where they are. A sample whose lines cannot all be placed is
left alone and named, for a human to rewrite. Standard library only (plus test_docs' helpers).
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

# Flags whose file argument a sample writes: redirected to a scratch directory.
OUTPUT_FLAGS = ("--output", "--encodings", "--dot", "--html", "--suggest-recipe", "--suggest-overrides", "--plan")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
import test_docs  # noqa: E402  (the samples' own rules: which run, how they match)


def realign(expected, actual):
    """The shown lines rewritten from `actual`, or None when one cannot be placed."""
    out, at = [], 0
    for line in expected:
        if line == "...":
            out.append(line)
            continue
        best, best_ratio = None, 0.3
        for i in range(at, len(actual)):
            ratio = difflib.SequenceMatcher(None, line, actual[i]).ratio()
            if ratio > best_ratio:
                best, best_ratio = i, ratio
            if ratio == 1.0:
                break
        if best is None:
            return None
        if best > at and (not out or out[-1] != "...") and expected[0] != "...":
            # Lines between would be dropped without an elision: keep them shown.
            out.extend(actual[at:best])
        out.append(actual[best])
        at = best + 1
    return out


def run_cli(validate, command):
    args = shlex.split(command)[1:]
    with tempfile.TemporaryDirectory() as tmp:
        args = [str(Path(tmp) / Path(a).name) if prev in OUTPUT_FLAGS else a
                for prev, a in zip([""] + args, args)]
        proc = subprocess.run([validate, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=dict(os.environ, QNNRULES_PATH=""), check=False)
    return proc.stdout.splitlines()


def run_python(python, pythonpath, code):
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("examples", "tests"):
            (Path(tmp) / d).symlink_to(ROOT / d)
        script = Path(tmp) / "example.py"
        script.write_text(code)
        env = dict(os.environ, PYTHONPATH=str(ROOT / pythonpath))
        proc = subprocess.run([python, str(script)], cwd=tmp, capture_output=True, text=True, env=env, check=False)
    return proc.stdout.replace(str(ROOT) + os.sep, "").splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--validate", required=True)
    ap.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    ap.add_argument("--pythonpath", default="build/python")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    validate = str(Path(a.validate).resolve())
    stuck = []

    def refit(shown, actual, label):
        """The shown lines rewritten, or None when they match already or cannot be placed."""
        if test_docs.matches(shown, actual):
            return None
        fixed = realign(shown, actual)
        if fixed is None or not test_docs.matches(fixed, actual):
            stuck.append(label)
            return None
        return fixed

    for name in test_docs.CLI_DOCS:
        path = ROOT / "docs" / name
        text = path.read_text()
        # Per console block, its samples' new lines (rewritten from the last, so spans hold).
        by_block = {}
        for block, first, end, command, shown in test_docs.cli_sample_spans(text):
            fixed = refit(shown, run_cli(validate, command), f"docs/{name}: {command}")
            if fixed is None:
                continue
            by_block.setdefault((block.start(), block.end()), [block.group(1).splitlines()]).append((first, end, fixed))
        for (start, end), (lines, *edits) in sorted(by_block.items(), reverse=True):
            for first, stop, fixed in sorted(edits, reverse=True):
                lines[first:stop] = fixed
            text = text[:start] + "```console\n" + "\n".join(lines) + "\n```" + text[end:]
        if name == "embedding.md":
            for m in re.finditer(r"```python\n((?:(?!```).)*)```\s*```console\n(.*?)```", text, re.S):
                lines = m.group(2).splitlines()
                if not lines or not test_docs.RUN.match(lines[0]):
                    continue
                # The shown output ends at the next command, as test_docs reads it.
                end = next((i for i in range(1, len(lines)) if lines[i].startswith("$ ")), len(lines))
                fixed = refit(lines[1:end], run_python(a.python, a.pythonpath, m.group(1)), f"docs/{name}: {lines[0]}")
                if fixed is None:
                    continue
                new = m.group(0).replace(m.group(2), "\n".join([lines[0]] + fixed + lines[end:]) + "\n", 1)
                text = text.replace(m.group(0), new, 1)
        if text != path.read_text():
            print(f"updated docs/{name}")
            if not a.dry_run:
                path.write_text(text)
    for s in stuck:
        print(f"cannot realign, rewrite by hand: {s}")
    return 1 if stuck else 0


if __name__ == "__main__":
    sys.exit(main())
