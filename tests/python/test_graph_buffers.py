"""Block-wise scales and zero points across the binding as numpy buffers (issue 34): from_fx and
Quantizer.validate hand the large constants of quantize/dequantize nodes to Graph.from_dict as
arrays instead of JSON lists; the engine gets the same graph. benchmarks/quantizer_validate_block.py
measures the difference."""

import numpy as np
import pytest
import torch
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

import qnnrules
import qnnrules.torch as qt
from conftest import SOC
from models import Decoder, export
from qnnrules import fx_reader


@pytest.fixture(scope="module")
def converted():
    torch.manual_seed(0)
    gm = export(Decoder(), Decoder.example())
    prepared = qt.prepare_pt2e(gm, qt.Quantizer(backend="htp", soc=SOC, config="16a4w_block", strict=False))
    with torch.no_grad():
        prepared(*Decoder.example())
    return convert_pt2e(prepared)


def test_buffers_give_the_graph_the_json_lists_give(converted):
    buffers = []
    d = qt.to_dict(converted, buffers=buffers)
    assert buffers, "no block-wise constant was passed as a buffer"
    assert all(isinstance(b[2], np.ndarray) and b[2].ndim == 1 for b in buffers)
    for name, position, _ in buffers:
        [node] = [n for n in d["nodes"] if n["name"] == name]
        assert node["args"][position] == []  # a placeholder in the dict
    inline = qt.to_dict(converted)
    assert fx_reader.graph_of(d, buffers).to_dict() == qnnrules.Graph.from_dict(inline, inline["name"]).to_dict()
    assert qt.from_fx(converted).to_dict() == qnnrules.Graph.from_dict(inline, inline["name"]).to_dict()


def test_a_non_finite_scale_stays_in_the_dict_and_is_reported(converted):
    """A scale tensor holding inf goes the JSON way ("inf", as before), so the engine says so."""
    buffers = []
    qt.to_dict(converted, buffers=buffers)
    name, position, _ = buffers[0]
    [node] = [n for n in converted.graph.nodes if n.name == name]
    scale = qt._attr(converted, node.args[position].target)
    saved = scale.clone()
    try:
        scale.view(-1)[0] = float("inf")
        again = []
        d = qt.to_dict(converted, buffers=again)
        assert (name, position) not in {(b[0], b[1]) for b in again}
        [nd] = [n for n in d["nodes"] if n["name"] == name]
        assert "inf" in nd["args"][position]
    finally:
        scale.copy_(saved)


def test_bad_buffers_are_refused(converted):
    d = qt.to_dict(converted)
    with pytest.raises(ValueError, match="names no node"):
        qnnrules.Graph.from_dict(d, "g", buffers=[("nope", 1, np.zeros(4))])
    with pytest.raises(ValueError, match="float32, float64, int32 or int64"):
        qnnrules.Graph.from_dict(d, "g", buffers=[(d["nodes"][-2]["name"], 0, np.zeros(4, dtype=np.int8))])
    with pytest.raises(ValueError, match="contiguous 1-D"):
        qnnrules.Graph.from_dict(d, "g", buffers=[(d["nodes"][-2]["name"], 0, np.zeros((2, 2)))])
