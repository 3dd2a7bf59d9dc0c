"""The Python examples of docs/embedding.md run as written and print what the doc shows, and
the qnn-validate console samples of the docs are what the CLI prints today.

An example is a ```python block followed by a ```console block whose command is
`$ PYTHONPATH=build/python .venv/bin/python NAME.py`: the block is saved as NAME.py and run in
a scratch directory that sees the checkout's examples/ and tests/; its output must equal the
lines under the command (a line `...` stands for any number of lines; the checkout's path is
written relative, as when run from the checkout).

A CLI sample is a ```console block of docs/delegation.md, annotation.md, embedding.md, inputs.md,
compatibility-matrix.md, repair-recipes.md or precision-plan.md; each `$ qnn-validate ARGS` line in
it (a trailing backslash continues it) is run from the source root, and the lines under it, up to
the next `$ ` line, must match its output (stdout and stderr, interleaved) the same way. Commands
with shell redirection or pipes, commands shown without their output, and commands reading files
that are not in the checkout
(a reader's own recipe.yaml) are shown, not run; files a sample writes (--output, --encodings,
--dot, --html, --suggest-recipe, --suggest-overrides, --plan) go to a scratch directory."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

# Flags whose file argument a sample writes: redirected to a scratch directory.
OUTPUT_FLAGS = ("--output", "--encodings", "--dot", "--html", "--suggest-recipe", "--suggest-overrides", "--plan")

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "embedding.md"
RUN = re.compile(r"^\$ PYTHONPATH=build/python \.venv/bin/python (\w+\.py)$")


def examples():
    text = DOC.read_text()
    found = []
    for m in re.finditer(r"```python\n((?:(?!```).)*)```\s*```console\n(.*?)```", text, re.S):
        lines = m.group(2).splitlines()
        run = RUN.match(lines[0]) if lines else None
        if not run:
            continue
        expected = []
        for line in lines[1:]:
            if line.startswith("$ "):
                break
            expected.append(line)
        found.append(pytest.param(m.group(1), expected, id=run.group(1)))
    return found


def matches(expected, actual):
    """Line by line; '...' matches any run of lines (shortest first)."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def test_the_doc_has_examples():
    assert {p.id for p in examples()} >= {"example.py", "lpai.py", "net.py", "quantize.py"}


@pytest.mark.parametrize("code,expected", examples())
def test_example_prints_what_the_doc_shows(tmp_path, code, expected):
    for d in ("examples", "tests"):
        (tmp_path / d).symlink_to(ROOT / d)
    script = tmp_path / "example.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ), check=False)
    assert proc.returncode == 0, proc.stderr
    actual = proc.stdout.replace(str(ROOT) + os.sep, "").splitlines()
    assert matches(expected, actual), "\n".join(actual)


CLI_DOCS = ("delegation.md", "annotation.md", "embedding.md", "inputs.md", "compatibility-matrix.md",
            "repair-recipes.md", "precision-plan.md")


def inputs_exist(command):
    """Whether the files the command reads are in the checkout (the graph, --recipe, --rules):
    samples about the reader's own files (qdq.json, recipe.yaml) are illustrations."""
    args = shlex.split(command)[1:]
    reads = [a for prev, a in zip([""] + args, args)
             if prev in ("--recipe", "--rules") or (not a.startswith("-") and not prev.startswith("--"))]
    return all((ROOT / a).exists() for a in reads)


def cli_sample_spans(text):
    """Every runnable CLI sample of a doc's text: (block match, first shown line, end line,
    command, shown lines), the line numbers counting within the block."""
    found = []
    for block in re.finditer(r"```console\n(.*?)```", text, re.S):
        lines = block.group(1).splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            command = lines[i][2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            i += 1
            first = i
            while i < len(lines) and not lines[i].startswith("$ "):
                i += 1
            expected = lines[first:i]
            if (command.startswith("qnn-validate ") and not re.search(r"[<>|;&]", command) and expected
                    and inputs_exist(command)):
                found.append((block, first, i, command, expected))
    return found


def cli_samples():
    found = []
    for doc in CLI_DOCS:
        text = (ROOT / "docs" / doc).read_text()
        for block, _, _, command, expected in cli_sample_spans(text):
            line = text[:block.start()].count("\n") + 1
            found.append(pytest.param(command, expected, id=f"{doc}:{line}"))
    return found


def test_the_docs_have_samples():
    assert len(cli_samples()) >= 8


@pytest.mark.parametrize("command,expected", cli_samples())
def test_sample_is_what_qnn_validate_prints(tmp_path, command, expected):
    exe = os.environ.get("QNNRULES_VALIDATE_EXE")
    if not exe:
        pytest.fail("QNNRULES_VALIDATE_EXE is not set: run these tests through ctest")
    args = shlex.split(command)[1:]
    # Files the sample writes go to a scratch directory, not the checkout.
    args = [str(tmp_path / Path(a).name) if prev in OUTPUT_FLAGS else a
            for prev, a in zip([""] + args, args)]
    proc = subprocess.run([exe, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=dict(os.environ, QNNRULES_PATH=""), check=False)
    actual = proc.stdout.splitlines()
    assert matches(expected, actual), "\n".join(["doc:"] + expected + ["", "qnn-validate prints:"] + actual)
