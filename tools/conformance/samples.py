"""Writes ONNX models of conformance cases (one case per model), deterministically.

  .venv/bin/python -m conformance.samples [--out tests/conformance/onnx] [--case ID ...] [--check]

Without --case it writes the committed sample (SAMPLE below: every weighted-op configuration and
the fixed-encoding cases on SM8650), named <op>.<config>.<soc>.onnx. --check regenerates in memory
and fails if a committed file differs (the bytes are reproducible: same generator, same bytes).
Needs onnx and numpy (the venv).
"""
import argparse
import os
import sys

from . import cases as C
from . import onnx_build

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_OPS = {"conv2d", "linear", "matmul", "sigmoid", "tanh",
              # ONNX forms the ATen graph cannot show (issue 21): a contrib-domain op, Gemm with
              # transB=0, Resize, a float32 constant beside quantized data, int64 shape arithmetic,
              # attention-mask scales, ops new to the rules.
              "gelu_ms", "linear_kn", "where", "resize_cubic", "upsample_nearest2d", "isnan", "reciprocal",
              "reduce_l2", "div", "add", "not", "reduce_prod", "sum2", "fused_matmul", "mod", "selu", "nms", "roi_align",
              "lstm", "nonzero"}
# V68 gates seen through the ONNX reader too.
SAMPLE_V68 = {"where", "gelu_ms", "selu", "roi_align", "lstm"}


def sample():
    return [c for c in C.all_cases() if (c["soc"] == "SM8650" and c["op"] in SAMPLE_OPS)
            or (c["soc"] == "SM8350" and c["op"] in SAMPLE_V68)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "conformance", "onnx"))
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    every = {c["id"]: c for c in C.all_cases()}
    unknown = [i for i in a.case if i not in every]
    if unknown:
        print("error: unknown case id(s): " + ", ".join(unknown), file=sys.stderr)
        return 2
    chosen = [every[i] for i in a.case] if a.case else sample()
    os.makedirs(a.out, exist_ok=True)
    stale = []
    for c in chosen:
        path = os.path.join(a.out, onnx_build.key(c) + ".onnx")
        data = onnx_build.model_bytes([c])
        if a.check:
            try:
                with open(path, "rb") as f:
                    if f.read() != data:
                        stale.append(path)
            except OSError:
                stale.append(path)
            continue
        with open(path, "wb") as f:
            f.write(data)
    if a.check:
        for p in stale:
            print("stale or missing:", os.path.relpath(p, ROOT), file=sys.stderr)
        return 1 if stale else 0
    print(f"wrote {len(chosen)} models to {os.path.relpath(a.out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
