"""qnnrules.torch on real traced models: torchvision resnet18 and mobilenet_v2 (random weights)
traced with make_fx, annotated and validated on SM8650; annotations written back onto FX nodes;
PyTorch-style annotations read from node.meta; CLI and Python agree on exported graphs."""

import math
import types

import pytest
import torch
import torchvision
from torch.fx.experimental.proxy_tensor import make_fx

import qnnrules
import qnnrules.torch as qt
from conftest import assert_same_as_cli, rule_for

INPUT = (1, 3, 64, 64)


def trace(model):
    torch.manual_seed(0)
    model = model.eval()
    with torch.no_grad():
        return model, make_fx(model)(torch.randn(*INPUT))


# Each model is traced once per session; tests that write annotations back trace their own.
@pytest.fixture(scope="module")
def resnet18():
    return trace(torchvision.models.resnet18(weights=None))


@pytest.fixture(scope="module")
def mobilenet_v2():
    return trace(torchvision.models.mobilenet_v2(weights=None))


class ConvSigmoid(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.act = torch.nn.Sigmoid()

    def forward(self, x):
        return self.act(self.conv(x))


def fx_node(gm, target):
    [node] = [n for n in gm.graph.nodes if n.op == "call_function" and str(n.target) == target]
    return node


def test_conversion_keeps_dtypes_shapes_literals_and_module_paths(resnet18):
    model, gm = resnet18
    nodes = qt.to_dict(gm, module=model)["nodes"]
    assert len(nodes) == len(gm.graph.nodes)
    by_name = {n["name"]: n for n in nodes}
    first = nodes[0]
    assert first["kind"] == "input" and first["outputs"] == [{"dtype": "float32", "shape": list(INPUT)}]
    conv = by_name["convolution"]
    assert conv["target"] == "aten.convolution.default" and conv["module"] == "conv1"
    assert conv["args"][2:] == [None, [2, 2], [3, 3], [1, 1], False, [0, 0], 1]
    assert conv["outputs"] == [{"dtype": "float32", "shape": [1, 64, 32, 32]}]
    weight = by_name[conv["args"][1]["ref"]]
    assert weight["kind"] == "parameter" and weight["meta"] == {"fqn": "conv1.weight"}
    bn = next(n for n in nodes if n.get("target") == "aten.native_batch_norm.default")
    assert len(bn["outputs"]) == 3 and bn["module"] == "bn1"
    assert {by_name[a["ref"]]["kind"] for a in bn["args"][3:5]} == {"constant"}  # running stats
    assert nodes[-1]["kind"] == "output" and nodes[-1]["args"] == [{"ref": "addmm"}]
    assert by_name["addmm"]["module"] == "fc"


def test_non_finite_literals_and_dtypes_are_kept_as_strings():
    class Clamp(torch.nn.Module):
        def forward(self, x):
            return torch.clamp(x, min=-math.inf, max=6.0).to(torch.float16)

    nodes = qt.to_dict(make_fx(Clamp())(torch.randn(2, 3)))["nodes"]
    clamp = next(n for n in nodes if n.get("target", "").startswith("aten.clamp"))
    assert clamp["args"][1:] == ["-inf", 6.0]
    convert = nodes[-2]
    assert convert["outputs"][0]["dtype"] == "float16"
    assert "float16" in [v for v in convert.get("kwargs", {}).values()] + convert["args"][1:]


@pytest.mark.parametrize("config", ["8a8w", "16a8w"])
@pytest.mark.parametrize("model_name", ["resnet18", "mobilenet_v2"])
def test_model_annotates_and_validates_on_sm8650(request, engine, model_name, config):
    model, gm = request.getfixturevalue(model_name)
    annotated = engine.annotate(qt.from_fx(gm, name=model_name, module=model), config)
    report = engine.check(annotated)
    assert report.diagnostics == [], "\n".join(str(d) for d in report.diagnostics)
    engine.validate(annotated)  # strict: does not raise
    # Not vacuous: every convolution was checked with quantized activations and weights.
    nodes = annotated.to_dict()["nodes"]
    convs = [n for n in nodes if n.get("target") == "aten.convolution.default"]
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


def test_python_and_cli_agree_on_exported_resnet18(engine, warn_engine, resnet18, tmp_path):
    model, gm = resnet18
    path = tmp_path / "resnet18_16a8w.json"
    engine.annotate(qt.from_fx(gm, module=model), "16a8w").save(path)
    for e in (engine, warn_engine):
        assert_same_as_cli(e, path)


def test_write_back_puts_plain_dicts_on_nodes_and_reads_back(engine):
    model, gm = trace(ConvSigmoid())
    annotated = qt.annotate(engine, gm, "8a8w", module=model)
    conv = fx_node(gm, "aten.convolution.default")
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
    assert qt.from_fx(gm, name=annotated.name, module=model).to_dict() == annotated.to_dict()
    assert qt.validate(engine, gm, module=model) == []


def test_wrong_sigmoid_scale_raises_naming_node_and_rule(engine, warn_engine, tmp_path):
    model, gm = trace(ConvSigmoid())
    qt.annotate(engine, gm, "8a8w", module=model)
    sig = fx_node(gm, "aten.sigmoid.default")
    sig.meta[qt.ANNOTATION_KEY]["output_qspec"]["scale"] = 1 / 128
    with pytest.raises(qnnrules.ValidationError) as exc:
        qt.validate(engine, gm, module=model)
    [d] = exc.value.errors
    assert (d.node, d.code, d.port) == (sig.name, "fixed-scale", "out[0] output")
    assert d.rule_id == rule_for(engine, "aten.sigmoid.default")
    assert f"'{sig.name}'" in str(exc.value) and d.rule_id in str(exc.value)
    # The exported file gives the CLI the same verdict and diagnostics.
    path = qt.save(gm, tmp_path / "conv_sigmoid.json", module=model)
    for e in (engine, warn_engine):
        assert_same_as_cli(e, path)


def pt2e_annotation(input_qspec_map, output_qspec):
    """Stand-ins with the attributes of torch.ao's QuantizationAnnotation / *QuantizationSpec
    (torch 1.13 has no PT2E quantizer API; the adapter reads attributes, not types)."""
    return types.SimpleNamespace(input_qspec_map=input_qspec_map, output_qspec=output_qspec, _annotated=True)


def test_pytorch_quantization_annotations_are_read(engine):
    class Sig(torch.nn.Module):
        def forward(self, x):
            return torch.sigmoid(x).view(-1)

    gm = make_fx(Sig())(torch.randn(1, 8))
    x = next(iter(gm.graph.nodes))
    sig = fx_node(gm, "aten.sigmoid.default")
    view = fx_node(gm, "aten.view.default")
    act = types.SimpleNamespace(dtype=torch.uint8, quant_min=0, quant_max=255, qscheme=torch.per_tensor_affine,
                                ch_axis=None, observer_or_fake_quant_ctr=None, is_dynamic=False)
    fixed = types.SimpleNamespace(dtype=torch.uint8, quant_min=0, quant_max=255, qscheme=torch.per_tensor_affine,
                                  scale=1 / 256, zero_point=0)
    x.meta[qt.TORCH_ANNOTATION_KEY] = pt2e_annotation({}, act)
    sig.meta[qt.TORCH_ANNOTATION_KEY] = pt2e_annotation({x: act}, fixed)
    view.meta[qt.TORCH_ANNOTATION_KEY] = pt2e_annotation(
        {sig: types.SimpleNamespace(edge_or_node=sig)},
        types.SimpleNamespace(edge_or_node=(sig, view)))
    nodes = {n["name"]: n for n in qt.to_dict(gm)["nodes"]}
    assert nodes[sig.name]["args"][0]["qspec"] == {"dtype": "uint8", "quant_min": 0, "quant_max": 255,
                                                   "qscheme": "per_tensor_affine"}
    assert nodes[sig.name]["outputs"][0]["qspec"]["scale"] == 1 / 256
    assert nodes[view.name]["args"][0]["qspec"] == {"shared_with": {"node": sig.name}}
    assert nodes[view.name]["outputs"][0]["qspec"] == {"shared_with": {"edge": [sig.name, view.name]}}
    assert engine.check(qt.from_fx(gm)).errors == 0
    fixed.scale = 1 / 100
    with pytest.raises(qnnrules.ValidationError, match=sig.name):
        qt.validate(engine, gm)


@pytest.mark.skipif(not hasattr(torch, "export"), reason="torch.export needs torch >= 2.1 (Debian 12 ships 1.13)")
def test_torch_export_program_converts_with_lifted_parameters(engine):
    model = ConvSigmoid().eval()
    program = torch.export.export(model, (torch.randn(*INPUT),))
    nodes = qt.to_dict(program)["nodes"]
    kinds = {n["meta"]["fqn"]: n["kind"] for n in nodes if "meta" in n}
    assert kinds == {"conv.weight": "parameter", "conv.bias": "parameter"}
    conv = next(n for n in nodes if n.get("target", "").startswith("aten.conv"))
    assert conv["module"] == "conv"
    assert engine.check(engine.annotate(qt.from_fx(program), "8a8w")).errors == 0
