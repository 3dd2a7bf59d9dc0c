"""The Python engine API on graphs built in Python: validate, strict vs warn, exceptions that
carry every violation, overlays, annotate, delegation, and agreement with the CLI."""

import os

import pytest

import qnnrules
from conftest import SOC, assert_same_as_cli, rule_for

SIGMOID = "aten.sigmoid.default"
U8 = {"dtype": "uint8", "quant_min": 0, "quant_max": 255, "qscheme": "per_tensor_affine"}
# 16-bit: the fixed Sigmoid output encoding is required there (8 bits only recommend 1/256).
U16 = {"dtype": "uint16", "quant_min": 0, "quant_max": 65535, "qscheme": "per_tensor_affine"}


def sigmoid_graph(out_scale, out_zero_point=0, extra_target=None):
    """x (uint16) -> sig -> [extra] -> output, with the sigmoid output at the given encoding."""
    b = qnnrules.GraphBuilder("sigmoid_net")
    x_spec = dict(U16, scale=0.0001, zero_point=32768)
    x = b.input("x", "float32", [1, 8], qspec=x_spec)
    y = b.call("sig", SIGMOID, [x.q(x_spec)],
               outputs=[("float32", [1, 8], dict(U16, scale=out_scale, zero_point=out_zero_point))])
    if extra_target:
        y = b.call("extra", extra_target, [y], outputs=[("float32", [1, 8])])
    b.output([y])
    return b.build()


def test_engine_describes_soc_rules_and_search_path(engine):
    assert engine.soc["name"] == SOC and engine.soc["hardware"] == {"htp": "V75"}
    assert engine.backend == "htp" and engine.strict
    assert engine.rules and all(r["id"].startswith("htp.") and r["location"] for r in engine.rules)
    assert str(engine.search_path[0]).endswith("rules")


def test_unknown_soc_is_a_config_error_naming_known_socs():
    with pytest.raises(qnnrules.ConfigError) as exc:
        qnnrules.Engine(soc="SM0000")
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, qnnrules.Error)
    assert "SM0000" in str(exc.value) and SOC in str(exc.value)


def test_unknown_soc_and_backend_suggest_the_name():
    with pytest.raises(qnnrules.ConfigError, match="did you mean 'SM8650'"):
        qnnrules.Engine(soc="SM8655")
    with pytest.raises(qnnrules.ConfigError, match="did you mean 'htp'"):
        qnnrules.Engine(backend="hpt", soc=SOC)


def test_error_hierarchy_is_one_tree():
    for cls in (qnnrules.RuleError, qnnrules.GraphError, qnnrules.ConfigError, qnnrules.ValidationError,
                qnnrules.AnnotationError):
        assert issubclass(cls, qnnrules.Error) and issubclass(cls, ValueError)
    assert not issubclass(qnnrules.ConfigError, qnnrules.RuleError)
    assert qnnrules.QnnRulesError is qnnrules.Error


def test_reports_and_exceptions_use_the_same_field_names(engine):
    graph = sigmoid_graph(1 / 100)
    report = engine.check(graph)
    with pytest.raises(qnnrules.ValidationError) as exc:
        engine.validate(graph)
    for obj in (report, exc.value):
        assert isinstance(obj.errors, list) and isinstance(obj.warnings, list)
        assert obj.error_count == len(obj.errors) > 0 and obj.warning_count == len(obj.warnings)
    assert [d.to_dict() for d in report.errors] == [d.to_dict() for d in exc.value.errors]


def test_backend_options_are_typed():
    lpai_soc = "SM8850"
    engine = qnnrules.Engine(backend="lpai", soc=lpai_soc, backend_options={"fps": 30})
    options = engine.backend_options
    assert options["fps"] == 30 and isinstance(options["fps"], int)
    assert all(isinstance(v, (int, bool, str)) for v in options.values())
    assert any(isinstance(v, str) for v in options.values())  # enum options by their choice's name


def test_set_log_level_checks_the_name():
    before = qnnrules.log_level()
    try:
        qnnrules.set_log_level("DEBUG")
        assert qnnrules.log_level() == "debug"
    finally:
        qnnrules.set_log_level(before)
    with pytest.raises(qnnrules.ConfigError, match="did you mean 'debug'"):
        qnnrules.set_log_level("debgu")


def test_bad_graph_reports_every_schema_error():
    text = '{"format": "qnnrules-graph", "version": 1, "nodes": [{"kind": "call"}, {"name": "y", "kind": "bogus"}]}'
    with pytest.raises(qnnrules.GraphError) as exc:
        qnnrules.Graph.from_json(text, "bad.json")
    diags = exc.value.diagnostics
    assert [(d.code, d.port) for d in diags] == [("graph-schema", "/nodes/0"), ("graph-schema", "/nodes/1/kind")]
    assert "missing required key 'name'" in str(exc.value) and '"bogus"' in str(exc.value)


