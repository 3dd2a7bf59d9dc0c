"""The Quantizer at real LLM dimensions (issue 34): qnnrules.torch.Quantizer against ExecuTorch's
QnnQuantizer on a Llama-style decoder with the dimensions of real LLMs (DIMS, from their
`transformers` configs; random weights, no download), per run DIMS:LAYERS and config: CPU and wall
seconds of prepare_pt2e, calibration and convert_pt2e, the peak RSS of the quantization (import to
the end of convert) and of the whole run (with the evaluation of both models), and the SQNR of the
converted model's logits against the float model's. Each (quantizer, config) runs in its own process
(its peak RSS is its own), one after the other; both see the same seeded weights, calibration and
evaluation batches.

    PYTHONPATH=build/python .venv/bin/python benchmarks/quantizer_llm.py \\
        --runs qwen3-0.6b:8,qwen3-0.6b:28,qwen3-1.7b:4,llama-3.2-1b:4 --configs 16a8w,16a4w_block \\
        [--out benchmarks/data/quantizer_llm.json] [--doc docs/performance.md]

Run it with nothing else running: torch's threads are pinned to one, but CPU time still grows when
another job competes. The quantizers are set up as benchmarks/quantizer_sqnr.py sets them up
(per-channel linear weights, per-tensor embedding, the same 32-channel block map for 16a4w_block).
ours: qnnrules.torch.prepare_pt2e and convert_pt2e (torchao's with linear-time observer naming,
and with the weight fold of python/qnnrules/pt2e_convert.py), as its docs recommend; ExecuTorch:
torchao's prepare_pt2e and convert_pt2e, as its Qualcomm llama example calls them. The decoder
(tests/python/models.py Decoder) has full-width K/V projections (no grouped-query attention) and an
untied LM head, so its weights are somewhat more than the named model's per layer.
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

# hidden size, attention heads, MLP width, vocabulary of each model's transformers config.
DIMS = {"qwen3-0.6b": dict(vocab=151936, dim=1024, heads=16, hidden=3072),
        "qwen3-1.7b": dict(vocab=151936, dim=2048, heads=16, hidden=6144),
        "llama-3.2-1b": dict(vocab=128256, dim=2048, heads=32, hidden=8192),
        "toy": dict(vocab=128, dim=64, heads=4, hidden=128)}
PHASES = ("prepare", "calibrate", "convert")


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


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
    convert = qt.convert_pt2e if kind == "qnnrules" else convert_pt2e
    times, walls = {}, {}

    def timed(phase, run):
        t, w = time.process_time(), time.perf_counter()
        result = run()
        times[phase], walls[phase] = time.process_time() - t, time.perf_counter() - w
        return result

    def calibrate():
        with torch.no_grad():
            for b in calib:
                prepared(*b)
    prepared = timed("prepare", lambda: prepare(gm, quantizer))
    timed("calibrate", calibrate)
    converted = timed("convert", lambda: convert(prepared))
    quantization_rss = peak_rss_mb()
    with torch.no_grad():
        ref = torch.cat([model(*b)[0].flatten() for b in evals])
        out = torch.cat([converted(*b)[0].flatten() for b in evals])
    return {"dims": dims, "layers": layers, "kind": kind, "config": config,
            **{k: round(v, 2) for k, v in times.items()}, "total": round(sum(times.values()), 2),
            "wall": {k: round(v, 2) for k, v in walls.items()},
            "peak_rss_quantization_mb": quantization_rss, "peak_rss_mb": peak_rss_mb(),
            "float_weights_mb": round(float_bytes / 2**20, 1), "sqnr_db": round(qs.sqnr(ref, out), 2)}


def ratios(rows):
    """(dims, layers, config) -> ours/ExecuTorch figures of that pair of rows."""
    out = {}
    for ours in (r for r in rows if r["kind"] == "qnnrules"):
        et = next(r for r in rows if r["kind"] == "executorch" and
                  all(r[k] == ours[k] for k in ("dims", "layers", "config")))
        out[(ours["dims"], ours["layers"], ours["config"])] = {
            **{p: ours[p] / et[p] for p in PHASES + ("total",)},
            "rss": ours["peak_rss_quantization_mb"] / et["peak_rss_quantization_mb"],
            "rss_per_weights": ours["peak_rss_quantization_mb"] / ours["float_weights_mb"],
            "sqnr": ours["sqnr_db"] - et["sqnr_db"]}
    return out


def table(data):
    """The markdown table docs/performance.md shows (tests/python/test_quantizer_llm_data.py)."""
    lines = ["| model, layers | config | quantizer | prepare | calibrate | convert | total CPU s | "
             "peak RSS MB (quantization / with evaluation) | SQNR dB |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in data["rows"]:
        who = "qnnrules" if r["kind"] == "qnnrules" else "ExecuTorch"
        lines.append(f"| {r['dims']}, {r['layers']} | {r['config']} | {who} | {r['prepare']:.2f} | "
                     f"{r['calibrate']:.2f} | {r['convert']:.2f} | {r['total']:.2f} | "
                     f"{r['peak_rss_quantization_mb']} / {r['peak_rss_mb']} | {r['sqnr_db']:.2f} |")
    lines += ["", "| model, layers | config | ours/ExecuTorch: prepare | calibrate | convert | total | "
              "peak RSS | RSS / float weights | SQNR difference dB |", "|---|---|---|---|---|---|---|---|---|"]
    for (dims, layers, config), q in ratios(data["rows"]).items():
        lines.append(f"| {dims}, {layers} | {config} | {q['prepare']:.2f}x | {q['calibrate']:.2f}x | "
                     f"{q['convert']:.2f}x | {q['total']:.2f}x | {q['rss']:.2f}x | "
                     f"{q['rss_per_weights']:.2f}x | {q['sqnr']:+.2f} |")
    return "\n".join(lines)


BEGIN, END = "<!-- quantizer_llm.py table: begin -->", "<!-- quantizer_llm.py table: end -->"


def write_doc(path, data):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + table(data) + "\n" + END + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", default="qwen3-0.6b:8", help="DIMS:LAYERS,... (DIMS of %s)" % ", ".join(DIMS))
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--configs", default="16a8w,16a4w_block")
    ap.add_argument("--out")
    ap.add_argument("--doc", help="rewrite the table between the markers of this markdown file")
    ap.add_argument("--one", nargs=4, metavar=("DIMS", "LAYERS", "KIND", "CONFIG"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one[2], a.one[3], a.one[0], int(a.one[1]), a.batches)))
        return 0
    rows = []
    for run in a.runs.split(","):
        dims, layers = run.split(":")
        for config in a.configs.split(","):
            for kind in ("qnnrules", "executorch"):
                cmd = [sys.executable, __file__, "--batches", str(a.batches), "--one", dims, layers, kind, config]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"{run} {kind} {config} failed:\n{p.stderr[-2000:]}", file=sys.stderr)
                    return 1
                rows.append(json.loads(p.stdout.strip().splitlines()[-1]))
                print(json.dumps(rows[-1]), flush=True)
    data = {"batches": a.batches, "rows": rows}
    print(f"\n{a.batches} calibration batches, CPU seconds (1 torch thread)\n" + table(data))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
    if a.doc:
        write_doc(a.doc, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
