"""qnnrules.torch.convert_pt2e (python/qnnrules/pt2e_convert.py): torchao's convert_pt2e with a
weight fold that evaluates only what quantize nodes need, in slices, and each weight's dequantize
moved to its user. Its result is torchao's bit for bit: the same nodes (names, targets,
arguments) in an order that differs only in where weight dequantizes stand, the same buffers
(names, dtypes, values), the same outputs — on a decoder per-tensor and per-channel (16a8w),
block-wise (16a4w_block), a CNN, and QAT with BatchNorm; with slices small enough that every
weight is cut into many (and the last slice short)."""

import pytest
import torch
import torch.nn.functional as F
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

import qnnrules.torch as qt
from conftest import SOC
from models import ConvSigmoidLinear, Decoder
from qnnrules import pt2e_convert


@pytest.fixture(autouse=True)
def small_slices(monkeypatch):
    # 7 x 37 elements: no weight of the test models divides evenly, most are cut many times.
    monkeypatch.setattr(pt2e_convert, "_SLICE_ELEMENTS", 7 * 37)


def block_map(gm, block=16):
    return {n.name: (1, block) for n in gm.graph.nodes
            if n.op == "call_function" and "linear" in str(n.target)}


def calibrated(cls, example, config, qat=False):
    torch.manual_seed(0)
    model = cls()
    gm = torch.export.export(model.train() if qat else model.eval(), example).module()
    q = qt.Quantizer(backend="htp", soc=SOC, config=config, strict=False, is_qat=qat,
                     is_conv_per_channel=True, is_linear_per_channel=True)
    if config.endswith("_block"):
        q.set_block_size_map(block_map(gm))
    prepared = (qt.prepare_qat_pt2e if qat else qt.prepare_pt2e)(gm, q)
    with torch.no_grad():
        for _ in range(2):
            prepared(*example)
    return prepared


def nodes(gm):
    return {n.name: (n.op, str(n.target), str(n.args), str(n.kwargs)) for n in gm.graph.nodes}


def weight_dequantizes(gm):
    return [n for n in gm.graph.nodes if n.op == "call_function" and "dequantize" in str(n.target)
            and n.all_input_nodes and all(a.op == "get_attr" for a in n.all_input_nodes)]


def assert_same(ours, theirs):
    assert nodes(ours) == nodes(theirs)
    moved = weight_dequantizes(ours)
    assert moved
    for n in moved:  # only other weight dequantizes (of the same user) stand between it and its user
        after = n.next
        while after in moved:
            after = after.next
        assert after is next(iter(n.users)), f"{n.name} is not at its user"
    rest = [n.name for n in ours.graph.nodes if n not in moved]
    assert rest == [n.name for n in theirs.graph.nodes if n.name in set(rest)]
    a, b = dict(ours.named_buffers()), dict(theirs.named_buffers())
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        assert torch.equal(a[name], b[name]), name
    assert dict(ours.named_parameters()).keys() == dict(theirs.named_parameters()).keys()


def both(*how):
    """Ours and torchao's on two models prepared and calibrated alike (a deep copy would rename
    the nodes QAT's fold adds)."""
    return qt.convert_pt2e(calibrated(*how)), convert_pt2e(calibrated(*how))


@pytest.mark.parametrize("config", ["8a8w", "16a8w", "16a4w", "16a4w_block"])
def test_decoder_converts_as_torchao_does(config):
    torch.manual_seed(1)
    ours, theirs = both(Decoder, Decoder.example(), config)
    assert_same(ours, theirs)
    folded = [n for n in ours.graph.nodes if n.op == "get_attr" and n.name.startswith(("quantize", "_frozen"))]
    assert folded, "no weight was folded"
    example = Decoder.example()
    with torch.no_grad():
        assert all(torch.equal(x, y) for x, y in zip(ours(*example), theirs(*example)))


def test_cnn_converts_as_torchao_does():
    ours, theirs = both(ConvSigmoidLinear, ConvSigmoidLinear.example(), "8a8w")
    assert_same(ours, theirs)


class ConvBn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 19, 3)
        self.bn = torch.nn.BatchNorm2d(19)
        self.fc = torch.nn.Linear(19, 23)

    def forward(self, x):
        return self.fc(F.relu(self.bn(self.conv(x))).mean((2, 3)))


def test_qat_with_batch_norm_converts_as_torchao_does():
    torch.manual_seed(1)
    ours, theirs = both(ConvBn, (torch.randn(2, 3, 12, 12),), "8a8w", True)
    assert_same(ours, theirs)
    assert not [n for n in ours.graph.nodes if "batch_norm" in str(n.target)]


def test_slices_follow_the_channel_axis_and_whole_blocks():
    torch.manual_seed(0)
    w = torch.randn(37, 96)
    qd = torch.ops.quantized_decomposed
    scales, zps = torch.rand(96) * 0.02 + 1e-3, torch.randint(-3, 3, (96,))
    for axis in (1, -1):
        assert torch.equal(pt2e_convert._per_channel(w, scales, zps, axis, -128, 127, torch.int8),
                           qd.quantize_per_channel.default(w, scales, zps, axis, -128, 127, torch.int8))
    blocks = torch.rand(37, 6) * 0.02 + 1e-3
    args = ([1, 16], blocks, torch.zeros(37, 6, dtype=torch.int32), torch.int8, -8, 7)
    assert torch.equal(pt2e_convert._affine(w, *args), torch.ops.torchao.quantize_affine(w, *args))

