"""Runs every quantized model of the suite through the real HTP backend; writes verdicts.json.

  .venv/bin/python -m conformance.models.run [--socs SM8350,...] [--only MODEL,...] [--redo | --redo-failed]
(with tools/ on PYTHONPATH). One oracle session per model x configuration x SoC (conformance.worker,
the unit oracle's session: ONNX Runtime's QNN EP as a plugin EP on the wheel's libQnnHtp.so, EP
context generation on so the backend finalizes the graph, verbose log) with ORT's DEFAULT graph
optimization level, as users run it. Per compute node (every node but QuantizeLinear /
DequantizeLinear) it records the backend's verdict when the EP asked it (conformance.logparse),
QNN's message, and where the node ran (QNN, CPU, or removed by ORT's optimizations before
partitioning); per case whether the session was created and its error.

Resumable: cases already in the output file are skipped (unless --redo), and the file is
rewritten after every case, so a partial run is usable data. One process, one session at a time.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from .. import logparse
from .. import oracle
from ..cases import SOCS
from ..record import write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "tests", "conformance", "models")
ONNX_DIR = os.path.join(DATA, "onnx")
QDQ = {"QuantizeLinear", "DequantizeLinear"}
DEFAULT_SOCS = ["SM8350", "SM8550", "SM8650", "SM8750", "SM8850"]


def compute_nodes(path):
    import onnx
    g = onnx.load(path, load_external_data=False).graph
    return [(n.name, n.op_type, n.domain or "ai.onnx") for n in g.node if n.op_type not in QDQ]


def _placement(assigned, name):
    eps = [ep for n, ep in assigned.items() if n == name or n.startswith(name + "_token")]
    if not eps:
        return None
    return "QNN" if all(ep == "QNN" for ep in eps) else "CPU"


def run_case(path, soc_id):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    p = subprocess.run([sys.executable, "-m", "conformance.worker", path, str(soc_id), "default"],
                       capture_output=True, text=True, env=env, timeout=1800)
    # The worker's verdict is its last JSON line; a worker that crashed (QNN segfaults on some
    # graphs) leaves a library banner there, or nothing: the session failed.
    out = [line for line in p.stdout.strip().splitlines() if line.startswith("{")]
    result = json.loads(out[-1]) if out else {"error": f"worker exited {p.returncode}: {p.stderr[-400:]}",
                                              "assigned": {}}
    logged, finalize = logparse.parse(p.stderr)
    err = result["error"]
    nodes = []
    for name, op, domain in compute_nodes(path):
        v = logparse.verdict_of(logged, name)
        rec = {"name": name, "op": op, "domain": domain}
        if v is None:
            rec.update(verdict="not_asked", message=None)
        else:
            msg = v["qnn_message"] or v["reason"]
            if v["qnn_message"] and v["reason"]:
                msg = f"{v['qnn_message']} ({v['reason']})"
            rec.update(verdict=v["verdict"], message=msg if v["verdict"] == "rejected" else None)
            if v["ort_rewrite"]:
                rec["ort_rewrite"] = v["ort_rewrite"]
        if err:
            rec["placement"] = None
        else:
            rec["placement"] = _placement(result["assigned"], name) or "removed"
        nodes.append(rec)
    for qnn_name, msg in finalize.items():
        # QNN names its nodes after ORT's, with suffixes: the longest ONNX name it extends is the node.
        hits = [rec for rec in nodes if qnn_name == rec["name"] or qnn_name.startswith(rec["name"] + "_")]
        if hits:
            max(hits, key=lambda rec: len(rec["name"]))["finalize"] = f"{msg} (QNN node {qnn_name})"
    if err:
        outcome = "session-failure"
    elif all(n["placement"] in ("QNN", "removed") for n in nodes):
        outcome = "all-qnn"
    else:
        outcome = "cpu-fallback"
    return {"session_error": err.splitlines()[0][:600] if err else None, "outcome": outcome,
            "finalize_errors": sorted(set(finalize.values())), "nodes": nodes}


def load(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {c["id"]: c for c in json.load(f)["cases"]}


def header(socs):
    import onnxruntime
    import torch
    v = oracle.versions()
    v["torch"] = torch.__version__
    try:
        import transformers
        v["transformers"] = transformers.__version__
    except ImportError:
        pass
    return {"backend": "htp", "versions": v,
            "session": {"graph_optimization_level": "ORT default (" + str(onnxruntime.SessionOptions().graph_optimization_level).split(".")[-1] + ")",
                        "ep.context_enable": "1", "provider": "QNN plugin EP, libQnnHtp.so"},
            "socs": socs}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socs", default=",".join(DEFAULT_SOCS))
    ap.add_argument("--only", default=None, help="comma-separated model names")
    ap.add_argument("--onnx", default=ONNX_DIR)
    ap.add_argument("--out", default=os.path.join(DATA, "verdicts.json"))
    ap.add_argument("--redo", action="store_true")
    ap.add_argument("--redo-failed", action="store_true", help="rerun the cases whose session failed")
    a = ap.parse_args(argv)
    socs = {s: (sid, arch) for s, sid, arch in SOCS}
    want = a.socs.split(",")
    done = {} if a.redo else load(a.out)
    if a.redo_failed:
        done = {k: c for k, c in done.items() if c["outcome"] != "session-failure"}
    files = sorted(f for f in os.listdir(a.onnx) if f.endswith(".onnx"))
    if a.only:
        files = [f for f in files if f.split(".")[0] in a.only.split(",")]
    todo = [(f, s) for s in want for f in files]  # SoC-major: a partial run covers whole SoCs first
    all_socs = sorted(set(want) | {c["soc"] for c in done.values()})
    head = header(all_socs)
    for i, (f, soc) in enumerate(todo):
        model, config = f[:-len(".onnx")].split(".")
        cid = f"{model}/{config}/{soc}"
        if cid in done:
            continue
        t0 = time.time()
        sid, arch = socs[soc]
        r = run_case(os.path.join(a.onnx, f), sid)
        done[cid] = {"id": cid, "model": model, "config": config, "soc": soc, "soc_id": sid, "arch": arch,
                     "file": f, **r}
        write(a.out, head, [done[k] for k in sorted(done)])
        bad = sum(n["verdict"] == "rejected" for n in r["nodes"])
        print(f"[{i + 1}/{len(todo)}] {cid}: {r['outcome']}, {bad} refused, {time.time() - t0:.1f} s",
              file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
