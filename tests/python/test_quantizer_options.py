"""The seed's options on qnnrules.torch.Quantizer (ExecuTorch 1.5.1 QnnQuantizer's keyword
arguments and methods, docs/embedding.md "The seed's options"): each test shows the option's
effect on the annotation written on the nodes, and that the rules still gate what it asks.
QAT: prepare_qat_pt2e, a few training steps, convert, validate clean."""

import pytest
import torch
from torchao.quantization.pt2e.fake_quantize import AffineFakeQuantize, FusedMovingAvgObsFakeQuantize
from torchao.quantization.pt2e.observer import MinMaxObserver, MovingAverageMinMaxObserver
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e
from torchao.quantization.pt2e.quantizer import FixedQParamsQuantizationSpec, QuantizationSpec

import qnnrules
import qnnrules.torch as qt
from conftest import SOC
from models import Decoder, export
from qnnrules.pt2e_options import (
    ModuleQConfig,
    QuantDtype,
    QuantGranularity,
    QuantRecipe,
    get_submodule_name_predicate,
    get_submodule_type_predicate,
)


class Net(torch.nn.Module):
    """embedding -> block (linear, relu) -> head linear; conv -> sigmoid on a second input."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(16, 64)
        self.block = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU())
        self.head = torch.nn.Linear(64, 8)
        self.conv = torch.nn.Conv2d(64, 8, 1)

    def forward(self, tokens, image):
        return self.head(self.block(self.emb(tokens))), torch.sigmoid(self.conv(image))

    @staticmethod
    def example():
        return (torch.randint(0, 16, (1, 4)), torch.randn(1, 64, 4, 4))


@pytest.fixture
def net():
    return export(Net(), Net.example())


def node(gm, name):
    [n] = [n for n in gm.graph.nodes if n.name == name]
    return n


def ann(gm, name):
    return node(gm, name).meta.get(qt.TORCH_ANNOTATION_KEY)


def weight_spec(gm, name):
    n = node(gm, name)
    return ann(gm, name).input_qspec_map[n.args[1] if name != "embedding" else n.args[0]]


def act_spec(gm, name):
    n = node(gm, name)
    return ann(gm, name).input_qspec_map[n.args[0] if name != "embedding" else n.args[1]]


def quantizer(**kw):
    return qt.Quantizer(backend="htp", soc=SOC, **kw)


def annotate(q, gm):
    q.annotate(gm)
    assert q.validate(gm) == []
    return gm


def test_per_channel_switches_choose_weight_granularity_per_op_family(net):
    q = quantizer(config="16a8w")
    q.set_default_quant_config(QuantDtype.use_16a8w, is_conv_per_channel=True, is_linear_per_channel=False)
    annotate(q, net)
    assert weight_spec(net, "conv2d").qscheme == torch.per_channel_symmetric
    assert {weight_spec(net, n).qscheme for n in ("linear", "linear_1")} == {torch.per_tensor_symmetric}
    q = quantizer(config="16a8w", is_conv_per_channel=False, is_linear_per_channel=True)
    annotate(q, net)
    assert weight_spec(net, "conv2d").qscheme == torch.per_tensor_symmetric
    assert weight_spec(net, "linear").qscheme == torch.per_channel_symmetric


def test_embedding_per_channel_makes_the_table_a_weight(net):
    annotate(quantizer(config="8a8w", is_embedding_per_channel=False), net)
    table = weight_spec(net, "embedding")
    assert (table.dtype, table.qscheme) == (torch.uint8, torch.per_tensor_affine)  # an activation
    annotate(quantizer(config="8a8w", is_embedding_per_channel=True), net)
    table = weight_spec(net, "embedding")
    assert (table.dtype, table.qscheme, table.ch_axis) == (torch.int8, torch.per_channel_symmetric, 0)


def test_act_symmetric(net):
    annotate(quantizer(config="8a8w"), net)
    assert act_spec(net, "linear").qscheme == torch.per_tensor_affine
    annotate(quantizer(config="8a8w", act_symmetric=True), net)
    assert act_spec(net, "linear").qscheme == torch.per_tensor_symmetric
    q = quantizer()
    q.set_default_quant_config(QuantDtype.use_16a8w, act_symmetric=True)
    annotate(q, net)
    spec = act_spec(net, "linear")
    assert (spec.qscheme, spec.quant_min, spec.quant_max) == (torch.per_tensor_symmetric, 0, 65535)


def test_act_observer_and_eps(net):
    annotate(quantizer(config="16a8w"), net)
    assert act_spec(net, "linear").observer_or_fake_quant_ctr.p.func is MinMaxObserver
    annotate(quantizer(config="16a8w:per_channel", act_observer=MovingAverageMinMaxObserver, eps=2 ** -20), net)
    act = act_spec(net, "linear").observer_or_fake_quant_ctr
    assert act.p.func is MovingAverageMinMaxObserver and act.p.keywords == {"eps": 2 ** -20}
    assert weight_spec(net, "linear").observer_or_fake_quant_ctr.p.keywords["eps"] == 2 ** -20
    # The fixed sigmoid output keeps its fixed qparams whatever the observer.
    assert type(ann(net, "sigmoid").output_qspec) is FixedQParamsQuantizationSpec


def test_default_act_observer_and_eps_follow_the_weights_and_the_width(net):
    """Without act_observer: MinMaxObserver, or the seed's MovingAverageMinMaxObserver in a graph
    with 4-bit or narrower weights (benchmarks/quantizer_sqnr.py measured each better there);
    scales floored at the engine's eps for the port's width (8-bit: 0.0001/255, wider:
    0.0001/65535); an explicit act_observer, and QAT, keep theirs."""
    def act(config, **kw):
        annotate(quantizer(config=config, **kw), net)
        ctr = act_spec(net, "linear").observer_or_fake_quant_ctr
        return ctr.p.func, ctr.p.keywords
    assert act("16a8w") == (MinMaxObserver, {"eps": 0.0001 / 65535})
    assert act("8a8w") == (MinMaxObserver, {"eps": 0.0001 / 255})
    assert act("16a16w") == (MinMaxObserver, {"eps": 0.0001 / 65535})
    assert act("16a4w") == (MovingAverageMinMaxObserver, {"eps": 0.0001 / 65535})
    assert act("16a4w_block") == (MovingAverageMinMaxObserver, {"eps": 0.0001 / 65535})
    assert act("16a4w", act_observer=MinMaxObserver) == (MinMaxObserver, {"eps": 0.0001 / 65535})
    assert weight_spec(net, "linear").observer_or_fake_quant_ctr.p.keywords["eps"] == 0.0001 / 255
    annotate(quantizer(config="16a4w", is_qat=True), net)
    fq = act_spec(net, "linear").observer_or_fake_quant_ctr
    assert fq.p.func is FusedMovingAvgObsFakeQuantize and fq.p.keywords["observer"] is MovingAverageMinMaxObserver


class Cat(torch.nn.Module):
    """Two linear branches of very different ranges, concatenated (one shared encoding)."""

    def __init__(self):
        super().__init__()
        self.small, self.big = torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)
        with torch.no_grad():
            self.big.weight.mul_(100)

    def forward(self, x):
        return torch.cat([self.small(x), self.big(x)], dim=1).relu()


def test_a_shared_encoding_over_several_tensors_takes_their_global_range():
    # A moving-average observer shared by the cat's inputs would stay near the first input's
    # range (the small branch), clipping the big one; the group observes with MinMaxObserver,
    # the range of the seed's ConcatObserver.
    torch.manual_seed(0)
    q = quantizer(config="16a8w", act_observer=MovingAverageMinMaxObserver)
    prepared = prepare_pt2e(export(Cat(), (torch.randn(2, 8),)), q)
    batches = [torch.randn(2, 8) for _ in range(3)]
    for b in batches:
        prepared(b)
    [cat] = [n for n in prepared.graph.nodes if n.target == torch.ops.aten.cat.default]
    observers = {type(prepared.get_submodule(a.target)) for a in cat.args[0] if a.op == "call_module"}
    assert observers == {MinMaxObserver}
    observer = prepared.get_submodule(cat.args[0][1].target)
    torch.manual_seed(0)
    model = Cat()
    with torch.no_grad():
        outs = torch.cat([torch.cat([model.small(b), model.big(b)], 1) for b in batches])
    assert float(observer.max_val) == pytest.approx(float(outs.max()), rel=1e-5)
    assert float(observer.min_val) == pytest.approx(float(outs.min()), rel=1e-5)
    [relu] = [n for n in prepared.graph.nodes if n.target == torch.ops.aten.relu.default]
    [after] = list(relu.users)
    assert type(prepared.get_submodule(after.target)) is MovingAverageMinMaxObserver  # others keep theirs


def test_block_size_map_by_node_name(net):
    q = quantizer(config="16a4w_block:per_channel")
    q.set_block_size_map({"linear_1": (1, 16)})
    annotate(q, net)
    keywords = weight_spec(net, "linear_1").observer_or_fake_quant_ctr.p.keywords
    assert tuple(keywords["granularity"].block_size) == (1, 16)
    assert "granularity" not in (weight_spec(net, "linear").observer_or_fake_quant_ctr.p.keywords or {})
    assert qt.from_fx(net).node("linear_1")["args"][1]["qspec"]["block_size"] == [1, 16]


def test_block_size_map_is_still_gated_by_the_soc(net):
    q = qt.Quantizer(backend="htp", soc="SM8350", config="16a4w_block:per_channel")
    q.set_block_size_map({"linear_1": (1, 16)})
    with pytest.raises(qnnrules.ValidationError) as exc:
        prepare_pt2e(net, q)
    assert [(d.code, d.node) for d in exc.value.errors] == [("arch-gate", "linear_1")]


def test_discard_nodes_and_ops(net):
    q = quantizer(config="16a8w")
    q.add_discard_nodes(["sigmoid", "no_such_node"])
    q.add_discard_ops([torch.ops.aten.relu.default])
    annotate(q, net)
    assert ann(net, "sigmoid") is None and ann(net, "relu") is None
    assert ann(net, "linear") is not None and ann(net, "conv2d") is not None


def test_submodule_qconfig_list_by_module_name_and_type(net):
    q = quantizer(config="16a8w")
    q.set_submodule_qconfig_list([
        (get_submodule_name_predicate("head"), ModuleQConfig(QuantDtype.use_8a8w, is_linear_per_channel=True)),
        (get_submodule_type_predicate("Conv2d"), ModuleQConfig(QuantDtype.use_16a4w, is_conv_per_channel=True)),
    ])
    annotate(q, net)  # validates clean: the mixed widths are legal (requantized edges)
    assert act_spec(net, "linear_1").dtype == torch.uint8       # head: 8a8w
    assert weight_spec(net, "linear_1").qscheme == torch.per_channel_symmetric
    assert act_spec(net, "linear").dtype == torch.int32         # block: the default 16a8w
    conv_w = weight_spec(net, "conv2d")
    assert (conv_w.quant_min, conv_w.quant_max, conv_w.qscheme) == (-7, 7, torch.per_channel_symmetric)


def test_custom_quant_annotations_run_after_and_are_validated(net):
    def calibrated_sigmoid(gm):
        for n in gm.graph.nodes:
            if n.name == "sigmoid":
                n.meta[qt.TORCH_ANNOTATION_KEY].output_qspec = QuantizationSpec(
                    dtype=torch.int32, quant_min=0, quant_max=65535, qscheme=torch.per_tensor_affine,
                    observer_or_fake_quant_ctr=MinMaxObserver)

    q = quantizer(config="16a8w")
    q.add_custom_quant_annotations([calibrated_sigmoid])
    prepared = prepare_pt2e(net, q)  # an observed range: nothing to check before calibration
    prepared(*Net.example())
    converted = convert_pt2e(prepared)
    with pytest.raises(qnnrules.ValidationError) as exc:
        q.validate(converted)
    assert [(d.code, d.node) for d in exc.value.errors] == [("fixed-scale", "sigmoid")]
    fresh = annotate(quantizer(config="16a8w"), export(Net(), Net.example()))  # without it: clean
    assert type(ann(fresh, "sigmoid").output_qspec) is FixedQParamsQuantizationSpec


def test_quant_recipe_strategies_by_target_and_module_regex(net):
    recipe = QuantRecipe(QuantDtype.use_16a8w, False, MinMaxObserver, QuantGranularity.PER_TENSOR)
    recipe.add_node_target({torch.ops.aten.linear.default}, QuantDtype.use_16a4w, False, MinMaxObserver,
                           QuantGranularity.PER_CHANNEL, priority=2)
    recipe.add_regex({r"^head$"}, QuantDtype.use_16a4w_block, False, MovingAverageMinMaxObserver,
                     QuantGranularity.PER_BLOCK, priority=3, extra_kwargs={"block_size": (1, 32)})
    q = quantizer(config="8a8w")
    q.set_recipe(recipe)
    annotate(q, net)
    w = weight_spec(net, "linear")
    assert (w.quant_min, w.quant_max, w.qscheme) == (-7, 7, torch.per_channel_symmetric)
    head = weight_spec(net, "linear_1").observer_or_fake_quant_ctr
    assert tuple(head.p.keywords["granularity"].block_size) == (1, 32)
    assert act_spec(net, "linear_1").observer_or_fake_quant_ctr.p.func is MovingAverageMinMaxObserver
    conv_w = weight_spec(net, "conv2d")  # the default strategy: 16a8w per-tensor
    assert (conv_w.quant_min, conv_w.quant_max, conv_w.qscheme) == (-127, 127, torch.per_tensor_symmetric)


# --- QAT --------------------------------------------------------------------------------------

class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.sigmoid(self.conv2(x))
        return self.fc(x.mean(dim=(2, 3)))


def train_and_convert(q, model, batches, loss_of):
    gm = torch.export.export(model.train(), batches[0]).module()
    prepared = prepare_qat_pt2e(gm, q)
    fq = [m for m in prepared.modules() if isinstance(m, (FusedMovingAvgObsFakeQuantize, AffineFakeQuantize))]
    assert fq, "no fake-quantize module was inserted"
    opt = torch.optim.SGD(prepared.parameters(), lr=1e-3)
    for b in batches:
        opt.zero_grad()
        loss = loss_of(prepared(*b))
        loss.backward()
        opt.step()
    return convert_pt2e(prepared)


@pytest.mark.parametrize("config", ["8a8w:per_channel", "16a8w:per_channel", "16a4w_block"])
def test_qat_small_cnn(config):
    torch.manual_seed(0)
    q = quantizer(config=config, is_qat=True)
    batches = [(torch.randn(2, 3, 8, 8),) for _ in range(3)]
    converted = train_and_convert(q, SmallCNN(), batches, lambda y: y.square().mean())
    assert q.validate(converted) == []
    assert any(qt._is_qdq(qt._target_name(n)) for n in converted.graph.nodes)


def test_qat_small_decoder():
    torch.manual_seed(0)
    q = quantizer(config="16a8w:per_channel", is_qat=True)
    batches = [Decoder.example() for _ in range(2)]
    converted = train_and_convert(q, Decoder(), batches, lambda out: out[0].square().mean())
    assert q.validate(converted) == []


def test_qat_needs_a_config_with_a_qat_flavour(net):
    with pytest.raises(qnnrules.ConfigError, match="QAT"):
        quantizer(config="16a16w", is_qat=True).annotate(net)


def test_the_seeds_own_recipe_object_is_read(net, monkeypatch):
    """ExecuTorch's QuantRecipe (and its QuantDtype / QuantGranularity) passed as they are."""
    monkeypatch.setenv("EXECUTORCH_BUILDING_WHEEL", "1")
    seed = pytest.importorskip("executorch.backends.qualcomm.quantizer.quant_recipe")
    from executorch.backends.qualcomm.quantizer.quantizer import QuantDtype as SeedDtype

    recipe = seed.QuantRecipe(SeedDtype.use_16a8w, False, MinMaxObserver, seed.QuantGranularity.PER_TENSOR)
    recipe.add_node_target({torch.ops.aten.linear.default}, SeedDtype.use_16a4w, False, MinMaxObserver,
                           seed.QuantGranularity.PER_CHANNEL, priority=2)
    q = quantizer(config="8a8w")
    q.set_recipe(recipe)
    annotate(q, net)
    w = weight_spec(net, "linear")
    assert (w.quant_min, w.quant_max, w.qscheme) == (-7, 7, torch.per_channel_symmetric)
    assert act_spec(net, "conv2d").dtype == torch.int32  # the recipe's default, 16a8w


def test_ptq_weights_are_observed_once_activations_every_batch(net):
    """The seed's AOT-time observers (PR 18516): a parameter's observer sees it on the first
    calibration batch only; activation observers see every batch."""
    q = quantizer(config="16a8w:per_channel")
    prepared = prepare_pt2e(net, q)
    observers = {n.name: getattr(prepared, n.target) for n in prepared.graph.nodes
                 if n.op == "call_module" and "activation_post_process" in n.target}
    weight_obs = [o for o in observers.values() if type(o).__name__.endswith("Once")]
    act_obs = [o for o in observers.values() if type(o) is MinMaxObserver]
    assert len(weight_obs) == 4 and act_obs  # 3 linear/conv weights + the embedding table
    prepared(*Net.example())
    first = [o.max_val.clone() for o in weight_obs]
    act_first = [o.max_val.clone() for o in act_obs]
    tokens, image = Net.example()
    prepared(tokens, image * 100)  # a second batch: activations grow, weights are not looked at again
    assert all(torch.equal(a, o.max_val) for a, o in zip(first, weight_obs))
    assert any(not torch.equal(a, o.max_val) for a, o in zip(act_first, act_obs))
