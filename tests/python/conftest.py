"""Shared fixtures. Run through CTest (python_engine, python_torch), which sets PYTHONPATH to
<build>/python and QNNRULES_VALIDATE_EXE to the CLI of the same build."""

import json
import os
import subprocess

import pytest

import qnnrules

SOC = "SM8650"


def pytest_configure(config):
    # The torchvision models and the decoder: `-m "not heavy"` keeps the small cases.
    config.addinivalue_line("markers", "heavy: real torchvision models and the decoder (minutes)")


@pytest.fixture(scope="session")
def engine():
    return qnnrules.Engine(backend="htp", soc=SOC, strict=True)


@pytest.fixture(scope="session")
def warn_engine():
    return qnnrules.Engine(backend="htp", soc=SOC, strict=False)


def rule_for(engine, target):
    """The id of the rule covering an ATen target (tests read ids from the rules, not literals)."""
    ids = [r["id"] for r in engine.rules if target in r["targets"]]
    assert ids, f"no {engine.backend} rule covers {target}"
    return ids[0]


def run_cli(graph_path, *args):
    """qnn-validate --format json on a file: (exit code, parsed report)."""
    exe = os.environ.get("QNNRULES_VALIDATE_EXE")
    if not exe:
        pytest.fail("QNNRULES_VALIDATE_EXE is not set: run these tests through ctest")
    proc = subprocess.run([exe, str(graph_path), "--backend", "htp", "--soc", SOC, "--format", "json", *args],
                          capture_output=True, text=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def assert_same_as_cli(engine, graph_path):
    """Python and the CLI on the same file: same diagnostics (every field), same counts, same verdict."""
    report = engine.check(qnnrules.Graph.from_file(graph_path))
    rc, cli = run_cli(graph_path, "--strict" if engine.strict else "--warn")
    assert [d.to_dict() for d in report.diagnostics] == cli["diagnostics"]
    assert cli["summary"] == {"nodes_checked": report.nodes_checked, "nodes_with_rule": report.nodes_with_rule,
                              "errors": report.error_count, "warnings": report.warning_count}
    assert (rc == 0) == report.ok
    return report
