"""QAT of CNNs with BatchNorm (issue 34) with qnnrules.torch.Quantizer: Conv + BatchNorm (+ ReLU)
annotated as one partition (python/qnnrules/pt2e_qat.py), so torchao's QAT fusion applies at
prepare_qat_pt2e and its fold at convert_pt2e: no float batch_norm is left and the converted
graph validates clean. torchvision resnet18 and mobilenet_v2 trained a few steps from a
train-mode export; small models for the partition's cases (bias or none, a ReLU after, eval
mode before convert). The accuracy against ExecuTorch's QnnQuantizer on the same steps is
measured by benchmarks/quantizer_qat.py (docs/embedding.md, "QAT of CNNs with BatchNorm")."""

import pytest
import torch
import torch.nn.functional as F
import torchvision
from torchao.quantization.pt2e import move_exported_model_to_eval
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

import qnnrules.torch as qt
from conftest import SOC
from qnnrules import pt2e_prepare, pt2e_qat


def quantizer(config="8a8w", **kw):
    return qt.Quantizer(backend="htp", soc=SOC, config=config, is_qat=True, strict=True, **kw)


def batch_norms(gm):
    return [n.name for n in gm.graph.nodes if n.op == "call_function" and "batch_norm" in str(n.target)]


def qat(model, q, batches, eval_before_convert=False):
    """train-mode export, prepare_qat_pt2e, one SGD step per batch, convert."""
    gm = torch.export.export(model.train(), (batches[0],)).module()
    assert batch_norms(gm), "the exported model has no batch_norm to fold"
    prepared = qt.prepare_qat_pt2e(gm, q)
    opt = torch.optim.SGD(prepared.parameters(), lr=1e-3)
    for x in batches:
        opt.zero_grad()
        prepared(x).square().mean().backward()
        opt.step()
    if eval_before_convert:
        move_exported_model_to_eval(prepared)
    return qt.convert_pt2e(prepared)


def assert_folded_and_valid(q, converted):
    assert batch_norms(converted) == []
    assert q.validate(converted) == []  # strict: raises with every violation
    convs = [n for n in converted.graph.nodes if n.op == "call_function" and "conv" in str(n.target)]
    assert convs and all(qt._is_qdq(qt._target_name(u)) for c in convs for u in c.users), \
        "a conv output is not quantized"


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2"])
def test_torchvision_cnn_qat_folds_every_batch_norm_and_validates_clean(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(num_classes=10)
    q = quantizer(is_conv_per_channel=True, is_linear_per_channel=True)
    converted = qat(model, q, [torch.randn(2, 3, 32, 32) for _ in range(2)])
    assert_folded_and_valid(q, converted)


class ConvBn(torch.nn.Module):
    """conv (bias or not) -> bn (-> relu) -> pool -> linear: the partition's cases."""

    def __init__(self, bias, relu):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1, bias=bias)
        self.bn = torch.nn.BatchNorm2d(8)
        self.relu = relu
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        x = self.bn(self.conv(x))
        x = torch.relu(x) if self.relu else x
        return self.fc(x.mean(dim=(2, 3)))


@pytest.mark.parametrize("bias,relu,eval_before_convert", [(False, True, False), (True, False, False),
                                                           (False, False, True)])
def test_conv_bn_partition_folds(bias, relu, eval_before_convert):
    torch.manual_seed(0)
    q = quantizer()
    converted = qat(ConvBn(bias, relu), q, [torch.randn(2, 3, 8, 8) for _ in range(2)], eval_before_convert)
    assert_folded_and_valid(q, converted)
    # The conv's bias is quantized (a zero one added when it had none): int32, from its dequantize.
    [conv] = [n for n in converted.graph.nodes if "conv" in str(n.target)]
    assert qt._is_qdq(qt._target_name(conv.args[2])), "the folded bias is float"


def test_the_qat_modifier_of_the_config_is_is_qat():
    """config="8a8w:per_channel,qat" (the modifier, without is_qat=True) pairs conv + batch_norm and
    folds as is_qat=True does: before, the pairs were missed, the batch_norm stayed float, and
    ExecuTorch's lowering failed on it (lowering oracle cnn_bn/qnnrules/8a8w_qat/SM8650)."""
    torch.manual_seed(0)
    q = qt.Quantizer(backend="htp", soc=SOC, config="8a8w:per_channel,qat", strict=True)
    converted = qat(ConvBn(True, True), q, [torch.randn(2, 3, 8, 8) for _ in range(2)], True)
    assert_folded_and_valid(q, converted)


