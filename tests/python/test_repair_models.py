"""Issue 26 on the test models: for every config some SoC refuses, the engine's own repair
(Engine.suggest_recipe) makes the graph validate clean on that SoC, and it overrides no more
nodes than fail.

Models (what prepare_pt2e gets: torch.export's ATen graph): torchvision CNNs, the
`transformers` Llama decoder of the conformance zoo, and the Llama-style decoder with a static
KV cache of models.py. SoCs span HTP V68..V79. Configs: every config of quant_configs.yaml with
integer activations, in its default granularity (what --annotate NAME selects).

- the repair validates clean: re-annotated with the config and the suggested recipe (written as
  a file and read back, as --recipe does), no error on any node but those the suggestion says
  stay on CPU, and the suggestion says it validates clean;
- minimal: each node that fails under the config gets exactly one override; a node that did not
  fail is overridden only when an override of a neighbour broke it (a shared encoding), which
  the suggestion says by giving no reason under the base config. For a graph with a single
  failing node the recipe has exactly one override (the ConvSigmoidLinear model).
Labelled `models` (heavy) in tests/python/CMakeLists.txt.
"""

import functools
import os
import sys

import pytest
import torch

import qnnrules
import qnnrules.torch as qt
from models import ConvSigmoidLinear, Decoder, export, torchvision_model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

SOCS = ["SM8350", "SM8450", "SM8550", "SM8750"]  # HTP V68, V69, V73, V79
MODELS = ["resnet18", "mobilenet_v2", "llama", "decoder_kv"]


def configs():
    import yaml
    with open(os.path.join(ROOT, "rules", "quant_configs.yaml")) as f:
        doc = yaml.safe_load(f)
    return [c["name"] for c in doc["configs"] if not c["activation"]["dtype"].startswith("float")]


@functools.lru_cache(maxsize=None)
def float_graph(name):
    if name == "decoder_kv":
        return qt.from_fx(export(Decoder().eval(), Decoder.example()), name=name)
    if name == "llama":
        from conformance.quantizer.run import build_model
        model, example, _ = build_model("llama")
        with torch.no_grad():
            return qt.from_fx(torch.export.export(model, example, strict=False).module(), name=name)
    model, example = torchvision_model(name)
    return qt.from_fx(export(model, example), name=name)


@functools.lru_cache(maxsize=None)
def engine(soc):
    return qnnrules.Engine(backend="htp", soc=soc, strict=True, use_environment=False)


def failing_nodes(e, graph, config, recipe=None):
    return {d.node for d in e.check(e.annotate(graph, config, recipe=recipe)).errors if d.node}


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("name", MODELS)
def test_every_refused_config_is_repaired_minimally(tmp_path, name, soc):
    graph = float_graph(name)
    e = engine(soc)
    for config in configs():
        failing = failing_nodes(e, graph, config)
        if not failing:
            continue
        fix = e.suggest_recipe(graph, config)
        recipe = tmp_path / f"{config}.yaml"
        recipe.write_text(fix.yaml)
        on_cpu = {n for n, _, _ in fix.on_cpu}
        assert fix.validates_clean, (config, str(fix))
        left = failing_nodes(e, graph, config, str(recipe)) - on_cpu
        assert not left, f"{name} {config} on {soc}: still failing with the recipe: {sorted(left)[:5]}"
        because = {c["node"] for c in fix.choices if c["why"]}
        assert because | on_cpu == failing, (config, sorted((because | on_cpu) ^ failing)[:5])
        assert len(fix.choices) == len({c["node"] for c in fix.choices})  # one override per node
        broken = [c for c in fix.choices if not c["why"]]  # overridden for a neighbour's override
        assert len(fix.choices) == len(failing - on_cpu) + len(broken)


def test_a_single_failing_node_gets_one_override():
    graph = qt.from_fx(export(ConvSigmoidLinear().eval(), ConvSigmoidLinear.example()), name="csl")
    e = engine("SM8350")
    single = [c for c in configs() if len(failing_nodes(e, graph, c)) == 1]
    assert single, "no config with a single failing node on V68"
    for config in single:
        fix = e.suggest_recipe(graph, config)
        assert len(fix.choices) == 1 and fix.validates_clean, (config, str(fix))
        assert fix.choices[0]["node"] in failing_nodes(e, graph, config)


@pytest.mark.parametrize("name", MODELS)
def test_the_models_have_refused_configs_on_v68(name):
    """Not vacuous: on V68 every model has a config the rules refuse, so the test above repairs it."""
    e = engine("SM8350")
    assert any(failing_nodes(e, float_graph(name), c) for c in configs()), name
