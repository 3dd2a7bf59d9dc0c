"""The observers qnnrules.torch.Quantizer writes into its torchao specs (python/qnnrules/pt2e.py):
which class observes each port, its scale floor, PTQ weights observed once, and the range of a
shared encoding that several tensors feed. The specs themselves are the engine's."""

import dataclasses

try:
    import torch
    from torchao.quantization.granularity import PerBlock
    from torchao.quantization.pt2e._affine_quantization import AffineQuantizedMinMaxObserver
    from torchao.quantization.pt2e.fake_quantize import AffineFakeQuantize, FusedMovingAvgObsFakeQuantize
    from torchao.quantization.pt2e.observer import (
        MinMaxObserver,
        MovingAverageMinMaxObserver,
        MovingAveragePerChannelMinMaxObserver,
        PerChannelMinMaxObserver,
    )
    from torchao.quantization.quant_primitives import MappingType
except ModuleNotFoundError as _error:  # the `torch` extra is not installed
    from ._requires import torch_extra
    raise torch_extra(__name__, _error) from None

from . import _fx as fx


_NARROW_WEIGHT_LEVELS = 15  # 4-bit symmetric weights are -7..7; 2-bit -2..1


def default_act_observer(model, nodes, fx_nodes):
    """The PTQ activation observer when the options name none: MinMaxObserver, except in a graph
    whose annotated weights include 4-bit or narrower ones (16a4w, 16a4w_block, 8a4w, 16a2w),
    where it is the seed's MovingAverageMinMaxObserver. Measured (benchmarks/quantizer_sqnr.py,
    docs/embedding.md): with 8-bit and wider weights the global min/max gives up to 19 dB more
    SQNR than the moving average (-0.2 dB at worst, ViT 8a8w); with 4-bit weights the moving
    average's narrower ranges (close to the first batch's) clip the larger excursions the
    weights' error causes, and give up to 2.9 dB more on the CNNs measured (the decoder measured
    does 2.4 dB better with act_observer=MinMaxObserver)."""
    for nd in nodes:
        for value in nd.get("args", []):
            for ref in fx._tensor_refs(value):
                spec = ref.get("qspec") or {}
                qmin, qmax = spec.get("quant_min"), spec.get("quant_max")
                if (qmin is not None and qmax is not None and qmax - qmin <= _NARROW_WEIGHT_LEVELS
                        and ref["ref"] in fx_nodes and is_static(model, fx_nodes[ref["ref"]])):
                    return MovingAverageMinMaxObserver
    return MinMaxObserver


def global_min_max(spec):
    """A moving-average observer shared by different tensors keeps near the first one's range
    (each update moves it 1% towards the next tensor's): ViT's cat of the class token and the
    patch embeddings was clipped to the class token's range (ours 10.6 dB against the seed's
    39.9 at 16a8w with act_observer=MovingAverageMinMaxObserver). The seed gives a cat one
    ConcatObserver, whose range is the running min/max of all its inputs
    (backends/qualcomm/quantizer/observers/concat_observer.py); such a group observes with
    MinMaxObserver, the same range."""
    ctr = getattr(spec, "observer_or_fake_quant_ctr", None)
    partial = getattr(ctr, "p", None)
    func = getattr(partial, "func", ctr)
    if not (isinstance(func, type) and issubclass(func, MovingAverageMinMaxObserver)):
        return spec
    kwargs = {k: v for k, v in (getattr(partial, "keywords", None) or {}).items() if k != "averaging_constant"}
    return dataclasses.replace(spec, observer_or_fake_quant_ctr=MinMaxObserver.with_args(**kwargs))


# The engine's scale floors (engine/include/qnnrules/annotate/Encodings.h, the seed's
# utils/constants.py DEFAULT_EPS_8BIT / DEFAULT_EPS_16BIT): the encoder floors a scale at eps8
# for encodings of 8 bits or fewer and at eps16 for wider ones; LPBQ block scales at float32's
# eps, as torchao. torch's observers default to float32's eps (1.2e-7), which flattens a 16-bit
# activation whose range is under 1.2e-7 x 65535 = 0.008 onto fewer codes than it has.
_EPS_8BIT = 0.0001 / 255
_EPS_16BIT = 0.0001 / 65535
_EPS_BLOCK = float(torch.finfo(torch.float32).eps)