def test_correct_fixed_scale_validates(engine):
    assert engine.validate(sigmoid_graph(1 / 65536)) == []


def test_wrong_fixed_scale_raises_with_every_field(engine):
    with pytest.raises(qnnrules.ValidationError) as exc:
        engine.validate(sigmoid_graph(1 / 128))
    err = exc.value
    assert isinstance(err, ValueError)
    [d] = [d for d in err.diagnostics if d.node == "sig"]
    assert (d.severity, d.code, d.op, d.port) == ("error", "fixed-scale", SIGMOID, "out[0] output")
    assert d.rule_id == rule_for(engine, SIGMOID)
    assert d.variant and d.message and d.expected and d.actual and d.hint
    assert d.file.endswith(".yaml") and d.line > 0 and d.column > 0
    assert d.location == f"{d.file}:{d.line}:{d.column}"
    assert "0.0078125" in d.actual
    # The exception message itself lists node, port, rule, expected, actual and hint.
    for text in ("'sig'", "out[0] output", d.rule_id, d.expected, d.actual, d.hint):
        assert text in str(err)


def test_every_violation_is_in_the_exception(engine):
    with pytest.raises(qnnrules.ValidationError) as exc:
        engine.validate(sigmoid_graph(1 / 128, extra_target="aten.qnnrules_test_no_such_op.default"))
    codes = sorted((d.node, d.code) for d in exc.value.errors)
    assert codes == [("extra", "no-rule"), ("sig", "fixed-scale")]
    assert "'extra'" in str(exc.value) and "'sig'" in str(exc.value)


def test_warn_mode_returns_the_same_violations_as_warnings(engine, warn_engine):
    graph = sigmoid_graph(1 / 128)
    diags = warn_engine.validate(graph)
    strict = engine.check(graph).diagnostics
    assert [d.severity for d in diags] == ["warning"] * len(strict)
    assert [(d.node, d.code, d.rule_id) for d in diags] == [(d.node, d.code, d.rule_id) for d in strict]


@pytest.mark.parametrize("scale", [1 / 65536, 1 / 128])
def test_python_and_cli_agree(engine, warn_engine, tmp_path, scale):
    path = tmp_path / "sigmoid.json"
    sigmoid_graph(scale, extra_target="aten.qnnrules_test_no_such_op.default").save(path)
    for e in (engine, warn_engine):
        report = assert_same_as_cli(e, path)
        assert report.diagnostics  # the unknown op at least: the comparison is never of two empty lists


def test_graph_round_trips_through_dict_and_json():
    graph = sigmoid_graph(1 / 65536)
    d = graph.to_dict()
    assert qnnrules.Graph.from_dict(d).to_dict() == d
    assert qnnrules.Graph.from_json(graph.to_json()).to_dict() == d
    assert graph.node("sig")["outputs"][0]["qspec"]["scale"] == 1 / 65536
    assert len(graph) == 3 and graph.node_names == ["x", "sig", "output"]


OVERLAY_RULE = """version: 1
rules:
  - id: htp.qnnrules_test_op
    targets: [aten.qnnrules_test_op.default]
    qnn_op: ElementWiseNeg
    pattern: siso
    description: A test-only op added by an overlay.
    inputs: [{name: input}]
    outputs: [{name: output}]
    variants:
      - name: a8
        ports:
          input: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
          output: {dtype: UFIXED_POINT_8, encoding: SCALE_OFFSET}
"""


def overlay_graph():
    b = qnnrules.GraphBuilder("overlay")
    spec = dict(U8, scale=0.1, zero_point=0)
    x = b.input("x", "float32", [4], qspec=spec)
    y = b.call("t", "aten.qnnrules_test_op.default", [x.q(spec)], outputs=[("float32", [4], spec)])
    b.output([y])
    return b.build()


def test_overlay_adds_an_op(engine, tmp_path):
    (tmp_path / "htp").mkdir()
    (tmp_path / "htp" / "extra.yaml").write_text(OVERLAY_RULE)
    with pytest.raises(qnnrules.ValidationError, match="no rule covers aten.qnnrules_test_op.default"):
        engine.validate(overlay_graph())
    overlaid = qnnrules.Engine(soc=SOC, rules=[tmp_path], use_environment=False)
    assert overlaid.validate(overlay_graph()) == []
    [rule] = [r for r in overlaid.rules if r["id"] == "htp.qnnrules_test_op"]
    assert rule["origin"] == str(tmp_path) and rule["location"].startswith(str(tmp_path))
    assert len(overlaid.rules) == len(engine.rules) + 1


