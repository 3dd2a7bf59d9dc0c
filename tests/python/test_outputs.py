"""Python renders every output the CLI writes from the same run report, byte for byte:
--format sarif (to_sarif), --html (to_html), --dot (to_dot), --encodings (to_encodings), besides
the JSON and text of test_front_ends.py; and --baseline (Engine.run(baseline=...)).
Runs from the source root (CTest's working directory), so reports name the same relative paths."""

import json
import os
import subprocess

import pytest

import qnnrules


def cli(*args):
    exe = os.environ.get("QNNRULES_VALIDATE_EXE")
    if not exe:
        pytest.fail("QNNRULES_VALIDATE_EXE is not set: run these tests through ctest")
    return subprocess.run([exe, *args], capture_output=True, text=True, check=False)


CASES = [
    ("examples/violations.json", "SM8650", True),
    ("examples/violations.json", "SM8650", False),
    ("tests/data/onnx/sigmoid_wrong_scale.onnx", "SM8650", True),
    ("tests/data/pt2/sigmoid_bad_scale.pt2", "SM8650", False),
]


@pytest.mark.parametrize("graph,soc,strict", CASES)
def test_sarif_html_and_dot_equal_the_cli(graph, soc, strict, tmp_path):
    mode = "--strict" if strict else "--warn"
    report = qnnrules.Engine(backend="htp", soc=soc, strict=strict).run(graph)
    sarif = cli(graph, "--soc", soc, mode, "--format", "sarif")
    assert report.to_sarif() == sarif.stdout
    assert report.exit_code == sarif.returncode
    html, dot = tmp_path / "report.html", tmp_path / "report.dot"
    proc = cli(graph, "--soc", soc, mode, "--html", str(html), "--dot", str(dot))
    assert proc.returncode == report.exit_code
    assert report.to_html() == html.read_text()
    assert report.to_dot() == dot.read_text()
    assert report.to_text() == str(report) == proc.stdout


def test_encodings_equal_the_cli(tmp_path):
    """A graph with calibration statistics on every float output, annotated and encoded."""
    graph = json.load(open("tests/data/annotate/mixed.json"))
    for node in graph["nodes"]:
        for i, out in enumerate(node.get("outputs", [])):
            if out.get("dtype", "float32") == "float32":
                out["stats"] = {"min": -1.0 - i, "max": 2.0 + 0.5 * i}
    path = tmp_path / "calibrated.json"
    path.write_text(json.dumps(graph))
    enc = tmp_path / "enc.json"
    proc = cli(str(path), "--soc", "SM8650", "--warn", "--annotate", "8a8w", "--encodings", str(enc))
    assert proc.returncode == 0, proc.stderr
    report = qnnrules.Engine(backend="htp", soc="SM8650", strict=False).run(str(path), annotate="8a8w",
                                                                             encodings=True)
    assert report.to_encodings() == enc.read_text()
    assert json.loads(report.to_encodings())  # not an empty document
    assert qnnrules.Engine(backend="htp", soc="SM8650").run(str(path)).to_encodings() is None


def test_baseline_in_python_equals_the_cli(tmp_path):
    graph = "examples/violations.json"
    full = json.loads(cli(graph, "--soc", "SM8650", "--format", "json").stdout)
    old = dict(full, diagnostics=full["diagnostics"][1:])  # the first finding is new
    base = tmp_path / "baseline.json"
    base.write_text(json.dumps(old))
    report = qnnrules.Engine(backend="htp", soc="SM8650").run(graph, baseline=str(base))
    assert [d.node for d in report.diagnostics] == [full["diagnostics"][0]["node"]]
    assert len(report.baseline["unchanged"]) == len(full["diagnostics"]) - 1
    assert report.baseline["absent"] == []
    sarif = cli(graph, "--soc", "SM8650", "--baseline", str(base), "--format", "sarif")
    assert report.to_sarif() == sarif.stdout
    assert report.exit_code == sarif.returncode == 1
    with pytest.raises(ValueError):
        qnnrules.Engine(backend="htp", soc="SM8650").run(graph, baseline=str(tmp_path / "missing.json"))


def test_module_paths_reach_python():
    # Judged as written (ExecuTorch's path): ORT's own path converts the uint16 weights.
    report = qnnrules.Engine(backend="htp", soc="SM8650", lowering="executorch").run(
        "tests/data/onnx/conv_16a16w_uint16_weights.onnx")
    (d,) = report.diagnostics
    assert d.module == "/backbone/layer1/conv"
    # uint16 16-bit weights are judged by their symmetry (QNN takes a symmetric uint16 weight).
    assert "weight_symmetric=True" in d.hint
