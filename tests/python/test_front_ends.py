"""The front ends agree: for the same graph and options, Engine.run in Python renders exactly
what `qnn-validate` prints, in JSON (to_json) and in text (str), and a Graph given in memory
gives the same JSON as the path. The C++ API's agreement is tests/unit/FrontEndAgreementTest.cpp.
Runs from the source root (CTest's working directory), so reports name the same relative paths."""

import json
import os
import subprocess

import pytest

import qnnrules

CASES = [
    ("examples/violations.json", "htp", "SM8650", True, None),
    ("examples/violations.json", "htp", "SM8650", False, None),
    ("examples/tiny_cnn_8a8w.json", "lpai", "SM8850", True, None),
    ("examples/lpbq_linear.json", "htp", "SM8350", True, None),
    ("tests/data/onnx/sigmoid_wrong_scale.onnx", "htp", "SM8650", True, None),
    ("tests/data/pt2/q8a8w.pt2", "htp", "SM8650", True, None),
    ("tests/data/annotate/mixed.json", "htp", "SM8650", True, "16a8w"),
]


def cli(graph, backend, soc, strict, annotate, *extra):
    exe = os.environ.get("QNNRULES_VALIDATE_EXE")
    if not exe:
        pytest.fail("QNNRULES_VALIDATE_EXE is not set: run these tests through ctest")
    args = [exe, graph, "--backend", backend, "--soc", soc, "--strict" if strict else "--warn", *extra]
    if annotate:
        args += ["--annotate", annotate]
    return subprocess.run(args, capture_output=True, text=True, check=False)


def without_times(text):
    report = json.loads(text)
    report.pop("times", None)
    return report


@pytest.mark.parametrize("graph,backend,soc,strict,annotate", CASES)
def test_python_json_and_text_equal_the_cli(graph, backend, soc, strict, annotate):
    engine = qnnrules.Engine(backend=backend, soc=soc, strict=strict)
    report = engine.run(graph, annotate=annotate, strict_annotation=strict)
    proc = cli(graph, backend, soc, strict, annotate, "--format", "json")
    assert report.to_json() == proc.stdout
    assert report.to_dict() == json.loads(proc.stdout)
    assert str(report) == cli(graph, backend, soc, strict, annotate).stdout
    assert report.failed == (proc.returncode == 1)


@pytest.mark.parametrize("graph,backend,soc,strict,annotate", CASES)
def test_a_graph_in_memory_gives_the_same_json_as_its_file(graph, backend, soc, strict, annotate):
    engine = qnnrules.Engine(backend=backend, soc=soc, strict=strict)
    from_file = engine.run(graph, annotate=annotate, strict_annotation=strict)
    from_memory = engine.run(qnnrules.Graph.from_file(graph), annotate=annotate, strict_annotation=strict)
    # Only the file name differs: an in-memory graph was read from no file.
    memory, file = from_memory.to_dict(), from_file.to_dict()
    assert (memory.pop("graph_file"), file.pop("graph_file")) == ("", graph)
    assert memory == file


def test_times_are_reported_by_phase_and_removed_for_comparison():
    engine = qnnrules.Engine(backend="htp", soc="SM8650")
    report = engine.run("tests/data/pt2/q8a8w.pt2")
    assert {"rule_load", "read", "fold", "validate", "partition"} <= set(report.times)
    timed = json.loads(report.to_json(times=True))
    assert set(timed["times"]) >= {"rule_load", "read", "report", "total"}
    assert without_times(report.to_json(times=True)) == json.loads(report.to_json())


def test_runs_that_cannot_start_raise_with_the_stage_errors():
    engine = qnnrules.Engine(backend="htp", soc="SM8650")
    with pytest.raises(qnnrules.GraphError):
        engine.run("tests/data/onnx/corrupt.onnx")
    with pytest.raises(qnnrules.ConfigError):
        engine.run("tests/data/annotate/mixed.json", annotate="99a9w")


def test_an_omitted_soc_is_the_default_and_the_report_says_so():
    report = qnnrules.Engine(backend="htp").run("examples/tiny_cnn_8a8w.json")
    assert report.to_dict()["soc_defaulted"] is True
    assert "default SoC, choose with --soc" in str(report)
