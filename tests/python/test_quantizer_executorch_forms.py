"""What ExecuTorch changes when it lowers, done before annotation as its QnnQuantizer does. Python numbers as operands of binary ops (``x * 0.25``, ``1.0 - x``): qnnrules.torch.Quantizer
lifts each to a 0-d constant buffer and quantizes it like the other operand, as ExecuTorch's
QnnQuantizer does (its LiftConstantScalarOperands), so that ExecuTorch's lowering delegates the op
(a number left in place reaches QNN as float32 beside a quantized tensor and is refused: the
lowering oracle's scalar_probe/qnnrules/8a8w/SM8650). The converted graph validates clean on the
executorch path, and the quantized model still computes what the float one does."""

import torch
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

import qnnrules
import qnnrules.torch as qt
from conftest import SOC
from models import export


class Numbers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = self.fc(x)
        return (1.0 - h * 0.25) ** 2 + h / 2.0

    @staticmethod
    def example():
        return (torch.randn(2, 16),)


def calls(gm, op):
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target.__name__.startswith(op + ".")]


def test_number_operands_become_quantized_constants_and_lower_on_executorch():
    torch.manual_seed(0)
    model = Numbers().eval()
    gm = export(model, Numbers.example())
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="8a8w")
    prepared = prepare_pt2e(gm, quantizer)
    lifted = [n for n in prepared.graph.nodes if n.op == "get_attr" and n.name.endswith("_other")]
    # mul, rsub and div each read one lifted constant; pow's exponent is not a tensor port.
    assert sorted(n.name.rsplit("_other", 1)[0] for n in lifted) == ["div", "mul", "rsub"]
    assert [str(n.target) for n in calls(prepared, "rsub")] == ["aten.rsub.Tensor"]
    assert all(isinstance(a, (int, float)) for n in calls(prepared, "pow") for a in n.args[1:])
    for x in (torch.randn(2, 16) for _ in range(4)):
        prepared(x)
    converted = convert_pt2e(prepared)
    for op in ("mul", "rsub", "div"):
        [n] = calls(converted, op)
        other = n.args[1]
        assert isinstance(other, torch.fx.Node) and "dequantize" in str(other.target), (op, n.args)
    engine = qnnrules.Engine(backend="htp", soc=SOC, lowering="executorch")
    report = engine.run(qt.from_fx(converted))
    assert not report.errors and not report.fallbacks, [str(d) for d in report.errors + report.fallbacks]
    x = torch.randn(2, 16)
    assert torch.allclose(converted(x), model(x), atol=0.15)


class Decomposed(torch.nn.Module):
    """silu, addmm (GPT-2's Conv1D form) and leaky_relu, which ExecuTorch decomposes when it
    lowers: quantized whole, each is refused (lowering oracle llama_layer/qnnrules, gpt2_layer/
    qnnrules, act_probe/qnnrules)."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(16, 16) * 0.2)
        self.b = torch.nn.Parameter(torch.randn(16) * 0.1)

    def forward(self, x):
        h = torch.addmm(self.b, x, self.w)
        return torch.nn.functional.leaky_relu(torch.nn.functional.silu(h), 0.1)


def test_ops_executorch_decomposes_are_decomposed_before_annotation():
    torch.manual_seed(0)
    model = Decomposed().eval()
    gm = export(model, (torch.randn(4, 16),))
    names = {n.name for n in gm.graph.nodes}
    prepared = prepare_pt2e(gm, qt.Quantizer(backend="htp", soc=SOC, config="8a8w"))
    targets = {n.name: str(n.target) for n in prepared.graph.nodes if n.op == "call_function"}
    # Each node keeps its name on its last piece; the new pieces are named after it.
    [silu] = [n for n in names if n.startswith("silu")]
    [addmm] = [n for n in names if n.startswith("addmm")]
    [leaky] = [n for n in names if n.startswith("leaky_relu")]
    assert targets[silu] == "aten.mul.Tensor" and targets[silu + "_sigmoid"] == "aten.sigmoid.default"
    assert targets[addmm] == "aten.add.Tensor" and targets[addmm + "_mm"] == "aten.mm.default"
    assert targets[leaky] == "aten.prelu.default"
    assert not any(t.startswith(("aten.silu", "aten.addmm", "aten.leaky_relu")) for t in targets.values())
    for x in (torch.randn(4, 16) for _ in range(4)):
        prepared(x)
    converted = convert_pt2e(prepared)
    engine = qnnrules.Engine(backend="htp", soc=SOC, lowering="executorch")
    report = engine.run(qt.from_fx(converted))
    assert not report.errors and not report.fallbacks, [str(d) for d in report.errors + report.fallbacks]
    x = torch.randn(4, 16)
    assert torch.allclose(converted(x), model(x), atol=0.2)
