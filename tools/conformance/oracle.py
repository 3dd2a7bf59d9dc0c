"""Runs the conformance cases through the real QNN HTP backend (ONNX Runtime's QNN EP).

Cases of one SoC are batched into one model (independent subgraphs) and each batch runs in its
own process (python -m conformance.worker), at most `jobs` at a time. A node's verdict is what
the backend said when the EP asked it to validate the node's op config (logparse.py). When a
session fails for a reason no node verdict explains (e.g. graph finalize), the batch is split in
halves until the failing case stands alone; its verdict is then the session's error.
"""
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import tempfile

from . import logparse
from . import onnx_build

HERE = os.path.dirname(os.path.abspath(__file__))
# The error ORT raises after the backend refused a node the layout transformer had already
# rewritten to NHWC: a consequence of a logged refusal, not a failure of its own.
_LAYOUT_ERROR = "was inserted using the NHWC format as requested by QNN, but was not selected by that EP"


def _run_session(cases, soc_id):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "batch.onnx")
        with open(path, "wb") as f:
            f.write(onnx_build.model_bytes(cases))
        env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
        p = subprocess.run([sys.executable, "-m", "conformance.worker", path, str(soc_id)],
                           capture_output=True, text=True, env=env, timeout=900)
    out = p.stdout.strip().splitlines()
    try:
        result = json.loads(out[-1]) if out else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        # The worker died before writing its result (the backend crashed the process): a session
        # that does not come up, like any other session failure.
        last = (p.stderr.strip().splitlines() or out or [""])[-1][:200]
        result = {"error": f"worker exited {p.returncode}: {last}", "assigned": {}}
    nodes, finalize = logparse.parse(p.stderr)
    return result, nodes, finalize


def _verdicts(cases, result, nodes):
    """Per-case verdicts of one session; None when the session error is unexplained."""
    verdicts = {}
    for c in cases:
        parts = [logparse.verdict_of(nodes, t) for t in onnx_build.target_nodes(c)]
        if any(p is None for p in parts):
            verdicts[c["id"]] = {"verdict": "not_asked", "message": "the EP never asked QNN about this node",
                                 "qnn_ops": [], "ort_rewrite": None}
            continue
        rejected = [p for p in parts if p["verdict"] == "rejected"]
        msg = None
        if rejected:
            r = rejected[0]
            msg = r["qnn_message"] or r["reason"]
            if r["qnn_message"] and r["reason"]:
                msg = f"{r['qnn_message']} ({r['reason']})"
        rewrites = [p["ort_rewrite"] for p in parts if p["ort_rewrite"]]
        verdicts[c["id"]] = {"verdict": "rejected" if rejected else "accepted", "message": msg,
                             "qnn_ops": sorted({o for p in parts for o in p["qnn_ops"]}),
                             "ort_rewrite": rewrites[0] if rewrites else None}
    err = result["error"]
    if err and _LAYOUT_ERROR not in err and all(v["verdict"] == "accepted" for v in verdicts.values()):
        return None, err
    if err and _LAYOUT_ERROR not in err:
        # Some node was refused and something else failed too: let the halves tell them apart.
        return None, err
    return verdicts, None


def _finalize_failures(cases, finalize):
    """Cases whose op graph finalize could not create: {case id: message}."""
    out = {}
    for qnn_name, msg in finalize.items():
        for c in cases:
            k = onnx_build.key(c)
            if qnn_name == k or qnn_name.startswith(k + "_"):
                out[c["id"]] = msg
    return out


def run_cases(cases, soc_id):
    result, nodes, finalize = _run_session(cases, soc_id)
    verdicts, err = _verdicts(cases, result, nodes)
    if verdicts is not None:
        return verdicts
    failed = _finalize_failures(cases, finalize)
    if failed:
        # Finalize stops at the first op it cannot create: record it, rerun the others without it.
        out = {i: {"verdict": "rejected", "message": m, "qnn_ops": [], "ort_rewrite": None} for i, m in failed.items()}
        rest = [c for c in cases if c["id"] not in failed]
        return {**out, **(run_cases(rest, soc_id) if rest else {})}
    if len(cases) == 1:
        return {cases[0]["id"]: {"verdict": "rejected", "message": "session failed: " + err.splitlines()[0][:400],
                                 "qnn_ops": [], "ort_rewrite": None}}
    mid = len(cases) // 2
    return {**run_cases(cases[:mid], soc_id), **run_cases(cases[mid:], soc_id)}


def _alone(case):
    """V68 cases run one per session: V68 refuses ops at graph finalize, and a batched finalize
    lets some through that fail alone and refuses some that pass alone (conv3d/fp32/SM8350 first;
    then group_norm/8a8w, selu/8a, thresholded_relu/8a, mod/int32 on SM8350 flipped between two
    batched runs)."""
    return case["arch"] == "V68"


def batches(cases, size):
    by_key = {}
    for c in cases:
        by_key.setdefault((c["soc_id"], onnx_build.needs_opset(c), _alone(c)), []).append(c)
    for (soc_id, _, alone), group in sorted(by_key.items()):
        step = 1 if alone else size
        for i in range(0, len(group), step):
            yield soc_id, group[i:i + step]


def run(cases, jobs=2, batch_size=60, progress=None):
    out = {}
    work = list(batches(cases, batch_size))
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        futures = [ex.submit(run_cases, b, soc) for soc, b in work]
        for i, f in enumerate(cf.as_completed(futures)):
            out.update(f.result())
            if progress:
                progress(i + 1, len(work))
    return out


def versions():
    import onnxruntime
    import onnxruntime_qnn
    from onnxruntime_qnn import build_and_package_info as info
    return {"onnxruntime": onnxruntime.__version__, "onnxruntime_qnn": onnxruntime_qnn.__version__,
            "qairt": info.qnn_version}
