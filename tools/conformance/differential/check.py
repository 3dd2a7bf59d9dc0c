"""One quantized graph on one SoC: the oracle's verdicts, qnn-validate's, and the disagreement kinds.

The comparison is compare.py's (the model suite's): compare_case per mode, node by node, and the
whole-graph outcome. What this module adds is the *kind* of a disagreement, the key findings are
grouped, minimized and deduplicated by. A kind is

  "<FN|FP|unread> <op>: <why> [<backend outcome>/<qnn-validate outcome>]"

for a node the two sides judge differently (why: the backend's message for an FN, qnn-validate's
reason/code for an FP; numbers and names stripped, so the same mechanism on other shapes and
nodes is the same kind), or, when no node disagrees but the whole-graph outcome does,

  "graph <backend outcome> vs <qnn-validate outcome>: <cause>"

(cause: the session's error or the finalize error; or qnn-validate's session-failure node). The
outcome pair is part of a node kind because the same refusal that costs a CPU fallback in one
graph fails the session in another, and those are different findings for a user.
"""
import json
import os
import re
import subprocess
import time
import types

from ..cases import SOCS
from ..models import compare
from ..models import run as models_run

SOC_IDS = {s: sid for s, sid, _ in SOCS}
ARCH = {s: arch for s, _, arch in SOCS}
SHORT = {"all-qnn": "Q", "cpu-fallback": "C", "session-failure": "F", "unread": "E"}

_NAMES = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\(QNN node [^)]*\)|Node name: \S+")
_NUMS = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")  # a sign stays: "equal to -N" is not "equal to N"


_QNN_PREFIX = re.compile(r"QNN\.backendValidateOpConfig\(\) failed for (\w+) with error code \d+:?\s*(\[\d+\]\s*)?")
_ORT_SUFFIX = re.compile(r"\s*\(Failed to add [^)]*\)\.?$")


def normalize(msg, n=140):
    """A message as a kind: names and numbers gone (they vary with the graph, the mechanism does not),
    QNN's boilerplate shortened to the QNN op: "LayerNorm: has incorrect Rank N."."""
    msg = _ORT_SUFFIX.sub("", _QNN_PREFIX.sub(r"\1: ", msg or ""))
    msg = _NAMES.sub("…", msg)
    msg = _NUMS.sub("N", msg.replace("\n", " "))
    msg = re.sub(r"\s+", " ", msg).strip()
    return (msg + " (no detail)" if msg.endswith(":") else msg)[:n]


SESSION_TIMEOUT = 90  # seconds; a session of these small graphs takes 0.5-20 s


class OracleTimeout(Exception):
    """The backend did not finish building the graph in SESSION_TIMEOUT (it hangs on some small
    graphs): no verdict, the graph is counted and skipped."""


def _worker_run(*args, **kwargs):
    """subprocess.run for models/run.py's run_case, with two differences. When the backend kills the
    worker (random graphs find segmentation faults), the last stdout line is a library's banner, not
    the worker's JSON, and run_case would raise: this appends the JSON line the worker could not
    write, so the crash is recorded as a failed session with the log read up to it (as oracle.py
    does). And a session gets SESSION_TIMEOUT, not run_case's 30 min (subprocess.run kills it)."""
    kwargs["timeout"] = SESSION_TIMEOUT
    try:
        p = subprocess.run(*args, **kwargs)
    except subprocess.TimeoutExpired:
        raise OracleTimeout(f"no session after {SESSION_TIMEOUT} s")
    lines = p.stdout.strip().splitlines()
    try:
        json.loads(lines[-1])
    except (IndexError, ValueError):
        err = f"worker exited {p.returncode} (the process died in the backend)"
        p.stdout += "\n" + json.dumps({"error": err, "assigned": {}}) + "\n"
    return p


models_run.subprocess = types.SimpleNamespace(run=_worker_run)


def oracle(path, soc):
    """The recorded case of compare.py's format (without id/model/config/file)."""
    r = models_run.run_case(path, SOC_IDS[soc])
    return {"soc": soc, "soc_id": SOC_IDS[soc], "arch": ARCH[soc], **r}


