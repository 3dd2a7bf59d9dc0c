"""QAT of torchvision CNNs with BatchNorm (issue 34): qnnrules.torch.Quantizer against ExecuTorch's
QnnQuantizer on the same steps. Per model: train-mode torch.export, prepare_qat_pt2e, N SGD steps
on the same random batches, convert_pt2e, then the converted model (in eval mode) against the
float model it started from (eval mode, weights and BatchNorm statistics of 16 batches
copied before the steps) on the same eval batches: SQNR in dB, float batch_norm nodes left, and our validate's error count (SM8650). Each
phase's wall seconds too.

    EXECUTORCH_BUILDING_WHEEL=1 PYTHONPATH=build/python:tools/conformance/executorch \\
        .venv/bin/python benchmarks/quantizer_qat.py [--models resnet18 mobilenet_v2] [--steps 2]

Both quantizers go through qnnrules.torch.prepare_qat_pt2e / convert_pt2e (torchao's, tracing
the conv + batch_norm patterns of the graph's convs only: the same graph, faster), with the same
switches: 8a8w, QAT, per-channel conv and linear weights.
"""

import argparse
import copy
import json
import math
import os
import sys
import time

import torch
import torchvision
from torchao.quantization.pt2e import move_exported_model_to_eval

import qnnrules.torch as qt

SOC = "SM8650"


def sqnr(ref, test):
    noise = float(((ref - test) ** 2).sum())
    signal = float((ref ** 2).sum())
    return math.inf if noise == 0 else 10 * math.log10(signal / noise)


def quantizer(kind, config):
    if kind == "executorch":
        from executorch.backends.qualcomm.quantizer.quantizer import QnnQuantizer, QuantDtype
        from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset, QnnExecuTorchBackendType
        q = QnnQuantizer(backend=QnnExecuTorchBackendType.kHtpBackend, soc_model=getattr(QcomChipset, SOC))
        q.set_default_quant_config(getattr(QuantDtype, f"use_{config}"), is_qat=True, is_conv_per_channel=True,
                                   is_linear_per_channel=True)
        return q
    return qt.Quantizer(backend="htp", soc=SOC, config=config, is_qat=True, strict=False,
                        is_conv_per_channel=True, is_linear_per_channel=True)


def run(kind, name, config, steps, lr, side, batch, seed=0):
    torch.manual_seed(seed)
    model = getattr(torchvision.models, name)(num_classes=10).train()
    gen = torch.Generator().manual_seed(seed + 1)
    # BatchNorm statistics of the data first (a cumulative average over 16 batches): with the
    # initial ones (mean 0, variance 1) a randomly initialised deep CNN's eval-mode output grows
    # by orders of magnitude per block, and no quantized model follows it.
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in norms:
        m.momentum = None
    with torch.no_grad():
        for _ in range(16):
            model(torch.randn(8, 3, side, side, generator=gen))
    for m in norms:  # back to the default (momentum None cannot be exported: 1 / batches tracked)
        m.momentum = 0.1
    reference = copy.deepcopy(model).eval()
    train = [torch.randn(batch, 3, side, side, generator=gen) for _ in range(steps)]
    evals = [torch.randn(batch, 3, side, side, generator=gen) for _ in range(4)]
    times = {}
    t = time.perf_counter()
    gm = torch.export.export(model, (train[0],)).module()
    times["export"] = time.perf_counter() - t
    q = quantizer(kind, config)
    t = time.perf_counter()
    prepared = qt.prepare_qat_pt2e(gm, q)
    times["prepare"] = time.perf_counter() - t
    opt = torch.optim.SGD(prepared.parameters(), lr=lr)
    t = time.perf_counter()
    for x in train:
        loss = prepared(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    times["steps"] = time.perf_counter() - t
    t = time.perf_counter()
    converted = qt.convert_pt2e(prepared)
    times["convert"] = time.perf_counter() - t
    bn = sum(1 for n in converted.graph.nodes if n.op == "call_function" and "batch_norm" in str(n.target))
    t = time.perf_counter()
    report = qt.Quantizer(backend="htp", soc=SOC, config=config, strict=False).engine.check(qt.from_fx(converted))
    times["validate"] = time.perf_counter() - t
    move_exported_model_to_eval(converted)
    with torch.no_grad():
        ref = torch.cat([reference(x).reshape(-1) for x in evals]).double()
        out = torch.cat([converted(x).reshape(-1) for x in evals]).double()
    return {"sqnr_db": round(sqnr(ref, out), 2), "float_batch_norm": bn, "errors": report.error_count,
            "seconds": {k: round(v, 1) for k, v in times.items()}}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", nargs="+", default=["resnet18", "mobilenet_v2"])
    p.add_argument("--config", default="8a8w")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-4, help="SGD learning rate of the steps")
    p.add_argument("--side", type=int, default=64, help="image side")
    p.add_argument("--batch", type=int, default=8, help="images per step (train-mode BatchNorm uses their statistics)")
    p.add_argument("--out", help="write the rows as JSON here")
    args = p.parse_args()
    torch.set_num_threads(1)
    os.environ.setdefault("EXECUTORCH_BUILDING_WHEEL", "1")
    rows = []
    for name in args.models:
        row = {"model": name, "config": args.config, "steps": args.steps, "lr": args.lr, "side": args.side,
               "batch": args.batch}
        for kind in ("qnnrules", "executorch"):
            row[kind] = run(kind, name, args.config, args.steps, args.lr, args.side, args.batch)
        row["gap_db"] = round(row["qnnrules"]["sqnr_db"] - row["executorch"]["sqnr_db"], 2)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"command": "benchmarks/quantizer_qat.py " + " ".join(sys.argv[1:]), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
