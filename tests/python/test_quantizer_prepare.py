"""qnnrules.torch.prepare_pt2e (python/qnnrules/pt2e_prepare.py): torchao's prepare_pt2e with
linear-time observer naming gives the same prepared module as torchao's own (observer names,
classes, settings, graph), the same calibrated observers and the same converted model, and
leaves torch's functions as they were."""

import importlib

import torch
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e

import qnnrules.torch as qt
from conftest import SOC
from models import ConvSigmoidLinear, Decoder, export
from qnnrules import pt2e_prepare

fx_prepare = importlib.import_module("torch.ao.quantization.fx.prepare")

_OBSERVER_FIELDS = ("dtype", "qscheme", "quant_min", "quant_max", "ch_axis", "eps", "block_size", "granularity")


def observers(gm):
    """name -> (class, settings, buffers) of every observer / fake-quantize module."""
    out = {}
    for name, m in gm.named_modules():
        if name.startswith("activation_post_process_"):
            settings = tuple(str(getattr(m, f, None)) for f in _OBSERVER_FIELDS)
            buffers = {k: v.clone() for k, v in m.state_dict().items()}
            out[name] = (type(m).__name__, settings, buffers)
    return out


def assert_same_observers(a, b):
    oa, ob = observers(a), observers(b)
    assert list(oa) == list(ob)
    for name in oa:
        assert oa[name][:2] == ob[name][:2], name
        assert oa[name][2].keys() == ob[name][2].keys(), name
        for k in oa[name][2]:
            assert torch.equal(oa[name][2][k], ob[name][2][k]), (name, k)


def run(prepare, model, example, batches, config, convert=True, **kwargs):
    quantizer = qt.Quantizer(backend="htp", soc=SOC, config=config, strict=False, **kwargs)
    prepared = prepare(export(model, example), quantizer)
    code = prepared.code
    with torch.no_grad():
        for b in batches:
            prepared(*b)
    return prepared, code, (convert_pt2e(prepared) if convert else None)


def decoder():
    torch.manual_seed(0)
    return Decoder().eval()


def test_decoder_prepares_calibrates_and_converts_as_torchao_does():
    torch.manual_seed(1)
    batches = [Decoder.example() for _ in range(3)]
    for config in ("16a8w", "16a4w_block"):
        ours, ours_code, ours_conv = run(qt.prepare_pt2e, decoder(), batches[0], batches, config)
        ref, ref_code, ref_conv = run(prepare_pt2e, decoder(), batches[0], batches, config)
        assert len(observers(ref)) > 100  # enough observers for the naming to matter
        assert ours_code == ref_code
        assert_same_observers(ours, ref)
        assert ours_conv.code == ref_conv.code
        ours_state, ref_state = ours_conv.state_dict(), ref_conv.state_dict()
        assert ours_state.keys() == ref_state.keys()
        assert all(torch.equal(ours_state[k], ref_state[k]) for k in ref_state)


def test_qat_prepare_is_torchao_s():
    example = ConvSigmoidLinear.example()
    ours, ours_code, _ = run(qt.prepare_qat_pt2e, ConvSigmoidLinear().train(), example, [example], "8a8w",
                             convert=False, is_qat=True)
    ref, ref_code, _ = run(prepare_qat_pt2e, ConvSigmoidLinear().train(), example, [example], "8a8w",
                           convert=False, is_qat=True)
    assert ours_code == ref_code
    assert [v[0] for v in observers(ours).values()] == [v[0] for v in observers(ref).values()]


def test_names_resume_where_the_last_probe_stopped_and_skip_taken_names():
    # torch's naming takes the first free index; so does ours, from where it stopped, as long as
    # names are only added: a name taken in between (index 2 below) is skipped as torch skips it.
    original = pt2e_prepare._ORIGINALS["get_new_attr_name_with_prefix"]
    theirs, ours = torch.nn.Module(), torch.nn.Module()
    for m in (theirs, ours):
        m.activation_post_process_1 = torch.nn.Identity()
    names = {id(theirs): [], id(ours): []}
    with pt2e_prepare.linear_observer_naming():
        for step in range(5):
            for m, naming in ((theirs, original), (ours, fx_prepare.get_new_attr_name_with_prefix)):
                name = naming("activation_post_process_")(m)
                names[id(m)].append(name)
                setattr(m, name, torch.nn.Identity())
                if step == 1:
                    m.activation_post_process_4 = torch.nn.Identity()
    assert names[id(ours)] == names[id(theirs)]
    assert names[id(theirs)] == [f"activation_post_process_{i}" for i in (0, 2, 3, 5, 6)]


def test_torch_functions_are_restored_after_the_call_and_on_error():
    before = {name: getattr(fx_prepare, name) for name in pt2e_prepare._REPLACEMENTS}
    with pt2e_prepare.linear_observer_naming():
        with pt2e_prepare.linear_observer_naming():  # nested: one replacement
            assert all(getattr(fx_prepare, n) is f for n, f in pt2e_prepare._REPLACEMENTS.items())
        assert all(getattr(fx_prepare, n) is f for n, f in pt2e_prepare._REPLACEMENTS.items())
    assert {name: getattr(fx_prepare, name) for name in before} == before
    try:
        qt.prepare_pt2e(export(ConvSigmoidLinear(), ConvSigmoidLinear.example()),
                        qt.Quantizer(backend="htp", soc=SOC, config="no_such_config"))
    except Exception:  # noqa: BLE001 (the error is the Quantizer's; restoring is what is checked)
        pass
    else:
        raise AssertionError("an unknown config should fail")
    assert {name: getattr(fx_prepare, name) for name in before} == before
