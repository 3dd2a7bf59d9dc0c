"""CPU time of prepare_pt2e, calibration (N batches) and convert_pt2e with qnnrules.torch.Quantizer
and with ExecuTorch's QnnQuantizer (set up as its examples do: tools/conformance/executorch/
et_quantize.py), on the same Llama-style decoder (tests/python/models.py's Decoder with more
layers), the same batches, paired in one run (the three alternate, round by round).

    PYTHONPATH=build/python EXECUTORCH_BUILDING_WHEEL=1 .venv/bin/python benchmarks/quantizer_pt2e.py \\
        --layers 8 --batches 16 --rounds 2 --config 16a8w

Three runs per round: "qnnrules" (torchao's prepare_pt2e), "qnnrules+naming" (the same
Quantizer through qnnrules.torch.prepare_pt2e: torchao's prepare with linear-time observer
naming, python/qnnrules/pt2e_prepare.py; the same prepared module) and "executorch" (torchao's
prepare_pt2e). ExecuTorch's observers are those of the installed ExecuTorch: 1.5.1 has PR 18516's
(PerChannelParamObserver and PerBlockParamObserver observe a weight once, ConcatObserver uses
aminmax); the first round prints the observer classes each prepared model holds, as evidence.

Prints one line per phase with the median CPU seconds (time.process_time) over the rounds of
each run, and the ratios ExecuTorch / qnnrules.
"""

import argparse
import collections
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.append(os.path.join(ROOT, "tools", "conformance", "executorch"))  # after tests/python: it has a models.py too
os.environ.setdefault("EXECUTORCH_BUILDING_WHEEL", "1")

import torch  # noqa: E402
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e  # noqa: E402

import qnnrules.torch as qt  # noqa: E402
from models import Decoder  # noqa: E402


def decoder(layers):
    class D(Decoder):
        pass
    D.layers = layers
    torch.manual_seed(0)
    return D().eval(), D


KINDS = ("qnnrules", "qnnrules+naming", "executorch")


def observer_classes(prepared):
    counts = collections.Counter(type(m).__name__ for name, m in prepared.named_modules()
                                 if name.startswith("activation_post_process_"))
    return ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))


def one(kind, config, layers, batches, soc, show=False):
    model, cls = decoder(layers)
    example = cls.example()
    gm = torch.export.export(model, example).module()
    prepare = qt.prepare_pt2e if kind == "qnnrules+naming" else prepare_pt2e
    if kind.startswith("qnnrules"):
        quantizer = qt.Quantizer(backend="htp", soc=soc, config=config, strict=False)
    else:
        import et_quantize
        quantizer = et_quantize.quantizer_for(config.split(":")[0], gm, soc=soc)
    times = {}
    t = time.process_time()
    prepared = prepare(gm, quantizer)
    times["prepare"] = time.process_time() - t
    if show:
        print(f"{kind} observers: {observer_classes(prepared)}", flush=True)
    data = [cls.example() for _ in range(batches)]
    t = time.process_time()
    with torch.no_grad():
        for b in data:
            prepared(*b)
    times["calibrate"] = time.process_time() - t
    t = time.process_time()
    convert_pt2e(prepared)
    times["convert"] = time.process_time() - t
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--batches", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--config", default="16a8w")
    ap.add_argument("--soc", default="SM8650")
    args = ap.parse_args()
    torch.set_num_threads(1)
    results = {k: [] for k in KINDS}
    for r in range(args.rounds):
        for kind in KINDS:
            results[kind].append(one(kind, args.config, args.layers, args.batches, args.soc, show=r == 0))
    print(f"decoder {args.layers} layers, config {args.config}, {args.batches} calibration batches, "
          f"{args.rounds} round(s), median CPU seconds (1 torch thread)")
    for phase in ("prepare", "calibrate", "convert"):
        med = {k: statistics.median(r[phase] for r in v) for k, v in results.items()}
        print(f"{phase:10s} qnnrules {med['qnnrules']:8.3f}  qnnrules+naming {med['qnnrules+naming']:8.3f}  "
              f"executorch {med['executorch']:8.3f}  executorch/qnnrules {med['executorch'] / med['qnnrules']:5.2f}x  "
              f"executorch/qnnrules+naming {med['executorch'] / med['qnnrules+naming']:5.2f}x")


if __name__ == "__main__":
    main()
