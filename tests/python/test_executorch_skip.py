"""qnnrules.executorch (issue 33): the skip sets that keep ExecuTorch's QNN lowering from failing,
made from the engine's verdict.

The unit tests feed reports and edge graphs as data. The end-to-end test reads a .pt2 of the
ExecuTorch-lowering suite (tests/conformance/executorch/lowering/pt2/), judges it with the Engine
and builds ExecuTorch's edge graph with ExecuTorch's own passes (executorch is in the project's
venv); whether a lowering then succeeds is measured by the suite itself
(tools/conformance/executorch/lower.py --with-skips, docs/conformance-executorch-lowering.md).
"""

import gzip
import json
from pathlib import Path

import pytest

import qnnrules
from qnnrules import executorch as qe

ROOT = Path(__file__).resolve().parents[2]
PT2 = ROOT / "tests" / "conformance" / "executorch" / "lowering" / "pt2"


def report(fallbacks=(), session_failure=None, ops=(), diagnostics=()):
    return {"delegation": {"fallbacks": list(fallbacks), "session_failure": session_failure} if
            (fallbacks or session_failure) else {}, "ops": list(ops), "diagnostics": list(diagnostics)}


def fallback(node, op, code):
    return {"node": node, "op": op, "code": code, "reason": "constraint"}


def test_refused_nodes_are_the_fallbacks_and_the_session_failure_nodes():
    r = report([fallback("relu6", "aten.relu6.default", "no-rule"), fallback("mul", "aten.mul.Tensor", "cpu-fallback")],
               session_failure={"node": "gelu", "op": "aten.gelu.default", "cause": "could not create op"})
    assert qe.refused_nodes(r) == {"relu6": ("aten.relu6.default", "no-rule"),
                                   "mul": ("aten.mul.Tensor", "cpu-fallback"),
                                   "gelu": ("aten.gelu.default", "session-failure")}


def test_a_report_without_delegation_falls_back_to_its_errors():
    r = report(diagnostics=[{"severity": "error", "node": "conv", "op": "aten.conv2d.default", "code": "arch-gate"},
                            {"severity": "warning", "node": "add", "op": "aten.add.Tensor", "code": "fixed-scale"}])
    assert qe.refused_nodes(r) == {"conv": ("aten.conv2d.default", "arch-gate")}


def test_a_report_is_read_from_json_text_and_from_a_file(tmp_path):
    r = report([fallback("gelu", "aten.gelu.default", "arch-gate")])
    path = tmp_path / "report.json"
    path.write_text(json.dumps(r))
    assert qe.refused_nodes(json.dumps(r)) == qe.refused_nodes(str(path)) == {"gelu": ("aten.gelu.default", "arch-gate")}
    with pytest.raises(TypeError):
        qe.refused_nodes(42)


def test_a_valid_graph_has_nothing_to_skip():
    s = qe.skip_sets(report())
    assert not s and s.node_ids == set() and s.node_ops == set()


def test_without_a_program_only_ops_all_of_whose_nodes_are_refused_are_skipped():
    r = report([fallback("gelu", "aten.gelu.default", "arch-gate"), fallback("mul", "aten.mul.Tensor", "no-matching-variant")],
               ops=[{"op": "aten.gelu.default", "nodes": 1, "on_cpu": 1}, {"op": "aten.mul.Tensor", "nodes": 3, "on_cpu": 1}])
    s = qe.skip_sets(r)
    assert s.node_ops == {"aten.gelu.default"}  # skipping every mul would move two good ones to CPU
    assert s.node_ids == set()
    assert s.refused == {"gelu": "arch-gate", "mul": "no-matching-variant"}


# An edge graph as ExecuTorch makes it from act_probe: relu6 becomes a node first named "hardtanh"
# (then aten_hardtanh_default), while the program's own hardtanh becomes aten_hardtanh_default_1.
EDGES = [
    ("aten_linear_default", "aten.linear.default", ["aten_linear_default", "linear"]),
    ("aten_hardtanh_default", "aten.hardtanh.default", ["aten_hardtanh_default", "hardtanh", "relu6"]),
    ("aten_hardtanh_default_1", "aten.hardtanh.default", ["aten_hardtanh_default_1", "hardtanh_1", "hardtanh"]),
    ("aten_exp_default", "aten.exp.default", ["aten_exp_default", "exp", "softplus"]),
    ("aten_add_tensor", "aten.add.Tensor", ["aten_add_tensor", "log1p", "softplus"]),
    ("aten_add_tensor_1", "aten.add.Tensor", ["aten_add_tensor_1", "add"]),
    ("quantized_decomposed_quantize_per_tensor_default", "quantized_decomposed.quantize_per_tensor.default",
     ["quantized_decomposed_quantize_per_tensor_default", "relu6"]),
]