def test_broken_overlay_is_a_rule_error_with_file_and_line(tmp_path):
    (tmp_path / "htp").mkdir()
    (tmp_path / "htp" / "bad.yaml").write_text(OVERLAY_RULE.replace("pattern: siso", "pattern: siso\n    colour: red"))
    with pytest.raises(qnnrules.RuleError) as exc:
        qnnrules.Engine(soc=SOC, rules=[tmp_path], use_environment=False)
    [d] = exc.value.diagnostics
    assert d.code == "unknown-key" and d.file.endswith("bad.yaml") and d.line == 7


def float_sigmoid_graph():
    b = qnnrules.GraphBuilder("float_sigmoid")
    x = b.input("x", "float32", [1, 8])
    y = b.call("sig", SIGMOID, [x], outputs=[("float32", [1, 8])])
    b.output([y])
    return b.build()


@pytest.mark.parametrize("config", ["8a8w", "16a8w"])
def test_annotate_returns_an_annotated_copy_that_validates(engine, config):
    graph = float_sigmoid_graph()
    before = graph.to_dict()
    annotated = engine.annotate(graph, config)
    assert graph.to_dict() == before
    out_spec = annotated.node("sig")["outputs"][0]["qspec"]
    in_spec = annotated.node("sig")["args"][0]["qspec"]
    assert out_spec["dtype"] == ("uint8" if config == "8a8w" else "int32") and "scale" in out_spec
    assert in_spec["dtype"] == out_spec["dtype"]
    assert engine.validate(annotated) == []


def test_annotate_with_unknown_config_is_a_config_error(engine):
    with pytest.raises(qnnrules.ConfigError, match="3a3w"):
        engine.annotate(float_sigmoid_graph(), "3a3w")


def test_delegation_report_names_cpu_nodes_and_partitions(engine):
    report = engine.delegation(sigmoid_graph(1 / 65536, extra_target="aten.qnnrules_test_no_such_op.default"))
    assert report.compute_nodes == 2 and report.delegated_compute_nodes == 1
    assert report.partitions == [["sig"]]
    [fb] = report.fallbacks
    assert (fb["node"], fb["reason"], fb["code"]) == ("extra", "no-rule", "no-rule")
    assert not report.validation.ok
    assert "extra" in str(report) and report.to_dict()["fallbacks"][0]["node"] == "extra"


def qdq_sigmoid_graph(out_scale):
    """x -> q0 -> dq0 -> sig -> q1 -> dq1 -> output: a QDQ graph as convert_pt2e writes it (16 bits:
    the fixed Sigmoid output encoding is required there)."""
    q = "quantized_decomposed.quantize_per_tensor.default"
    dq = "quantized_decomposed.dequantize_per_tensor.default"
    t = {"dtype": "float32", "shape": [1, 8]}
    u = {"dtype": "uint16", "shape": [1, 8]}

    def call(name, target, src, scale, zp, out):
        return {"name": name, "kind": "call", "target": target,
                "args": [{"ref": src}, scale, zp, 0, 65535, "torch.uint16"], "outputs": [out]}
    return qnnrules.Graph.from_dict({"format": "qnnrules-graph", "version": 1, "name": "qdq", "nodes": [
        {"name": "x", "kind": "input", "outputs": [t]},
        call("q0", q, "x", 0.0001, 32768, u), call("dq0", dq, "q0", 0.0001, 32768, t),
        {"name": "sig", "kind": "call", "target": SIGMOID, "args": [{"ref": "dq0"}], "outputs": [t]},
        call("q1", q, "sig", out_scale, 0, u), call("dq1", dq, "q1", out_scale, 0, t),
        {"name": "output", "kind": "output", "args": [[{"ref": "dq1"}]]}]})


def test_delegation_of_a_qdq_graph_names_the_compute_node(engine):
    # 1/65535 breaks sigmoid's fixed 16-bit output scale: the fallback is 'sig', not the quantize node
    # at sig's index in the unfolded graph.
    report = engine.delegation(qdq_sigmoid_graph(1 / 65535))
    [fb] = report.fallbacks
    assert (fb["node"], fb["op"], fb["code"]) == ("sig", SIGMOID, "fixed-scale")
    assert report.to_dict()["fallbacks"][0]["node"] == "sig"
    assert "q0" not in str(report)
    ok = engine.delegation(qdq_sigmoid_graph(1 / 65536))
    assert ok.partitions == [["sig"]] and not ok.fallbacks