def _eps_floor(qmin, qmax):
    return _EPS_8BIT if qmax - qmin <= 255 else _EPS_16BIT


def observer(spec, dtype, qmin, qmax, ch_axis, setting, static=False):
    """The observer (PTQ) or fake-quantize (QAT) constructor of one port. Activations: the
    setting's act_observer (default MinMaxObserver; QAT: MovingAverageMinMaxObserver inside
    FusedMovingAvgObsFakeQuantize, as the seed's QAT configs); weights: per-channel min/max or
    torchao's per-block affine observer (QAT: the same inside a fake-quantize). Scales are
    floored at the setting's eps, else at the engine's floor for the port's width. In PTQ a
    parameter does not change between calibration batches: its observer looks at it once (the
    seed's PR 18516)."""
    given = None if setting is None else setting.eps
    qat = setting is not None and setting.qat
    once = static and not qat
    if spec.get("block_size"):
        kwargs = dict(mapping_type=MappingType.SYMMETRIC, target_dtype=dtype,
                      granularity=PerBlock(tuple(spec["block_size"])), quant_min=qmin, quant_max=qmax,
                      eps=_EPS_BLOCK if given is None else float(given))
        if qat:
            return AffineFakeQuantize.with_args(observer=AffineQuantizedMinMaxObserver, **kwargs)
        return (AffineQuantizedMinMaxObserverOnce if once else AffineQuantizedMinMaxObserver).with_args(**kwargs)
    if qmin is None or qmax is None:
        info = torch.iinfo(dtype)
        qmin, qmax = info.min if qmin is None else qmin, info.max if qmax is None else qmax
    eps = {"eps": _eps_floor(qmin, qmax) if given is None else float(given)}
    if ch_axis is not None:
        if qat:
            return FusedMovingAvgObsFakeQuantize.with_args(
                observer=MovingAveragePerChannelMinMaxObserver, ch_axis=ch_axis, **eps)
        return (PerChannelMinMaxObserverOnce if once else PerChannelMinMaxObserver).with_args(ch_axis=ch_axis, **eps)
    act = setting.act_observer if setting is not None else None
    if qat:
        return FusedMovingAvgObsFakeQuantize.with_args(observer=act or MovingAverageMinMaxObserver, **eps)
    act = MinMaxObserverOnce if once else (act or MinMaxObserver)
    return act.with_args(**eps)


def is_static(model, node):
    """A parameter read by get_attr (what torch.export's module() and prepare_pt2e give)."""
    return node.op == "get_attr" and isinstance(fx._attr(model, node.target), torch.nn.Parameter)


class _ObserveOnce:
    """Observes the first tensor only: a PTQ weight is the same on every calibration batch."""

    def forward(self, x):
        if getattr(self, "_observed", False):
            return x
        self._observed = True
        return super().forward(x)


class MinMaxObserverOnce(_ObserveOnce, MinMaxObserver):
    pass


class PerChannelMinMaxObserverOnce(_ObserveOnce, PerChannelMinMaxObserver):
    """PerChannelMinMaxObserver's ranges of one weight by amin and amax along the channel's rows:
    the same values as its torch.aminmax(y, dim=1) (NaN included), which on one thread is 13x
    slower on a 3072 x 1024 weight (10 ms against 0.8; the bulk of calibrating a decoder's
    per-channel weights, benchmarks/quantizer_llm.py)."""

    def _forward(self, x_orig):
        if x_orig.numel() == 0 or self.min_val.numel() or self.max_val.numel():
            return super()._forward(x_orig)
        x = x_orig.detach()
        axes = list(range(x.dim()))
        axes[self.ch_axis], axes[0] = 0, self.ch_axis
        y = torch.flatten(x.permute(axes).to(self.min_val.dtype), start_dim=1)
        min_val, max_val = y.amin(1), y.amax(1)
        self.min_val.resize_(min_val.shape)
        self.max_val.resize_(max_val.shape)
        self.min_val.copy_(min_val)
        self.max_val.copy_(max_val)
        return x_orig


class AffineQuantizedMinMaxObserverOnce(_ObserveOnce, AffineQuantizedMinMaxObserver):
    pass
