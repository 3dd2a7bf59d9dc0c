"""Accuracy of qnnrules.torch.Quantizer against ExecuTorch's QnnQuantizer (issue 22): the SQNR of
each converted model's outputs against the float model, per model x config, side by side.

    PYTHONPATH=build/python .venv/bin/python benchmarks/quantizer_sqnr.py \\
        --out benchmarks/data/quantizer_sqnr.json

Both quantizers see the same exported graph, the same seeded calibration batches and the same
separate seeded evaluation inputs. ExecuTorch is set up as its examples do
(tools/conformance/executorch/et_quantize.py: per-channel conv/linear weights, per-tensor
embedding, MovingAverageMinMaxObserver activations, a block-size map of 32-channel blocks for
16a4w_block); ours gets the same switches (is_conv_per_channel, is_linear_per_channel,
is_embedding_per_channel, the same block-size map: see linear_blocks) and its default
observers, unless --act-observer is given.
Models: small torchvision CNNs at reduced width (tools/conformance/models/zoo.py) and the
Llama-style decoder with a KV cache (tests/python/models.py); random seeded weights.

SQNR = 10 log10(sum x^2 / sum (x - x_hat)^2) over every output element of every evaluation
batch (x: float model, x_hat: converted model). Prints a table; --out writes the figures as JSON.
"""

import argparse
import json
import math
import os
import platform
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.append(os.path.join(ROOT, "tools", "conformance", "executorch"))  # after tests/python: it has a models.py too
sys.path.append(os.path.join(ROOT, "tools", "conformance", "models"))
os.environ.setdefault("EXECUTORCH_BUILDING_WHEEL", "1")

import torch  # noqa: E402
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e  # noqa: E402

import qnnrules.torch as qt  # noqa: E402

CONFIGS = ("8a8w", "16a8w", "16a4w", "16a4w_block", "16a16w")
SOC = "SM8650"


def _cnn(builder_name, side=64):
    def build():
        import zoo
        torch.manual_seed(0)
        return getattr(zoo, builder_name)().eval()

    def batch(gen):
        return (torch.randn(2, 3, side, side, generator=gen),)
    return build, batch


