"""The Quantizer at real LLM dimensions (issue 34): qnnrules.torch.Quantizer against ExecuTorch's
QnnQuantizer on a Llama-style decoder with Qwen3-0.6B's dimensions (hidden 1024, 16 heads, MLP
3072, vocabulary 151,936; --layers of its 28), per config: CPU seconds of prepare_pt2e, calibration
and convert_pt2e, the peak RSS of the whole run, and the SQNR of the converted model's logits
against the float model's. Each (quantizer, config) runs in its own process (its peak RSS is its
own), one after the other; both see the same seeded weights, calibration and evaluation batches.

    PYTHONPATH=build/python .venv/bin/python benchmarks/quantizer_llm.py --layers 8 \\
        --configs 16a8w,16a4w_block [--out benchmarks/data/quantizer_llm.json]

Run it with nothing else running: torch's threads are pinned to one, but CPU time still grows when
another job competes. The quantizers are set up as benchmarks/quantizer_sqnr.py sets them up
(per-channel linear weights, per-tensor embedding, the same 32-channel block map for 16a4w_block).
ours: qnnrules.torch.prepare_pt2e (torchao's with linear-time observer naming), as its docs
recommend; ExecuTorch: torchao's prepare_pt2e.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
sys.path.append(os.path.join(ROOT, "tools", "conformance", "executorch"))
os.environ.setdefault("EXECUTORCH_BUILDING_WHEEL", "1")

DIMS = {"qwen3-0.6b": dict(vocab=151936, dim=1024, heads=16, hidden=3072),
        "toy": dict(vocab=128, dim=64, heads=4, hidden=128)}


def model_class(dims, layers):
    from models import Decoder

    class D(Decoder):
        pass
    for k, v in DIMS[dims].items():
        setattr(D, k, v)
    D.layers = layers
    return D


def one(kind, config, dims, layers, batches):
    import torch
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    import qnnrules.torch as qt
    import quantizer_sqnr as qs
    torch.set_num_threads(1)
    cls = model_class(dims, layers)
    torch.manual_seed(0)
    model = cls().eval()
    float_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    torch.manual_seed(1)
    calib = [cls.example() for _ in range(batches)]
    evals = [cls.example() for _ in range(2)]
    gm = torch.export.export(model, calib[0]).module()
    quantizer = qs.quantizer(kind, config, gm)
    prepare = qt.prepare_pt2e if kind == "qnnrules" else prepare_pt2e
    times = {}
    t = time.process_time()
    prepared = prepare(gm, quantizer)
    times["prepare"] = time.process_time() - t
    t = time.process_time()
    with torch.no_grad():
        for b in calib:
            prepared(*b)
    times["calibrate"] = time.process_time() - t
    t = time.process_time()
    converted = convert_pt2e(prepared)
    times["convert"] = time.process_time() - t
    with torch.no_grad():
        ref = torch.cat([model(*b)[0].flatten() for b in evals])
        out = torch.cat([converted(*b)[0].flatten() for b in evals])
    return {"kind": kind, "config": config, **{k: round(v, 2) for k, v in times.items()},
            "total": round(sum(times.values()), 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "float_weights_mb": round(float_bytes / 2**20, 1), "sqnr_db": round(qs.sqnr(ref, out), 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dims", default="qwen3-0.6b", choices=sorted(DIMS))
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--configs", default="16a8w,16a4w_block")
    ap.add_argument("--out")
    ap.add_argument("--one", nargs=2, metavar=("KIND", "CONFIG"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one[0], a.one[1], a.dims, a.layers, a.batches)))
        return 0
    rows = []
    for config in a.configs.split(","):
        for kind in ("qnnrules", "executorch"):
            cmd = [sys.executable, __file__, "--dims", a.dims, "--layers", str(a.layers), "--batches",
                   str(a.batches), "--one", kind, config]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"{kind} {config} failed:\n{p.stderr[-2000:]}", file=sys.stderr)
                return 1
            rows.append(json.loads(p.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)
    print(f"\n{a.dims}, {a.layers} layers, {a.batches} calibration batches, CPU seconds (1 torch thread)")
    print("config        quantizer    prepare  calibrate  convert   total  peak RSS MB  SQNR dB")
    for r in rows:
        print(f"{r['config']:13s} {r['kind']:11s} {r['prepare']:8.2f} {r['calibrate']:10.2f} {r['convert']:8.2f} "
              f"{r['total']:7.2f} {r['peak_rss_mb']:12d} {r['sqnr_db']:8.2f}")
    for config in a.configs.split(","):
        ours, et = [next(r for r in rows if r["kind"] == k and r["config"] == config) for k in ("qnnrules", "executorch")]
        print(f"{config}: ours/ExecuTorch total {ours['total'] / et['total']:.2f}x, peak RSS "
              f"{ours['peak_rss_mb'] / et['peak_rss_mb']:.2f}x, RSS/float weights {ours['peak_rss_mb'] / max(ours['float_weights_mb'], 0.1):.2f}x, "
              f"SQNR {ours['sqnr_db'] - et['sqnr_db']:+.2f} dB")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"dims": a.dims, "layers": a.layers, "batches": a.batches, "rows": rows}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