def test_qdq_graph_with_shared_annotations_folds_with_renumbered_references(engine, warn_engine, tmp_path):
    """A converted (Q/DQ) graph that also carries shared-encoding annotations naming nodes the
    fold removes: the references follow the fold (this used to read a stale node index)."""
    b = qnnrules.GraphBuilder("qdq_shared")
    args = [0.05, 128, 0, 255, "uint8"]
    x = b.input("x", "float32", [1, 8])
    q = b.call("q", "quantized_decomposed.quantize_per_tensor.default", [x, *args], outputs=[("uint8", [1, 8])])
    dq = b.call("dq", "quantized_decomposed.dequantize_per_tensor.default", [q, *args],
                outputs=[("float32", [1, 8])])
    # The input edge shares the output of q1 (node 4 of 7), i.e. relu's output once folded
    # (3 nodes are left: an unrenumbered index 4 was out of range).
    relu = b.call("relu", "aten.relu.default", [dq.q({"shared_with": {"node": "q1"}})],
                  outputs=[("float32", [1, 8])])
    q1 = b.call("q1", "quantized_decomposed.quantize_per_tensor.default", [relu, *args],
                outputs=[("uint8", [1, 8])])
    dq1 = b.call("dq1", "quantized_decomposed.dequantize_per_tensor.default", [q1, *args],
                 outputs=[("float32", [1, 8])])
    b.output([dq1])
    graph = b.build()
    report = engine.check(graph)
    assert report.diagnostics == [] and report.nodes_checked == 1
    path = tmp_path / "qdq_shared.json"
    graph.save(path)
    for e in (engine, warn_engine):
        assert_same_as_cli(e, path)


@pytest.mark.parametrize("out_scale", [1 / 65535, 1 / 65536])
def test_annotate_then_check_says_what_run_says_on_a_qdq_graph(warn_engine, out_scale):
    """annotate folds a Q/DQ graph as run does: the annotation's findings then the rules' are
    run's diagnostics, in order (before the fold, annotate saw q/dq nodes: two qdq-mismatch and
    no fixed-scale on the sigmoid)."""
    graph = qdq_sigmoid_graph(out_scale)
    run = warn_engine.run(graph, annotate="16a16w")
    report = warn_engine.annotate_report(graph, "16a16w")
    both = list(report.diagnostics) + list(warn_engine.check(report.graph).diagnostics)
    assert [(d.code, d.node, d.port) for d in both] == \
        [(d.code, d.node, d.port) for d in run.diagnostics]
    assert "qdq-mismatch" not in [d.code for d in both]
    assert ("fixed-scale" in [d.code for d in both]) == (out_scale != 1 / 65536)
    assert report.graph.node_names == ["x", "sig", "output"]


def test_graph_node_is_the_node_of_to_dict():
    graph = qdq_sigmoid_graph(1 / 65536)
    nodes = graph.to_dict()["nodes"]
    assert [graph.node(n["name"]) for n in nodes] == nodes
    with pytest.raises(KeyError, match="no node named 'nope'"):
        graph.node("nope")


def test_suggest_recipe_and_plan_write_the_clis_recipes(tmp_path):
    """Engine.suggest_recipe / plan are qnn-validate --suggest-recipe / --plan: the same recipe
    text, and annotating with it validates clean."""
    import pathlib  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    mixed = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "annotate" / "mixed.json"
    graph = qnnrules.Graph.from_file(mixed)
    engine = qnnrules.Engine(backend="htp", soc="SM8350")
    fix = engine.suggest_recipe(graph, "16a16w")
    assert [(c["node"], c["to"]) for c in fix.choices] == [("conv1", "16a8w"), ("fc", "16a8w"), ("ln", "16a8w"),
                                                             ("mm", "16a8w")]
    assert fix.validates_clean and not fix.on_cpu
    recipe = tmp_path / "fix.yaml"
    subprocess.run([os.environ["QNNRULES_VALIDATE_EXE"], str(mixed), "--soc", "SM8350", "--annotate", "16a16w",
                    "--warn", "--suggest-recipe", str(recipe)], check=True, capture_output=True)
    assert recipe.read_text() == fix.yaml
    assert engine.check(engine.annotate(graph, "16a16w", recipe=str(recipe))).errors == []
    plan = engine.plan(graph)
    assert plan.nodes_per_config == {"16a16w:per_channel": 11, "16a8w:per_channel": 4}
    with pytest.raises(qnnrules.ConfigError, match="17a3w"):
        engine.suggest_recipe(graph, "17a3w")
