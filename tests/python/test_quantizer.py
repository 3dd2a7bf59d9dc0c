"""qnnrules.torch.Quantizer, a torchao pt2e Quantizer: the annotations it writes (spec types,
observers, derived biases, per-channel and block-wise weights), that they read back as the
engine's annotation, re-annotation, validate() in strict and warn mode, the gates, and a small
prepare -> calibrate -> convert run validated with its calibrated scales."""

import logging

import pytest
import torch
from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationSpec,
    SharedQuantizationSpec,
)
from torchao.quantization.pt2e.quantizer import Quantizer as TorchaoQuantizer

import qnnrules
import qnnrules.torch as qt
from conftest import SOC, assert_same_as_cli, rule_for
from models import ConvSigmoidLinear, export

U16 = (torch.int32, 0, 65535)


def node(gm, target):
    [n] = [n for n in gm.graph.nodes if n.op == "call_function" and str(n.target) == target]
    return n


def annotation(n):
    return n.meta[qt.TORCH_ANNOTATION_KEY]


def spec_range(spec):
    return (spec.dtype, spec.quant_min, spec.quant_max)


@pytest.fixture
def small():
    return export(ConvSigmoidLinear(), ConvSigmoidLinear.example())


def test_is_a_torchao_quantizer_and_annotates_with_torchao_specs(small):
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="16a8w:per_channel")
    assert isinstance(quantizer, TorchaoQuantizer)
    quantizer.annotate(small)
    conv = node(small, "aten.conv2d.default")
    x, w, b = conv.args[:3]
    ann = annotation(conv)
    assert ann._annotated
    act = ann.input_qspec_map[x]
    assert type(act) is QuantizationSpec and spec_range(act) == U16
    assert act.qscheme == torch.per_tensor_affine and act.observer_or_fake_quant_ctr.p.func is MinMaxObserver
    # Scales floored as the engine's encoder floors a 16-bit encoding (Encodings.h eps16).
    assert act.observer_or_fake_quant_ctr.p.keywords == {"eps": 0.0001 / 65535}
    weight = ann.input_qspec_map[w]
    assert spec_range(weight) == (torch.int8, -127, 127)
    assert (weight.qscheme, weight.ch_axis) == (torch.per_channel_symmetric, 0)
    # A PTQ weight is static: its per-channel observer looks at it once (PerChannelMinMaxObserverOnce).
    assert issubclass(weight.observer_or_fake_quant_ctr.p.func, PerChannelMinMaxObserver)
    bias = ann.input_qspec_map[b]
    assert type(bias) is DerivedQuantizationSpec and bias.dtype == torch.int32
    assert bias.derived_from == [(x, conv), (w, conv)]
    assert spec_range(ann.output_qspec) == U16
    sig = node(small, "aten.sigmoid.default")
    fixed = annotation(sig).output_qspec
    assert type(fixed) is FixedQParamsQuantizationSpec
    assert (fixed.scale, fixed.zero_point) == (1 / 65536, 0) and spec_range(fixed) == U16
    flat = node(small, "aten.flatten.using_ints")
    shared = [s for s in annotation(flat).input_qspec_map.values()] + [annotation(flat).output_qspec]
    assert all(type(s) is SharedQuantizationSpec for s in shared if s is not None)


def test_annotations_read_back_as_the_engines_annotation(small):
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="16a8w:per_channel", name="small")
    quantizer.annotate(small)
    assert quantizer.graph.to_dict() == qt.from_fx(small, name="small").to_dict()
    assert quantizer.validate(small) == []


@pytest.mark.parametrize("soc,config,weight", [
    (SOC, "16a4w:per_channel", (torch.int8, -7, 7)),
    ("SM8850", "16a2w", (torch.int8, -2, 1)),   # 2-bit weights: HTP V81 on
    (SOC, "16a16w:per_channel", (torch.int16, -32767, 32767)),
])
def test_linear_weights_keep_their_config(small, soc, config, weight):
    quantizer = qt.Quantizer(backend="htp", soc=soc, config=config)
    quantizer.annotate(small)
    linear = node(small, "aten.linear.default")
    spec = annotation(linear).input_qspec_map[linear.args[1]]
    assert spec_range(spec) == weight and spec.qscheme == torch.per_channel_symmetric
    assert quantizer.validate(small) == []


def test_block_wise_linear_weights_use_a_per_block_observer(small):
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="16a4w_block")
    quantizer.annotate(small)
    linear = node(small, "aten.linear.default")
    spec = annotation(linear).input_qspec_map[linear.args[1]]
    keywords = spec.observer_or_fake_quant_ctr.p.keywords
    assert tuple(keywords["granularity"].block_size) == (1, 32) and spec_range(spec) == (torch.int8, -7, 7)
    read_back = qt.from_fx(small).node(linear.name)["args"][1]["qspec"]
    assert read_back["block_size"] == [1, 32]
    assert quantizer.validate(small) == []


def gate_error(soc, config, target):
    """prepare_pt2e with a config the SoC's HTP cannot run: the ValidationError, checked."""
    gm = export(ConvSigmoidLinear(), ConvSigmoidLinear.example())
    quantizer = qt.Quantizer(backend="htp", soc=soc, config=config)
    with pytest.raises(qnnrules.ValidationError) as exc:
        prepare_pt2e(gm, quantizer)
    errors = exc.value.errors
    assert errors and all(d.code == "arch-gate" for d in errors)
    on_target = [d for d in errors if d.op == target]
    assert on_target, [str(d) for d in errors]
    d = on_target[0]
    assert d.rule_id == rule_for(quantizer.engine, target)
    assert f"'{d.node}'" in str(exc.value) and d.rule_id in str(exc.value)
    return errors


