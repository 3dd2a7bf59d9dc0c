"""Runs the oracle over every case and writes tests/conformance/htp.json.

  .venv/bin/python -m conformance.record [--out FILE] [--jobs 2] [--batch 60] [--check-batching N]
(with tools/ on PYTHONPATH; scripts/conformance.sh does this). The file holds one case per line,
sorted by id, with the case's specification (so the comparison test rebuilds its graph without
numpy or onnx), the oracle's verdict and QNN's message, and the versions it was measured with.
--check-batching N reruns N cases (every k-th) one per session and records whether any verdict
differs from the batched run.
"""
import argparse
import json
import os
import sys
import time

from . import cases as C
from . import oracle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_KEYS = ("op", "rule", "aten", "onnx_op", "qnn_op", "config", "soc", "soc_id", "arch", "inputs", "outputs",
             "aten_args", "attrs", "builder")


def write(path, header, records):
    with open(path + ".tmp", "w") as f:
        f.write("{\n")
        for k, v in header.items():
            f.write(f" {json.dumps(k)}: {json.dumps(v, sort_keys=True)},\n")
        f.write(' "cases": [\n')
        for i, r in enumerate(records):
            f.write("  " + json.dumps(r, sort_keys=True) + ("," if i + 1 < len(records) else "") + "\n")
        f.write(" ]\n}\n")
    os.replace(path + ".tmp", path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "conformance", "htp.json"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=60)
    ap.add_argument("--check-batching", type=int, default=60)
    ap.add_argument("--only", default=None, help="comma-separated ops (a partial run, for debugging)")
    a = ap.parse_args(argv)
    cases = C.all_cases()
    if a.only:
        cases = [c for c in cases if c["op"] in a.only.split(",")]
    t0 = time.time()
    verdicts = oracle.run(cases, jobs=a.jobs, batch_size=a.batch,
                          progress=lambda i, n: print(f"batch {i}/{n}", file=sys.stderr, flush=True))
    elapsed = time.time() - t0
    check = {"cases": 0, "differing": []}
    if a.check_batching:
        step = max(1, len(cases) // a.check_batching)
        sample = cases[::step][:a.check_batching]
        single = oracle.run(sample, jobs=a.jobs, batch_size=1)
        check["cases"] = len(sample)
        check["differing"] = sorted(c["id"] for c in sample
                                    if single[c["id"]]["verdict"] != verdicts[c["id"]]["verdict"])
    records = []
    for c in sorted(cases, key=lambda c: c["id"]):
        v = verdicts[c["id"]]
        r = {k: c[k] for k in SPEC_KEYS}
        r.update(id=c["id"], oracle=v["verdict"], message=v["message"], qnn_ops_seen=v["qnn_ops"], ort_rewrite=v.get("ort_rewrite"))
        records.append(r)
    header = {"backend": "htp", "versions": oracle.versions(),
              # No timing here: the file must be byte-identical when the verdicts are.
              "run": {"cases": len(cases), "jobs": a.jobs, "batch": a.batch},
              "batching_check": check}
    write(a.out, header, records)
    print(f"wrote {len(records)} cases in {elapsed:.0f} s; batching check: {check['cases']} cases, "
          f"{len(check['differing'])} differ", file=sys.stderr)


if __name__ == "__main__":
    main()