def _decoder():
    from models import Decoder

    def build():
        torch.manual_seed(0)
        return Decoder().eval()

    def batch(gen):
        cache = (Decoder.layers, 1, Decoder.heads, Decoder.past, Decoder.dim // Decoder.heads)
        return (torch.randint(0, Decoder.vocab, (1, Decoder.new), generator=gen),
                torch.randn(*cache, generator=gen), torch.randn(*cache, generator=gen))
    return build, batch


# torchvision's own initialisation with default batch-norm statistics. Left out: mobilenet_v2,
# efficientnet_b0 and shufflenet_v2, whose activations so initialised vanish with depth (1e-6 and
# below at the last layers, outputs near 0), so their SQNR measures scale floors, not a quantizer.
MODELS = {
    "resnet18": _cnn("resnet18"),
    "squeezenet1_1": _cnn("squeezenet"),
    "regnet_y": _cnn("regnet"),
    "vit": _cnn("vit", side=32),
    "decoder": _decoder(),
}


def batches(make, seed, n):
    gen = torch.Generator().manual_seed(seed)
    return [make(gen) for _ in range(n)]


def flat(outputs):
    if isinstance(outputs, torch.Tensor):
        return outputs.detach().reshape(-1).double()
    return torch.cat([flat(o) for o in outputs])


def sqnr(ref, test):
    noise = float(((ref - test) ** 2).sum())
    signal = float((ref ** 2).sum())
    return math.inf if noise == 0 else 10 * math.log10(signal / noise)


def linear_blocks(gm):
    """The block-size map of both quantizers for 16a4w_block: et_quantize's 32-channel blocks, on
    linear nodes only. ExecuTorch 1.5.1 cannot calibrate block-wise convs: its Linear annotator
    writes the block size into the keywords of the one observer constructor all per-block
    weights share (annotators/htp_rules.py), its conv annotator does not, and observers are built
    after annotation, so every per-block observer gets the last linear's 2-D block size and a
    conv weight fails (_get_reduction_params asserts len(block_size) == weight.dim())."""
    import et_quantize
    linear = {n.name for n in gm.graph.nodes if n.op == "call_function" and n.target == torch.ops.aten.linear.default}
    return {k: v for k, v in et_quantize._block_size_map(gm).items() if k in linear}


def quantizer(kind, config, gm, act_observer=None):
    """The two quantizers with the same switches: per-channel conv/linear weights, per-tensor
    embedding, the same block-size map (16a4w_block)."""
    blocks = linear_blocks(gm) if config == "16a4w_block" else {}
    if kind == "executorch":
        import et_quantize
        q = et_quantize.quantizer_for(config, gm, soc=SOC)
    else:
        q = qt.Quantizer(backend="htp", soc=SOC, config=config, strict=False, act_observer=act_observer,
                         is_conv_per_channel=True, is_linear_per_channel=True, is_embedding_per_channel=False)
    if blocks or config == "16a4w_block":
        q.set_block_size_map(blocks)
    return q


def quantized_outputs(kind, config, model, calib, evals, act_observer=None):
    gm = torch.export.export(model, calib[0]).module()
    prepared = prepare_pt2e(gm, quantizer(kind, config, gm, act_observer))
    with torch.no_grad():
        for b in calib:
            prepared(*b)
        converted = convert_pt2e(prepared)
        return torch.cat([flat(converted(*b)) for b in evals])


def measure(names, configs, n_calib, n_eval, variants):
    """variants: {column: our act_observer} (None: the Quantizer's default)."""
    rows = []
    for name in names:
        build, make = MODELS[name]
        model = build()
        calib = batches(make, 1, n_calib)
        evals = batches(make, 2, n_eval)
        with torch.no_grad():
            ref = torch.cat([flat(model(*b)) for b in evals])
        for config in configs:
            row = {"model": name, "config": config}
            runs = [(column, "qnnrules", act) for column, act in variants.items()] + [("executorch", "executorch", None)]
            for column, kind, act in runs:
                out = quantized_outputs(kind, config, build(), calib, evals, act)
                row[column] = round(sqnr(ref, out), 2)
            row["difference"] = round(row["qnnrules"] - row["executorch"], 2)
            others = "".join(f"  {c} {row[c]:7.2f} dB" for c in variants if c != "qnnrules")
            print(f"{name:16s} {config:12s} qnnrules {row['qnnrules']:7.2f} dB  executorch "
                  f"{row['executorch']:7.2f} dB  difference {row['difference']:+6.2f} dB{others}", flush=True)
            rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--calibration-batches", type=int, default=8)
    ap.add_argument("--evaluation-batches", type=int, default=4)
    ap.add_argument("--act-observer", choices=("default", "moving_average", "min_max"), default="default",
                    help="our activation observer (default: the Quantizer's own)")
    ap.add_argument("--also", action="append", default=[], choices=("moving_average", "min_max"),
                    help="also measure ours with this activation observer (column qnnrules_<name>)")
    ap.add_argument("--out", help="write the figures as JSON")
    args = ap.parse_args()
    torch.set_num_threads(1)
    from torchao.quantization.pt2e.observer import MinMaxObserver, MovingAverageMinMaxObserver
    act = {"default": None, "moving_average": MovingAverageMinMaxObserver, "min_max": MinMaxObserver}[args.act_observer]
    observers = {"moving_average": MovingAverageMinMaxObserver, "min_max": MinMaxObserver}
    variants = {"qnnrules": act}
    variants.update({f"qnnrules_{name}": observers[name] for name in args.also})
    rows = measure(args.models.split(","), args.configs.split(","), args.calibration_batches,
                   args.evaluation_batches, variants)
    if args.out:
        import executorch  # noqa: F401 (its version below)
        from importlib.metadata import version
        meta = {"command": "benchmarks/quantizer_sqnr.py " + " ".join(sys.argv[1:]), "soc": SOC,
                "calibration_batches": args.calibration_batches,
                "evaluation_batches": args.evaluation_batches, "act_observer": args.act_observer,
                "torch": torch.__version__, "torchao": version("torchao"), "executorch": version("executorch"),
                "python": platform.python_version()}
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "results": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
