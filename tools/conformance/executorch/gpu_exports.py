"""The float exports of the comparison's models, validated for QNN GPU: ExecuTorch quantizes
nothing for GPU (its GPU annotation pipeline is empty), so a float export is what the GPU
backend gets; every diagnostic is a claim that an op cannot run on GPU.

    PYTHONPATH=build/python .venv/bin/python tools/conformance/executorch/gpu_exports.py [--rules-dir DIR]

--rules-dir: the built-in rule directory to use (default: this checkout's rules/), e.g. an older
commit's rules extracted with `git archive COMMIT rules | tar -x -C /tmp/old` (then /tmp/old/rules).
Prints, per model, the number of diagnostics and their (code, op) counts.
"""

import argparse
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules-dir", default=os.path.normpath(os.path.join(HERE, "..", "..", "..", "rules")))
    a = ap.parse_args()
    import torch
    import qnnrules
    from qnnrules import torch as qt
    import models

    engine = qnnrules.Engine(backend="gpu", soc="SM8650", strict=True, use_environment=False,
                             builtin_rules_dir=a.rules_dir)
    total = 0
    for name in models.MODELS:
        model, args = models.build(name)
        graph = qt.to_dict(torch.export.export(model, args, strict=False).module(), name=name)
        diags = engine.check(qnnrules.Graph.from_dict(graph, name)).diagnostics
        counts = collections.Counter(f"{d.code} {d.op}" for d in diags)
        total += len(diags)
        print(f"{name}: {len(diags)} " + ", ".join(f"{k} x{n}" for k, n in sorted(counts.items())), flush=True)
    print(f"total: {total}")


if __name__ == "__main__":
    main()