class _Program:
    """Stands for the torch.export program: its compute nodes' names."""

    class _Node:
        def __init__(self, name):
            self.name, self.op, self.target, self.all_input_nodes = name, "call_function", name, []

    def __init__(self, names):
        self.graph = type("G", (), {"nodes": [self._Node(n) for n in names]})()


def test_edge_nodes_are_skipped_by_the_program_node_they_come_from():
    r = report([fallback("relu6", "aten.relu6.default", "no-rule"), fallback("softplus", "aten.softplus.default", "no-matching-variant")])
    program = _Program(["linear", "relu6", "hardtanh", "softplus", "add"])
    s = qe.skip_sets(r, program=program, edges=EDGES, kept={"aten.linear.default"})
    # relu6's hardtanh, not the program's own hardtanh (whose chain also passes a node named hardtanh);
    # every edge node of the decomposed softplus; no quantize node.
    assert s.node_ids == {"aten_hardtanh_default", "aten_exp_default", "aten_add_tensor"}
    assert s.unmatched == []
    # exp is all skipped; hardtanh and add also have nodes that stay on the backend.
    assert s.node_ops == {"aten.exp.default"}
    assert s.blocking == {}  # hardtanh, exp, add, where: decomposed ops, no parameter


def test_the_file_form_lists_the_sets_sorted(tmp_path, capsys):
    r = report([fallback("gelu", "aten.gelu.default", "arch-gate")], ops=[{"op": "aten.gelu.default", "nodes": 1, "on_cpu": 1}])
    path = tmp_path / "report.json"
    path.write_text(json.dumps(r))
    assert qe.main([str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == {"skip_node_id_set": [], "skip_node_op_set": ["aten.gelu.default"],
                                                   "refused": {"gelu": "arch-gate"}, "unmatched": [], "blocking": {}}
    out = tmp_path / "skips.json"
    assert qe.main([str(path), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["skip_node_op_set"] == ["aten.gelu.default"]


def test_a_refused_node_of_an_op_kept_from_decomposition_is_blocking():
    """leaky_relu becomes prelu, which ExecuTorch keeps from decomposition: left on CPU, the
    lowering fails whatever is skipped (act_probe/qnnrules/8a8w/SM8650)."""
    edges = EDGES + [("aten_prelu_default", "aten.prelu.default", ["aten_prelu_default", "prelu", "leaky_relu"])]
    r = report([fallback("leaky_relu", "aten.leaky_relu.default", "no-matching-variant"),
                fallback("relu6", "aten.relu6.default", "no-rule")])
    s = qe.skip_sets(r, program=_Program(["linear", "relu6", "hardtanh", "leaky_relu"]), edges=edges,
                     kept={"aten.prelu.default", "aten.linear.default"})
    assert "aten_prelu_default" in s.node_ids
    assert set(s.blocking) == {"leaky_relu"} and "aten.prelu.default" in s.blocking["leaky_relu"]


def test_a_refused_node_executorch_removed_is_reported_unmatched():
    r = report([fallback("batch_norm", "aten.batch_norm.default", "no-matching-variant")])
    s = qe.skip_sets(r, program=_Program(["linear", "batch_norm"]), edges=EDGES, kept=set())
    assert s.node_ids == set() and s.unmatched == ["batch_norm"]


def _engine_report(pt2, soc):
    return qnnrules.Engine(backend="htp", soc=soc, use_environment=False).run(str(pt2))


def test_the_skip_sets_of_a_suite_graph_name_its_edge_nodes(monkeypatch, tmp_path):
    """act_probe quantized by ExecuTorch's QnnQuantizer leaves relu6 and softplus float (the
    quantizer annotates neither); the engine refuses both, ExecuTorch's lowering refused the same
    two (act_probe/executorch/8a8w/SM8650 in the suite's verdicts)."""
    pytest.importorskip("executorch")
    monkeypatch.setenv("EXECUTORCH_BUILDING_WHEEL", "1")
    import torch
    import executorch.backends.qualcomm.partition.qnn_partitioner  # noqa: F401  (registers the Q/DQ ops)

    pt2 = tmp_path / "act_probe.executorch.8a8w.pt2"  # the suite keeps it gzip-compressed
    pt2.write_bytes(gzip.decompress((PT2 / "act_probe.executorch.8a8w.pt2.gz").read_bytes()))
    rep = _engine_report(pt2, "SM8650")
    refused = qe.refused_nodes(rep)
    assert set(refused) == {"relu6", "softplus"}
    program = torch.export.load(str(pt2))
    s = qe.skip_sets(rep, program=program, inputs=(torch.randn(4, 32),))
    assert "aten_hardtanh_default" in s.node_ids and "aten_hardtanh_default_1" not in s.node_ids
    assert {"aten_exp_default", "aten_log_default", "aten_where_self_1"} <= s.node_ids
    assert s.unmatched == []
    assert all(not n.startswith("quantized_decomposed") for n in s.node_ids)
