"""Exports a model of the model-level suite (tools/conformance/models/zoo.py) as a float graph
(graph format v1, gzipped) for the compatibility matrix's worked example
(docs/compatibility-matrix.md): the graph torch.export gives before any quantizer runs, the
same one tools/conformance/quantizer/run.py hands to prepare_pt2e, so `--configs` annotates it
afresh for every config. Weights are not stored (the graph carries dtypes and shapes only).

    PYTHONPATH=build/python .venv/bin/python tests/data/matrix/export_float.py llama \
        -o tests/data/matrix/llama.float.json.gz
"""
import argparse
import gzip
import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "conformance", "models"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    import torch
    import qnnrules.torch as qt
    import zoo

    torch.manual_seed(0)
    build, inputs = zoo.MODELS[a.model]
    model = build().eval()
    with torch.no_grad():
        gm = torch.export.export(model, inputs(), strict=False).module()
    graph = qt.to_dict(gm, name=a.model)
    with gzip.open(a.output, "wt", compresslevel=9) as f:
        json.dump(graph, f, separators=(",", ":"), sort_keys=True)
    print(f"{a.output}: {sum(1 for n in graph['nodes'] if n.get('kind') == 'call')} call nodes")


if __name__ == "__main__":
    main()