def test_16a16w_on_sm8450_raises_the_v73_gate():
    errors = gate_error("SM8450", "16a16w", "aten.conv2d.default")
    assert {d.op for d in errors} == {"aten.conv2d.default", "aten.linear.default"}
    assert all("V73" in d.expected and "V69" in d.actual for d in errors)


def test_block_wise_on_sm8350_raises_the_v69_gate():
    [d] = gate_error("SM8350", "16a4w_block", "aten.linear.default")
    assert (d.node, d.port) == ("linear", "in[1] weight") and "V68" in d.actual


def test_wrong_fixed_scale_raises_naming_node_and_rule(small):
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="16a8w")
    quantizer.annotate(small)
    sig = node(small, "aten.sigmoid.default")
    annotation(sig).output_qspec = FixedQParamsQuantizationSpec(
        dtype=torch.int32, scale=1 / 65535, zero_point=0, quant_min=0, quant_max=65535,
        qscheme=torch.per_tensor_affine)
    with pytest.raises(qnnrules.ValidationError) as exc:
        quantizer.validate(small)
    [d] = exc.value.errors
    assert (d.node, d.code, d.port) == ("sigmoid", "fixed-scale", "out[0] output")
    assert d.rule_id == rule_for(quantizer.engine, "aten.sigmoid.default")
    assert "'sigmoid'" in str(exc.value) and d.rule_id in str(exc.value)


def test_warn_mode_logs_every_violation_and_returns_them(small, caplog):
    quantizer = qt.Quantizer(backend="htp", soc="SM8450", config="16a16w", strict=False)
    with caplog.at_level(logging.WARNING, logger="qnnrules"):
        prepared = prepare_pt2e(small, quantizer)  # warn mode: prepare goes on
    records = [r.getMessage() for r in caplog.records if r.name == "qnnrules"]
    assert len(records) == 2 and all("arch-gate" in r for r in records)
    assert {d.node for d in quantizer.validate(prepared)} >= {"conv2d", "linear"}


def test_re_annotating_replaces_old_annotations(small):
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="16a8w")
    quantizer.annotate(small)
    sig = node(small, "aten.sigmoid.default")
    annotation(sig).output_qspec = QuantizationSpec(  # a calibrated range where 1/65536 is fixed
        dtype=torch.int32, quant_min=0, quant_max=65535, qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=MinMaxObserver)
    qt.Quantizer(backend="htp", soc=SOC, config="8a8w").annotate(small)
    fixed = annotation(sig).output_qspec
    assert type(fixed) is FixedQParamsQuantizationSpec and spec_range(fixed) == (torch.uint8, 0, 255)


def test_re_annotating_can_refuse_naming_the_annotated_nodes(small):
    qt.Quantizer(backend="htp", soc=SOC).annotate(small)
    with pytest.raises(qnnrules.AnnotationError, match="already annotated .*conv2d.*existing='replace'"):
        qt.Quantizer(backend="htp", soc=SOC, existing="error").annotate(small)


def test_bad_config_is_a_config_error():
    with pytest.raises(qnnrules.ConfigError, match="16a2w") as exc:
        qt.Quantizer(backend="htp", soc=SOC, config="16a2w:per_tensor").annotate(
            export(ConvSigmoidLinear(), ConvSigmoidLinear.example()))
    assert isinstance(exc.value, qnnrules.Error) and isinstance(exc.value, ValueError)


def quantize(quantizer, model, example):
    prepared = prepare_pt2e(export(model, example), quantizer)
    with torch.no_grad():
        prepared(*example)
    return convert_pt2e(prepared)


def qdq_nodes(gm):
    return [n for n in gm.graph.nodes if str(n.target).startswith("quantized_decomposed.")]


def test_prepare_calibrate_convert_validates_with_calibrated_scales(engine, warn_engine, tmp_path):
    model, example = ConvSigmoidLinear(), ConvSigmoidLinear.example()
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config="16a8w:per_channel", name="small")
    converted = quantize(quantizer, model, example)
    assert len(qdq_nodes(converted)) >= 10
    q_sig = next(n for n in converted.graph.nodes if n.args and getattr(n.args[0], "name", "") == "sigmoid")
    assert q_sig.args[1:] == (1 / 65536, 0, 0, 65535, torch.int32)
    assert quantizer.validate(converted) == []
    report = engine.check(qt.from_fx(converted, name="small"))
    assert report.ok and report.nodes_checked == report.nodes_with_rule == 4
    path = qt.save(converted, tmp_path / "small_converted.json", name="small")
    for e in (engine, warn_engine):
        assert_same_as_cli(e, path)


def test_calibrated_sigmoid_output_is_caught_after_convert(engine):
    class CalibratedSigmoid(qt.Quantizer):
        """Overrides the sigmoid's fixed output qparams with an observed range."""

        def annotate(self, model):
            super().annotate(model)
            annotation(node(model, "aten.sigmoid.default")).output_qspec = QuantizationSpec(
                dtype=torch.int32, quant_min=0, quant_max=65535, qscheme=torch.per_tensor_affine,
                observer_or_fake_quant_ctr=MinMaxObserver)
            return model

        def validate(self, model):
            pass  # let it through to convert

    quantizer = CalibratedSigmoid(backend="htp", soc=SOC, config="16a8w")
    converted = quantize(quantizer, ConvSigmoidLinear(), ConvSigmoidLinear.example())
    with pytest.raises(qnnrules.ValidationError) as exc:
        qt.validate(engine, converted)
    [d] = exc.value.errors
    assert (d.node, d.code) == ("sigmoid", "fixed-scale")
    assert d.rule_id == rule_for(engine, "aten.sigmoid.default")
