"""Seeded random float ONNX graphs (opset 17, 3-30 nodes) and the checks that keep only valid ones.

  .venv/bin/python -m conformance.differential.generate --seed S [--count N] [--out DIR]
(with tools/ on PYTHONPATH) draws N graphs and writes the valid ones to DIR as <id>.onnx, printing
each one's forms and the reasons of the discarded ones: a way to look at what the tester draws.

A graph is named by (seed, scale, lower, skip) (graph.py, draw below): the same three always build the same bytes.
draw() builds it: one graph input of rank 1-6, then forms of ops.py drawn by weight, each applied to
the newest tensor (chains, as networks are) or, 40% of the time, to an older one (branches and
joins), until the node budget of 3-30 is spent. valid() then requires what a user's graph has:
onnx.checker (full), ONNX's strict shape inference agreeing with every shape the forms stated,
and ONNX Runtime's CPU session running it on the calibration inputs build.quantize will use, with
finite outputs (calibration needs finite ranges). A graph failing any of them is discarded and
counted under its reason: the rates say how much of the drawing is wasted, and a shape
disagreement is a bug of ops.py.
"""
import argparse
import os
import sys
import tempfile

from . import ops
from .graph import Builder

MIN_NODES, MAX_NODES = 3, 30


def graph_seed(run_seed, index):
    """The seed of graph `index` of a run: distinct for every run seed and index < 10^6."""
    return run_seed * 1_000_000 + index


def draw(seed, scale=1, lower=0, skip=()):
    """The builder of graph `seed` after drawing (its .model(), .steps). `lower` lowers the rank of
    the first input (not below 1): with scale and skip, what minimize.py varies."""
    b = Builder(seed, scale, skip)
    x = b.fresh(b.draw_shape(max(1, b.rng.randint(1, 6) - lower)))
    b.pool.append(x)
    budget = b.rng.randint(MIN_NODES, MAX_NODES)
    names = list(ops.FORMS)
    weights = [ops.FORMS[n][0] for n in names]
    for _ in range(400):  # attempts: most forms apply to most tensors; a few never fit
        if b.emitted >= budget:
            break
        form = b.rng.choices(names, weights)[0]
        t = b.pool[-1] if b.rng.random() < 0.6 else b.rng.choice(b.pool)
        b.run_step(form, ops.FORMS[form][1], t, budget)
    return b


class Invalid(Exception):
    """A drawn graph that is not one a user could have: .reason names the check it failed."""

    def __init__(self, reason, detail=""):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def _check_shapes(model, b):
    import onnx
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    except Exception as e:  # onnx raises its own InferenceError subclasses
        raise Invalid("shape-inference", str(e).splitlines()[0][:200])
    seen = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    for name, v in seen.items():
        if name in b.shape:
            dims = tuple(d.dim_value if d.HasField("dim_value") else None for d in v.type.tensor_type.shape.dim)
            # An unknown dim (None) is ONNX not knowing (Range's length), not a wrong one: ORT's
            # session and the declared output shapes settle it.
            if len(dims) != len(b.shape[name]) or any(d is not None and d != e for d, e in zip(dims, b.shape[name])):
                raise Invalid("generator-shape", f"{name}: ops.py says {b.shape[name]}, ONNX infers {dims}")


def _check_runs(path, seed):
    import numpy as np
    import onnx
    import onnxruntime as ort
    from ..models.build import RandomReader
    ort.set_default_logger_severity(3)  # a failing graph is counted, not logged
    so = ort.SessionOptions()
    so.log_severity_level = 3
    try:
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        declared = [tuple(d.dim_value for d in o.type.tensor_type.shape.dim) for o in onnx.load(path).graph.output]
        for feed in RandomReader(path, seed).samples:
            for o, shape in zip(sess.run(None, feed), declared):
                if o.shape != shape:
                    raise Invalid("generator-shape", f"an output is {o.shape}, ops.py says {shape}")
                if not np.all(np.isfinite(o)):
                    raise Invalid("non-finite", "an output is not finite on the calibration inputs")
    except Invalid:
        raise
    except Exception as e:  # ORT's errors: the graph does not run on CPU
        raise Invalid("ort-cpu", str(e).splitlines()[0][:200])


def valid(b, seed, path):
    """Raises Invalid unless the drawn graph is well formed and runs on ORT's CPU; saves it to path."""
    import onnx
    if b.emitted < MIN_NODES:
        raise Invalid("too-small", f"{b.emitted} nodes")
    model = b.model()
    if not model.graph.output or not model.graph.input:
        raise Invalid("too-small", "no output or no input left")
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:
        raise Invalid("checker", str(e).splitlines()[0][:200])
    _check_shapes(model, b)
    onnx.save(model, path)
    _check_runs(path, seed)
    return model


def build(path, seed, scale=1, lower=0, skip=()):
    """Draws graph (seed, scale, lower, skip), checks it and saves it to path; returns the builder.
    Raises Invalid."""
    b = draw(seed, scale, lower, skip)
    valid(b, seed, path)
    return b


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--out", default=None, help="write the valid graphs here")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or tmp
        os.makedirs(out, exist_ok=True)
        for i in range(a.count):
            seed = graph_seed(a.seed, i)
            path = os.path.join(out, f"s{a.seed}g{i}.onnx")
            try:
                b = build(path, seed)
                print(f"s{a.seed}g{i}: {b.emitted} nodes, {len(b.steps)} steps: {' '.join(b.steps)}")
            except Invalid as e:
                print(f"s{a.seed}g{i}: discarded ({e})", file=sys.stderr)


if __name__ == "__main__":
    main()