def test_the_partition_annotation():
    """conv: input, weight and bias specs, no output; batch_norm: nothing; its output: the spec
    the engine chose for the conv's output. The relu keeps the engine's annotation."""
    model = ConvBn(bias=False, relu=True)
    gm = torch.export.export(model.train(), (torch.randn(2, 3, 8, 8),)).module()
    q = quantizer()
    q.annotate(gm)
    [conv] = [n for n in gm.graph.nodes if qt._target_name(n) == "aten.conv2d.default"]
    bn = next(iter(conv.users))
    conv_ann, bn_ann = conv.meta[qt.TORCH_ANNOTATION_KEY], bn.meta[qt.TORCH_ANNOTATION_KEY]
    assert conv.args[2].op == "get_attr" and conv.args[2].target == f"{conv.name}_zero_bias"
    assert list(conv_ann.input_qspec_map) == [conv.args[0], conv.args[1], conv.args[2]]
    assert conv_ann.output_qspec is None
    assert bn_ann.input_qspec_map == {} and bn_ann.output_qspec is not None
    [engine_conv] = [n for n in q.graph.to_dict()["nodes"] if n["name"] == conv.name]
    chosen = engine_conv["outputs"][0]["qspec"]
    out = bn_ann.output_qspec
    assert (qt._DTYPES[out.dtype], out.quant_min, out.quant_max) == (chosen["dtype"], chosen["quant_min"],
                                                                     chosen["quant_max"])
    assert conv.meta[pt2e_qat.PARTITION_KEY] == bn.name
    relu = next(iter(bn.users))
    assert qt.TORCH_ANNOTATION_KEY in relu.meta
    assert not isinstance(out, SharedQuantizationSpec)


def test_ptq_leaves_conv_and_batch_norm_to_the_engine():
    """Without QAT nothing changes: no bias is added, the conv keeps its output spec."""
    model = ConvBn(bias=False, relu=True).eval()
    gm = torch.export.export(model, (torch.randn(2, 3, 8, 8),)).module()
    q = qt.Quantizer(backend="htp", soc=SOC, config="8a8w", strict=False)
    q.annotate(gm)
    [conv] = [n for n in gm.graph.nodes if qt._target_name(n) == "aten.conv2d.default"]
    assert conv.args[2] is None if len(conv.args) > 2 else True
    assert pt2e_qat.PARTITION_KEY not in conv.meta
    assert conv.meta[qt.TORCH_ANNOTATION_KEY].output_qspec is not None


def test_validate_before_convert_judges_the_graph_as_the_fold_leaves_it():
    """prepare_qat_pt2e validates right after annotating: the conv's output has no spec and the
    batch_norm none, which a strict engine refuses unless it sees the pair folded."""
    gm = torch.export.export(ConvBn(bias=True, relu=True).train(), (torch.randn(2, 3, 8, 8),)).module()
    q = quantizer()
    q.annotate(gm)
    assert q.validate(gm) == []
    graph = pt2e_qat.folded_view(gm, qt.to_dict(gm))
    names = {n["name"] for n in graph["nodes"]}
    bn = [n.name for n in gm.graph.nodes if qt._target_name(n) == "aten.batch_norm.default"]
    assert bn and not names & set(bn)
    # Without the view, the engine sees the float batch_norm.
    assert q.engine.check(qt.from_fx(gm)).error_count > 0


def test_conv_patterns_are_traced_only_for_the_graph_s_convs_and_once(monkeypatch):
    gm = torch.export.export(ConvBn(bias=True, relu=False).train(), (torch.randn(2, 3, 8, 8),)).module()
    assert pt2e_prepare._has_conv_of(gm, F.conv2d)
    assert not pt2e_prepare._has_conv_of(gm, F.conv1d)
    assert not pt2e_prepare._has_conv_of(gm, F.conv_transpose2d)
    traced = []
    original = pt2e_prepare._ORIGINAL_HELPERS["_get_aten_graph_module_for_pattern"]

    def counting(pattern, example_inputs, *args, **kwargs):
        traced.append(example_inputs[0].dim())
        return original(pattern, example_inputs, *args, **kwargs)

    monkeypatch.setitem(pt2e_prepare._ORIGINAL_HELPERS, "_get_aten_graph_module_for_pattern", counting)
    monkeypatch.setattr(pt2e_prepare, "_patterns", {})
    qt.prepare_qat_pt2e(gm, quantizer())
    assert traced == [4, 4, 4]  # conv2d's match and its two replacements, not conv1d's or the transposes'
    gm = torch.export.export(ConvBn(bias=False, relu=True).train(), (torch.randn(2, 3, 8, 8),)).module()
    prepared = qt.prepare_qat_pt2e(gm, quantizer())
    assert traced == [4, 4, 4]  # the second model reuses them
    [conv] = [n for n in prepared.graph.nodes if n.op == "call_function" and qt._target_name(n) == "aten.conv2d.default"]
    assert pt2e_qat.PARTITION_KEY in conv.meta  # the fused conv kept the partition's meta
    # Outside the calls, torchao's own functions are back.
    assert pt2e_prepare._qat_utils._fuse_conv_bn_qat_helper is pt2e_prepare._ORIGINAL_HELPERS[
        "_fuse_conv_bn_qat_helper"]
