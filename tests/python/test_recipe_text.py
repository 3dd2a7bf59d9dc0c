"""Recipes in memory (issue 35): Engine.annotate(recipe_text=...) reads YAML text with the
engine's recipe parser, as recipe= reads a file; the Quantizer hands its options to the engine
that way and writes no file."""

import tempfile

import pytest
import torch

import qnnrules
import qnnrules.torch as qt
from conftest import SOC
from models import ConvSigmoidLinear, export

RECIPE = """version: 1
default: 8a8w
overrides:
  - target: aten.linear.default
    config: 16a8w:per_channel
"""


@pytest.fixture(scope="module")
def graph():
    return qt.from_fx(export(ConvSigmoidLinear(), ConvSigmoidLinear.example()))


def test_recipe_text_annotates_as_the_same_recipe_file(engine, graph, tmp_path):
    path = tmp_path / "recipe.yaml"
    path.write_text(RECIPE)
    from_file = engine.annotate(graph, "8a8w", recipe=str(path)).to_dict()
    from_text = engine.annotate(graph, "8a8w", recipe_text=RECIPE).to_dict()
    assert from_text == from_file
    assert from_text != engine.annotate(graph, "8a8w").to_dict()  # the recipe changed something
    assert engine.annotate_report(graph, "8a8w", recipe_text=RECIPE).graph.to_dict() == from_file


def test_a_bad_recipe_text_is_a_config_error(engine, graph, tmp_path):
    with pytest.raises(qnnrules.ConfigError, match="recipe text") as e:
        engine.annotate(graph, "8a8w", recipe_text="version: 1\ndefault: 99a1w\n")
    assert e.value.errors and "<recipe_text>" in str(e.value.errors[0])
    path = tmp_path / "r.yaml"
    path.write_text(RECIPE)
    with pytest.raises(ValueError, match="not both"):
        engine.annotate(graph, "8a8w", recipe=str(path), recipe_text=RECIPE)


def test_the_quantizer_writes_no_recipe_file(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the Quantizer wrote a temporary file")

    for name in ("TemporaryDirectory", "NamedTemporaryFile", "mkstemp", "mkdtemp"):
        monkeypatch.setattr(tempfile, name, refuse)
    gm = export(ConvSigmoidLinear(), ConvSigmoidLinear.example())
    q = qt.Quantizer(backend="htp", soc=SOC, config="8a8w", is_linear_per_channel=True)
    q.annotate(gm)
    [linear] = [n for n in gm.graph.nodes if qt._target_name(n) == "aten.linear.default"]
    weight = linear.meta[qt.TORCH_ANNOTATION_KEY].input_qspec_map[linear.args[1]]
    assert weight.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine)
