"""The Python examples of docs/embedding.md run as written and print what the doc shows.

An example is a ```python block followed by a ```console block whose command is
`$ PYTHONPATH=build/python .venv/bin/python NAME.py`: the block is saved as NAME.py and run in
a scratch directory that sees the checkout's examples/ and tests/; its output must equal the
lines under the command (a line `...` stands for any number of lines; the checkout's path is
written relative, as when run from the checkout)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
