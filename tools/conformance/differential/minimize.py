"""Delta debugging of a disagreeing graph, down to a small reproducer of the same kind.

A graph is (seed, scale, lower, skip) (graph.py, generate.draw), so minimizing never edits ONNX: it
redraws the graph with other knobs and keeps a change when the oracle and qnn-validate still
disagree in the same way on the same SoC and configuration (check.kinds: same node class, same
FN/FP side, same whole-graph outcome pair). In order:

1. scale: the largest divisor of every drawn size that keeps the kind (64, 16, 8, 4, 2), so the
   reproducer's tensors and constants are small and the quantized file is a few KB;
2. lower: the lowest rank of the first input that keeps it (ranks are what some limits are about,
   so this is tried, not assumed);
3. skip: steps left out, ddmin-style: halves of the remaining steps, then quarters, ... then one
   at a time; a left-out step's outputs become graph inputs of the same shape, so the node that
   disagrees keeps its input shapes while everything before it goes;
4. scale again: a smaller graph often allows a smaller scale.

Each check is one build, one quantization (build.quantize, the same config and seed) and one
oracle session; the time cap stops it between checks and the best graph so far is the result.
"""
import os
import shutil
import tempfile
import time

from ..models.build import quantize
from . import check
from . import generate

SCALES = (64, 16, 8, 4, 2)


class Minimizer:
    def __init__(self, seed, config, soc, target, validate, cap_s=300):
        self.seed, self.config, self.soc, self.target = seed, config, soc, target
        self.validate, self.deadline = validate, time.time() + cap_s
        self.checks = 0
        self.tmp = tempfile.mkdtemp(prefix="qnnrules-minimize-")

    def reproduces(self, spec):
        """True when the graph of spec quantizes and shows the target kind on the SoC."""
        self.checks += 1
        fp, qp = os.path.join(self.tmp, "f.onnx"), os.path.join(self.tmp, "q.onnx")
        try:
            generate.build(fp, self.seed, **spec)
            quantize(fp, qp, self.config, self.seed)
        except Exception:  # an invalid or unquantizable variant: not the same graph
            return False
        try:
            _, _, kinds = check.run(self.validate, qp, self.soc)
        except check.OracleTimeout:
            return False
        return self.target in kinds

    def out_of_time(self):
        return time.time() > self.deadline

    def _scale(self, spec):
        for s in SCALES:
            if s <= spec["scale"] or self.out_of_time():
                break
            cand = dict(spec, scale=s)
            if self.reproduces(cand):
                return cand
        return spec

    def _lower(self, spec, rank):
        for k in range(rank - 1, 0, -1):  # lower by the most first: rank 1, then 2, ...
            if self.out_of_time():
                break
            cand = dict(spec, lower=k)
            if self.reproduces(cand):
                return cand
        return spec

    def _skip(self, spec):
        steps = len(generate.draw(self.seed, spec["scale"], spec["lower"]).steps)
        chunk = max(1, steps // 2)
        while chunk >= 1 and not self.out_of_time():
            kept = [i for i in range(steps) if i not in spec["skip"]]
            for start in range(0, len(kept), chunk):
                if self.out_of_time():
                    break
                cand = dict(spec, skip=sorted(set(spec["skip"]) | set(kept[start:start + chunk])))
                if len(cand["skip"]) < steps and self.reproduces(cand):
                    spec = cand
            chunk //= 2
        return spec

    def run(self):
        """The smallest spec found: {"scale", "lower", "skip"}, or None when even the original
        graph no longer shows the kind (the rules or the binary changed under the run)."""
        spec = {"scale": 1, "lower": 0, "skip": []}
        if not self.reproduces(spec):
            return None
        spec = self._scale(spec)
        rank = len(generate.draw(self.seed, spec["scale"]).inputs[0][1])
        spec = self._lower(spec, rank)
        spec = self._skip(spec)
        return self._scale(spec)


def minimize(seed, config, soc, target, validate, cap_s=300):
    """(spec or None, oracle checks made, seconds)."""
    m = Minimizer(seed, config, soc, target, validate, cap_s)
    t0 = time.time()
    try:
        spec = m.run()
    finally:
        shutil.rmtree(m.tmp, ignore_errors=True)
    return spec, m.checks, time.time() - t0
