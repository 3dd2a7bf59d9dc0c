"""The pre-commit hook (.pre-commit-hooks.yaml) and its entry, the console script
qnn-validate-files (python/qnnrules_cli.py): it validates each .onnx / .pt2 file it is given with
the hook's arguments and exits with the worst code, so a commit with a violating model fails."""

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def run_entry(*args):
    code = "import sys; sys.path.insert(0, 'python'); import qnnrules_cli; qnnrules_cli.qnn_validate_files()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ), check=False)


def test_the_hook_runs_the_entry_on_onnx_and_pt2_files():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "qnn-validate"
    assert hook["entry"] == "qnn-validate-files"
    assert hook["files"] == r"\.(onnx|pt2)$"
    assert 'qnn-validate-files = "qnnrules_cli:qnn_validate_files"' in (ROOT / "pyproject.toml").read_text()


def test_a_valid_model_passes():
    p = run_entry("--backend", "htp", "--soc", "SM8650", "tests/data/onnx/conv_8a8w.onnx")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "tests/data/onnx/conv_8a8w.onnx: " in p.stdout and "verdict: VALID" in p.stdout


def test_every_file_is_checked_and_the_worst_code_wins():
    p = run_entry("--soc", "SM8650", "tests/data/onnx/conv_8a8w.onnx", "tests/data/onnx/no_rule.onnx",
                  "tests/data/onnx/truncated.onnx")
    assert p.returncode == 2, p.stdout + p.stderr
    assert "tests/data/onnx/conv_8a8w.onnx: " in p.stdout
    assert "error[no-rule]" in p.stdout
    assert "truncated.onnx" in p.stdout + p.stderr


def test_violations_fail_and_warn_mode_reports_them_without_failing():
    assert run_entry("--soc", "SM8650", "tests/data/onnx/no_rule.onnx").returncode == 1
    assert run_entry("--soc", "SM8650", "--warn", "tests/data/onnx/no_rule.onnx").returncode == 0
