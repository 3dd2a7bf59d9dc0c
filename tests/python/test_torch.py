"""qnnrules.torch on torch.export graphs (ep.module(), what prepare_pt2e receives, and the
ExportedProgram itself): torchvision resnet18 and mobilenet_v2 (random weights) converted,
annotated and validated on SM8650; linear weights keep their config; annotations written back
onto FX nodes; PyTorch's pt2e annotations read from node.meta; CLI and Python agree."""

import math

import pytest
import torch
import torchvision
from torchao.quantization.pt2e.quantizer import (
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    SharedQuantizationSpec,
)

import qnnrules
import qnnrules.torch as qt
from conftest import assert_same_as_cli, rule_for
from models import export

INPUT = (1, 3, 64, 64)


def exported(model):
    torch.manual_seed(0)
    model = model.eval()
    return model, export(model, (torch.randn(*INPUT),))


# Each model is exported once per module; tests that write annotations back export their own.
@pytest.fixture(scope="module")
def resnet18():
    return exported(torchvision.models.resnet18(weights=None))


@pytest.fixture(scope="module")
def mobilenet_v2():
    return exported(torchvision.models.mobilenet_v2(weights=None))


class ConvSigmoid(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.act = torch.nn.Sigmoid()

    def forward(self, x):
        return self.act(self.conv(x))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 64)
        self.fc2 = torch.nn.Linear(64, 16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def fx_node(gm, target):
    [node] = [n for n in gm.graph.nodes if n.op == "call_function" and str(n.target) == target]
    return node


def test_conversion_keeps_dtypes_shapes_literals_and_module_paths(resnet18):
    _, gm = resnet18
    nodes = qt.to_dict(gm)["nodes"]
    assert len(nodes) == len(gm.graph.nodes) - 1          # torch.export's _guards_fn call is left out
    by_name = {n["name"]: n for n in nodes}
    assert "_guards_fn" not in by_name
    x = next(n for n in nodes if n["kind"] == "input")
    assert x["outputs"] == [{"dtype": "float32", "shape": list(INPUT)}]
    conv = by_name["conv2d"]
    assert conv["target"] == "aten.conv2d.default" and conv["module"] == "conv1"
    assert conv["args"][2:] == [None, [2, 2], [3, 3]]
    assert conv["outputs"] == [{"dtype": "float32", "shape": [1, 64, 32, 32]}]
    weight = by_name[conv["args"][1]["ref"]]
    assert weight["kind"] == "parameter" and weight["meta"] == {"fqn": "conv1.weight"}
    bn = by_name["batch_norm"]
    assert bn["target"] == "aten.batch_norm.default" and bn["module"] == "bn1"
    assert {by_name[a["ref"]]["kind"] for a in bn["args"][3:5]} == {"constant"}  # running stats
    fc = by_name["linear"]
    assert fc["target"] == "aten.linear.default" and fc["module"] == "fc"
    assert by_name[fc["args"][1]["ref"]]["meta"] == {"fqn": "fc.weight"}
    assert nodes[-1]["kind"] == "output" and nodes[-1]["args"] == [[{"ref": "linear"}]]


def test_non_finite_literals_and_dtypes_are_kept_as_strings():
    class Clamp(torch.nn.Module):
        def forward(self, x):
            return torch.clamp(x, min=-math.inf, max=6.0).to(torch.float16)

    nodes = qt.to_dict(export(Clamp(), (torch.randn(2, 3),)))["nodes"]
    clamp = next(n for n in nodes if n.get("target", "").startswith("aten.clamp"))
    assert clamp["args"][1:] == ["-inf", 6.0]
    convert = next(n for n in nodes if n.get("target", "").startswith("aten.to"))
    assert convert["outputs"][0]["dtype"] == "float16"
    assert "float16" in list(convert.get("kwargs", {}).values()) + convert["args"][1:]


@pytest.mark.parametrize("config", ["8a8w", "16a8w"])
@pytest.mark.parametrize("model_name", ["resnet18", "mobilenet_v2"])
def test_model_annotates_and_validates_on_sm8650(request, engine, model_name, config):
    _, gm = request.getfixturevalue(model_name)
    annotated = engine.annotate(qt.from_fx(gm, name=model_name), config)
    report = engine.check(annotated)
    assert report.diagnostics == [], "\n".join(str(d) for d in report.diagnostics)
    engine.validate(annotated)  # strict: does not raise
    # Not vacuous: every convolution was checked with quantized activations and weights.
    nodes = annotated.to_dict()["nodes"]
    convs = [n for n in nodes if n.get("target") == "aten.conv2d.default"]
    assert convs and all("qspec" in c["args"][0] and "qspec" in c["args"][1] for c in convs)
    # Every call is checked except what pruning sets aside: make_fx's dead batch-norm leftovers
    # (unused getitems, empty.memory_format reserves, detach) and the fc weight's constant t.
    d = engine.delegation(annotated).to_dict()
    target = {n["name"]: n.get("target") for n in nodes}
    assert {target[n] for n in d["dead_nodes"]} <= {"getitem", "aten.empty.memory_format", "aten.detach.default"}
    assert all(target[n] != "aten.convolution.default" for n in d["dead_nodes"] + d["constant_nodes"])
    pruned = len(d["dead_nodes"]) + len(d["constant_nodes"])
    assert report.nodes_checked == sum(n["kind"] == "call" for n in nodes) - pruned
    assert report.nodes_with_rule == report.nodes_checked
    assert d["partition_count"] == 1 and d["cpu_compute_nodes"] == 0


@pytest.mark.parametrize("soc,config,weight", [
    ("SM8650", "8a4w:per_channel", {"dtype": "int8", "quant_min": -7, "quant_max": 7}),
    ("SM8850", "16a2w", {"dtype": "int8", "quant_min": -2, "quant_max": 1}),   # 2-bit: V81 on
    ("SM8650", "16a4w_block", {"dtype": "int8", "quant_min": -7, "quant_max": 7, "block_size": [1, 32]}),
])
def test_linear_weights_keep_their_config(soc, config, weight):
    engine = qnnrules.Engine(backend="htp", soc=soc)
    gm = export(Mlp(), (torch.randn(2, 64),))
    annotated = engine.annotate(qt.from_fx(gm), config)
    for name in ("linear", "linear_1"):
        spec = annotated.node(name)["args"][1]["qspec"]
        assert {k: spec[k] for k in weight} == weight and spec["qscheme"] == "per_channel_symmetric"
    assert engine.check(annotated).error_count == 0


def test_block_wise_linear_on_sm8350_is_gated():
    engine = qnnrules.Engine(backend="htp", soc="SM8350")
    annotated = engine.annotate(qt.from_fx(export(Mlp(), (torch.randn(2, 64),))), "16a4w_block")
    with pytest.raises(qnnrules.ValidationError) as exc:
        engine.validate(annotated)
    assert {(d.node, d.code, d.rule_id) for d in exc.value.errors} == {
        ("linear", "arch-gate", rule_for(engine, "aten.linear.default")),
        ("linear_1", "arch-gate", rule_for(engine, "aten.linear.default"))}


def test_python_and_cli_agree_on_exported_resnet18(engine, warn_engine, resnet18, tmp_path):
    _, gm = resnet18
    path = tmp_path / "resnet18_16a8w.json"
    engine.annotate(qt.from_fx(gm, name="resnet18"), "16a8w").save(path)
    for e in (engine, warn_engine):
        assert_same_as_cli(e, path)


def test_write_back_puts_plain_dicts_on_nodes_and_reads_back(engine):
    _, gm = exported(ConvSigmoid())
    annotated = qt.annotate(engine, gm, "8a8w", name="conv_sigmoid")
    conv = fx_node(gm, "aten.conv2d.default")
    ann = conv.meta[qt.ANNOTATION_KEY]
    x, w = conv.args[0], conv.args[1]
    assert set(ann["input_qspec_map"]) >= {x, w}
    assert ann["input_qspec_map"][x]["dtype"] == torch.uint8
    assert ann["input_qspec_map"][w]["dtype"] == torch.int8
    assert ann["input_qspec_map"][w]["qscheme"] in (torch.per_tensor_symmetric, torch.per_channel_symmetric)
    assert ann["output_qspec"]["dtype"] == torch.uint8
    sig_out = fx_node(gm, "aten.sigmoid.default").meta[qt.ANNOTATION_KEY]["output_qspec"]
    assert sig_out["scale"] == pytest.approx(1 / 256) and sig_out["zero_point"] == 0
    # Converting the annotated GraphModule again gives the engine's annotated graph.
    assert qt.from_fx(gm, name="conv_sigmoid").to_dict() == annotated.to_dict()
    assert qt.validate(engine, gm) == []


def test_wrong_sigmoid_scale_raises_naming_node_and_rule(engine, warn_engine, tmp_path):
    _, gm = exported(ConvSigmoid())
    qt.annotate(engine, gm, "16a8w")  # 16 bits: the fixed Sigmoid output encoding is required
    sig = fx_node(gm, "aten.sigmoid.default")
    sig.meta[qt.ANNOTATION_KEY]["output_qspec"]["scale"] = 1 / 128
    with pytest.raises(qnnrules.ValidationError) as exc:
        qt.validate(engine, gm)
    [d] = exc.value.errors
    assert (d.node, d.code, d.port) == (sig.name, "fixed-scale", "out[0] output")
    assert d.rule_id == rule_for(engine, "aten.sigmoid.default")
    assert f"'{sig.name}'" in str(exc.value) and d.rule_id in str(exc.value)
    # The exported file gives the CLI the same verdict and diagnostics.
    path = qt.save(gm, tmp_path / "conv_sigmoid.json")
    for e in (engine, warn_engine):
        assert_same_as_cli(e, path)


def test_pytorch_quantization_annotations_are_read(engine):
    class Sig(torch.nn.Module):
        def forward(self, x):
            return torch.sigmoid(x).view(-1)

    gm = export(Sig(), (torch.randn(1, 8),))
    x = next(n for n in gm.graph.nodes if n.op == "placeholder")
    sig = fx_node(gm, "aten.sigmoid.default")
    view = fx_node(gm, "aten.view.default")
    act = QuantizationSpec(dtype=torch.uint8, quant_min=0, quant_max=255, qscheme=torch.per_tensor_affine,
                           observer_or_fake_quant_ctr=None)

    def fixed(scale):
        return FixedQParamsQuantizationSpec(dtype=torch.uint8, quant_min=0, quant_max=255,
                                            qscheme=torch.per_tensor_affine, scale=scale, zero_point=0)

    x.meta[qt.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(output_qspec=act, _annotated=True)
    sig.meta[qt.TORCH_ANNOTATION_KEY] = QuantizationAnnotation({x: act}, fixed(1 / 256), _annotated=True)
    view.meta[qt.TORCH_ANNOTATION_KEY] = QuantizationAnnotation(
        {sig: SharedQuantizationSpec(sig)}, SharedQuantizationSpec((sig, view)), _annotated=True)
    nodes = {n["name"]: n for n in qt.to_dict(gm)["nodes"]}
    assert nodes[sig.name]["args"][0]["qspec"] == {"dtype": "uint8", "quant_min": 0, "quant_max": 255,
                                                   "qscheme": "per_tensor_affine"}
    assert nodes[sig.name]["outputs"][0]["qspec"]["scale"] == 1 / 256
    assert nodes[view.name]["args"][0]["qspec"] == {"shared_with": {"node": sig.name}}
    assert nodes[view.name]["outputs"][0]["qspec"] == {"shared_with": {"edge": [sig.name, view.name]}}
    assert engine.check(qt.from_fx(gm)).error_count == 0
    # At 8 bits the fixed scale is recommended, not required: a warning naming the node.
    sig.meta[qt.TORCH_ANNOTATION_KEY].output_qspec = fixed(1 / 100)
    report = engine.check(qt.from_fx(gm))
    assert report.error_count == 0
    assert [(d.node, d.code) for d in report.warnings] == [(sig.name, "fixed-scale")]


def test_exported_program_converts_with_lifted_parameters(engine):
    program = torch.export.export(ConvSigmoid().eval(), (torch.randn(*INPUT),))
    nodes = qt.to_dict(program)["nodes"]
    kinds = {n["meta"]["fqn"]: n["kind"] for n in nodes if "meta" in n}
    assert kinds == {"conv.weight": "parameter", "conv.bias": "parameter"}
    conv = next(n for n in nodes if n.get("target", "").startswith("aten.conv"))
    assert conv["module"] == "conv"
    assert engine.check(engine.annotate(qt.from_fx(program), "8a8w")).error_count == 0
