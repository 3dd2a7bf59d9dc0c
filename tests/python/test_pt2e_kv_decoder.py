"""The seed's LLM flow end to end (issue 34): a static-shape decoder with its KV cache as graph
inputs and the new keys and values as outputs, as ExecuTorch's Qualcomm llama example exports
it (pytorch/executorch examples/qualcomm/oss_scripts/llama: a prefill graph over a chunk of
tokens and a decode graph of one token, the caches static), quantized with 16a4w_block and the
seed's custom setting of a 16a8w LM head (per-channel), calibrated, converted: it validates
clean on SM8650, and on SM8350 (HTP V68; LPBQ needs V69) the validator names each block-wise
weight, and nothing else."""

import pytest
import torch
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

import qnnrules
import qnnrules.torch as qt
from models import Decoder
from qnnrules.pt2e_options import ModuleQConfig, get_submodule_name_predicate


class Prefill(Decoder):
    new = 4  # a chunk of the prompt against the 8 cached positions


class Decode(Decoder):
    new = 1  # one token


def quantize(cls, soc="SM8650"):
    torch.manual_seed(0)
    model = cls().eval()
    gm = torch.export.export(model, cls.example()).module()
    q = qt.Quantizer(backend="htp", soc=soc, config="16a4w_block", strict=False)
    q.set_submodule_qconfig_list([(get_submodule_name_predicate("head"),
                                   ModuleQConfig("16a8w", is_linear_per_channel=True))])
    prepared = qt.prepare_pt2e(gm, q)
    with torch.no_grad():
        for _ in range(2):
            prepared(*cls.example())
        return q, convert_pt2e(prepared)


def weight_dequantize(converted, linear):
    dq = linear.args[1]
    return qt._target_name(dq)


@pytest.mark.parametrize("cls", [Prefill, Decode], ids=["prefill", "decode"])
def test_kv_cache_decoder_16a4w_block_with_a_16a8w_head_validates_clean_on_sm8650(cls):
    q, converted = quantize(cls)
    report = q.engine.check(qt.from_fx(converted))
    assert report.error_count == 0, [str(d) for d in report.errors]
    linears = {n.name: n for n in converted.graph.nodes if qt._target_name(n) == "aten.linear.default"}
    head = [n for n in linears.values() if n.meta.get("nn_module_stack") and
            list(n.meta["nn_module_stack"].values())[-1][0].endswith("head")]
    assert len(head) == 1
    # The block layers' weights are block-wise (torchao's affine dequantize), the head's per channel.
    assert all(weight_dequantize(converted, n).startswith("torchao.dequantize_affine")
               for name, n in linears.items() if n is not head[0])
    assert weight_dequantize(converted, head[0]).startswith("quantized_decomposed.dequantize_per_channel")
    # The caches are graph inputs and the new keys and values outputs, all quantized.
    inputs = [n for n in converted.graph.nodes if n.op == "placeholder"]
    assert len(inputs) == 3 and all(any(qt._is_qdq(qt._target_name(u)) for u in n.users) for n in inputs[1:])


def test_on_sm8350_the_block_wise_weights_are_refused_by_name():
    """SM8350 is HTP V68: each block-wise linear weight is an arch-gate error (LPBQ needs V69),
    the 16a8w head and everything else pass."""
    _, converted = quantize(Prefill)
    sm8350 = qnnrules.Engine(backend="htp", soc="SM8350", strict=True)
    report = sm8350.check(qt.from_fx(converted))
    block_linears = {n.name for n in converted.graph.nodes if qt._target_name(n) == "aten.linear.default"
                     and qt._target_name(n.args[1]).startswith("torchao.dequantize_affine")}
    assert len(block_linears) == 7 * Prefill.layers
    assert {d.node for d in report.errors} == block_linears
    assert {(d.code, d.rule_id) for d in report.errors} == {("arch-gate", "htp.linear")}
    assert all("Block-wise (LPBQ)" in str(d) and "SM8350 is V68" in str(d) for d in report.errors)