# qnn-validate is rebuilt under a long run (another build in the same tree) and its rules edited:
# while that happens the binary is missing or not executable, its ONNX reader library cannot be
# loaded, or a rule file is half-written. None of that is a verdict on the graph.
_REBUILDING = ("cannot load ", "in the rules of backend", ".yaml")
waited = 0.0  # seconds spent waiting for qnn-validate: not oracle time, run.py leaves it out


def _ready(validate):
    try:
        p = subprocess.run([validate, "--version"], capture_output=True, text=True, timeout=60)
        return p.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def predict(validate, path, soc, modes=compare.MODES, wait_s=3600):
    """{mode: compare.run_validate's prediction}; waits (up to wait_s) while qnn-validate is being
    rebuilt, then predicts again, so a rebuild never becomes a finding."""
    deadline = time.time() + wait_s
    while True:
        out = {}
        try:
            for m in modes:
                try:
                    out[m] = compare.run_validate(validate, path, soc, m, [])
                except compare.InputError as e:  # qnn-validate crashed: a finding, counted as unread
                    out[m] = {"outcome": "unread", "refused": {}, "error": f"crash: {e}", "session_failure": None}
        except OSError:
            out = None
        rebuilding = out is None or any(p["outcome"] == "unread" and any(r in (p["error"] or "") for r in _REBUILDING)
                                        for p in out.values())
        if not rebuilding:
            return out
        if time.time() > deadline:
            raise RuntimeError(f"{validate} has not been usable for {wait_s} s")
        global waited
        t0 = time.time()
        time.sleep(30)
        while not _ready(validate) and time.time() < deadline:
            time.sleep(30)
        waited += time.time() - t0


def _graph_cause(case, pred):
    if case["outcome"] == "session-failure":
        fin = sorted({f"{n['op']}: {n['finalize']}" for n in case["nodes"] if n.get("finalize")})
        return normalize(fin[0] if fin else (case["finalize_errors"] or [case["session_error"]])[0])
    sf = pred.get("session_failure")
    if pred["outcome"] == "session-failure" and sf:
        return f"{sf.get('op')}: " + normalize(sf.get("cause") or sf.get("message"))
    return "no node disagrees"


def row_kind(row, pair):
    """The kind of one of compare.compare_case's rows, or None when it is not a disagreement."""
    if row["kind"] == "FN":
        why = normalize(row["backend_message"]) or "placed on CPU by the EP"
    elif row["kind"] == "FP":
        why = row["code"] or row["reason"] or normalize(row["message"])
    elif row["kind"] == "unread":
        why = normalize(row["message"])
    else:
        return None
    return f"{row['kind']} {row['op']}: {why} [{pair}]"


def kinds(case, preds):
    """{kind: {"modes": set, "nodes": [names]}} of one case; empty when everything agrees."""
    out = {}
    pair = f"{SHORT[case['outcome']]}/{SHORT[preds['strict']['outcome']]}" if "strict" in preds else ""
    for mode, pred in preds.items():
        for row in compare.compare_case(case, pred):
            kind = row_kind(row, pair)
            if kind is None:
                continue
            e = out.setdefault(kind, {"modes": set(), "nodes": []})
            e["modes"].add(mode)
            if row["node"] not in e["nodes"]:
                e["nodes"].append(row["node"])
    if not out:
        for mode, pred in preds.items():
            if pred["outcome"] != case["outcome"]:
                k = f"graph {case['outcome']} vs {pred['outcome']}: {_graph_cause(case, pred)}"
                out.setdefault(k, {"modes": set(), "nodes": []})["modes"].add(mode)
    return out


def tally(case, preds, counts):
    """Adds one case's node and graph figures to counts (per mode, compare.totals' keys)."""
    for mode, pred in preds.items():
        t = compare.totals([{"case": case, "pred": pred, "rows": compare.compare_case(case, pred)}])
        c = counts.setdefault(mode, {})
        for k in ("nodes", "agree", "fp", "fn", "unread", "graphs", "graph_agree"):
            c[k] = c.get(k, 0) + t[k]


def run(validate, path, soc):
    """(case, preds, kinds) of one quantized file on one SoC."""
    case = oracle(path, soc)
    preds = predict(validate, path, soc)
    return case, preds, kinds(case, preds)


def validate_path():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    return os.path.join(root, "build", "tools", "qnn-validate", "qnn-validate")
