"""End to end with qnnrules.torch.Quantizer on real architectures: torch.export -> prepare_pt2e
-> one calibration batch -> convert_pt2e, then the converted graph (its quantize/dequantize
nodes with the calibrated scales, folded by the engine) validates clean on SM8650.

torchvision models with random weights at 64x64 inputs, and the Llama-style decoder with a KV
cache of models.py. One module, so CTest can label and time the heavy part on its own."""

import pytest
import torch
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

import qnnrules.torch as qt
from conftest import SOC
from models import Decoder, export, torchvision_model

TORCHVISION = ["resnet18", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "vit_b_16", "swin_t",
               "deeplabv3_resnet50"]
QDQ_PREFIX = "quantized_decomposed."


def model_and_example(name):
    if name == "decoder":
        return Decoder().eval(), Decoder.example()
    return torchvision_model(name)


# Where the backend does not take a model whole, the exact diagnostics the engine gives, as
# (code, op) pairs: the test fails when they change. swin_t's window partition is a rank-6
# Reshape -> Transpose -> Reshape, which QNN's op validation refuses (HTP's rank limit 5,
# tests/conformance/explore/rank.json); only ONNX Runtime's path fuses it to rank 5
# (rules/lowering/ort-qnn.yaml), and this graph is judged for ExecuTorch's.
KNOWN_GAPS: dict = {"swin_t": {("rank", "aten.view.default"), ("rank", "aten.permute.default"),
                               ("rank", "aten.reshape.default")}}


@pytest.mark.parametrize("name", TORCHVISION + ["decoder"])
def test_quantizes_and_converted_graph_validates_clean(engine, name):
    model, example = model_and_example(name)
    known = KNOWN_GAPS.get(name, set())
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="16a8w:per_channel", name=name, strict=not known)
    prepared = prepare_pt2e(export(model, example), quantizer)   # annotate + validate
    with torch.no_grad():
        prepared(*example)
    converted = convert_pt2e(prepared)

    report = engine.check(qt.from_fx(converted, name=name))
    assert {(d.code, d.op) for d in report.diagnostics} == known, "\n".join(str(d) for d in report.diagnostics)
    if not known:
        assert quantizer.validate(converted) == []
    # Not vacuous: every compute node had a rule, and the annotated ports became Q/DQ pairs
    # with calibrated (non-default) scales.
    assert report.nodes_with_rule == report.nodes_checked - sum(d.code == "no-rule" for d in report.diagnostics)
    assert report.nodes_checked > 0
    qdq = [n for n in converted.graph.nodes if str(n.target).startswith(QDQ_PREFIX)]
    annotated = [n for n in quantizer.graph.to_dict()["nodes"] if any("qspec" in o for o in n.get("outputs", []))]
    assert len(qdq) >= len(annotated) > 0
    scales = {n.args[1] for n in qdq if "per_tensor" in str(n.target) and isinstance(n.args[1], float)}
    assert len(scales) > 3
