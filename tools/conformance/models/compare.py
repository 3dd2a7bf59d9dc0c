"""Compares qnn-validate with the recorded whole-model oracle verdicts (issue 21).

  python3 tools/conformance/models/compare.py --validate PATH/qnn-validate
      [--data tests/conformance/models/verdicts.json] [--onnx tests/conformance/models/onnx]
      [--expected tests/conformance/models/expected.json] [--rules OVERLAY_DIR]...
      [--modes strict,warn] [--write-expected] [--write-doc [docs/conformance-models.md]]
      [--expect-regression] [--jobs 2]

Standard library only. For every recorded case (model x configuration x SoC) it runs
`qnn-validate MODEL.onnx --backend htp --soc SOC --format json` in strict mode and with --warn,
and compares with what the real HTP backend did (tools/conformance/models/run.py):

- node level, over the compute nodes of the file (every node but QuantizeLinear/DequantizeLinear):
  the backend refused a node when QNN's op validation rejected it, or when it ran on CPU. A node
  ORT's optimizations removed before partitioning (constants, shape arithmetic) runs nowhere: it
  is compared only when qnn-validate refuses it (a false positive), otherwise not counted. qnn-validate
  refused a node when the report's `delegation.fallbacks` lists it with a reason other than
  `follows-cpu` (a follower — a structural node or constant that goes where its neighbours go —
  is not a verdict on the node, docs/delegation.md). A false positive: qnn-validate refuses, the
  backend takes it; a false negative: qnn-validate delegates a node the backend refuses. Nodes
  without a backend verdict (the EP never asked, and no placement because the session failed)
  are not compared; nodes of a model qnn-validate could not read (exit 2) count as disagreements
  of their own class ("unread").
- whole graph: the backend's outcome (all-qnn: every compute node on QNN; cpu-fallback; or
  session-failure: session creation failed) vs qnn-validate's (session-failure when the report
  says so — `verdict.kind == "session-failure"` or `delegation.session_failure` — cpu-fallback
  when a fallback other than follows-cpu is listed, all-qnn otherwise).

The totals are held to --expected (the figures measured with the rules when it was written):
the run fails (exit 1) when node agreement or whole-graph agreement is lower, or there are more
false positives or false negatives, in either mode; it says so when the figures improved (update
the file with --write-expected). --expect-regression inverts the gate (the mutation test: a
deliberately wrong overlay must be caught). Exit 2 on bad input.
"""
import argparse
import collections
import concurrent.futures as cf
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "tests", "conformance", "models")
DOC = os.path.join(ROOT, "docs", "conformance-models.md")
MODES = ("strict", "warn")
OUTCOMES = {"all-qnn": "Q", "cpu-fallback": "C", "session-failure": "F", "unread": "E"}


class InputError(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {path}: {e}")


def run_validate(validate, path, soc, mode, rule_dirs):
    """qnn-validate's prediction for one model: {"outcome", "refused": {node: fallback}, "error",
    "session_failure"}."""
    cmd = [validate, path, "--backend", "htp", "--soc", soc, "--format", "json"]
    if mode == "warn":
        cmd.append("--warn")
    for d in rule_dirs:
        cmd += ["--rules", d]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, QNNRULES_PATH=""))
    try:
        report = json.loads(p.stdout)
    except ValueError:
        report = None
    if p.returncode not in (0, 1) or report is None or "delegation" not in report:
        msg = ""
        if report and isinstance(report.get("error"), dict):
            msg = report["error"].get("message", "")
        msg = msg or (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        if p.returncode not in (0, 1, 2) or report is None:
            raise InputError(f"qnn-validate crashed or wrote no report on {path} (exit {p.returncode}): {msg}")
        return {"outcome": "unread", "refused": {}, "error": msg[:300], "session_failure": None}
    d = report["delegation"]
    detail = {}
    for g in report["diagnostics"]:
        if g.get("node") and g.get("port") and g.get("expected"):
            detail.setdefault((g["node"], g["code"]), f"{g['port']}: {g['expected']}")
    refused = {}
    for f in d["fallbacks"]:
        if f["reason"] != "follows-cpu":
            more = detail.get((f["node"], f["code"]))
            refused[f["node"]] = dict(f, message=f"{f['message']} [{more}]" if more else f["message"])
    sf = d.get("session_failure")
    if report["verdict"]["kind"] == "session-failure" or sf:
        outcome = "session-failure"
    elif refused:
        outcome = "cpu-fallback"
    else:
        outcome = "all-qnn"
    return {"outcome": outcome, "refused": refused, "error": None, "session_failure": sf}


def backend_state(n):
    """'refused' | 'accepted' | 'removed' | None (no verdict) for one recorded node. A node the EP
    refused that ORT's CPU-side optimizations then removed (a Transpose pair cancelled after
    partitioning) was refused: the verdict was given. A node that ran on QNN was accepted, whatever
    its last logged verdict: the EP logs the refusal of a fusion it tried (a group validated at
    another rank, swin's Gemm output Reshape at 16 bits) and then hands the node to QNN alone."""
    if n["placement"] == "QNN":
        return "accepted"
    if n["verdict"] == "rejected" or n["placement"] == "CPU":
        return "refused"
    if n["placement"] == "removed":
        return "removed"
    if n["verdict"] == "accepted":
        return "accepted"
    return None


# Numbers that differ from node to node (scales, offsets, QNN's 32-bit ids) become N; small integers
# (error codes, architecture numbers such as "Value 68, expected >= 73") stay: they tell classes apart.
# QNN's "has incorrect Value V" names a per-node quantity (an offset) with V: N too.
_NUM = re.compile(r"-?\d+\.\d+(e[-+]?\d+)?|-?\b\d+e[-+]?\d+\b|-?\b\d{8,}\b|(?<=incorrect Value )-?\d{4,}")


def _short(msg, n=160):
    if not msg:
        return ""
    msg = msg.replace("|", "/").replace("\n", " ")
    return msg if len(msg) <= n else msg[:n - 1] + "…"


def compare_case(case, pred):
    """Per-node rows of one case and one mode."""
    rows = []
    for n in case["nodes"]:
        b = backend_state(n)
        op = n["op"] if n["domain"] in ("ai.onnx", "") else f"{n['domain']}::{n['op']}"
        if pred["outcome"] == "unread":
            rows.append({"node": n["name"], "op": op, "backend": b, "ours": None, "kind": "unread",
                         "reason": "unread", "code": None, "message": pred["error"],
                         "backend_message": n.get("message")})
            continue
        if b is None:
            rows.append({"node": n["name"], "op": op, "backend": None, "kind": "not-compared"})
            continue
        f = pred["refused"].get(n["name"])
        ours = "refused" if f else "accepted"
        if ours == "refused" and b != "refused":
            kind = "FP"
        elif ours == "accepted" and b == "refused":
            kind = "FN"
        elif b == "removed":
            kind = "removed"  # neither side places it: not a verdict to compare
        else:
            kind = "agree"
        rows.append({"node": n["name"], "op": op, "backend": b, "ours": ours, "kind": kind,
                     "reason": f["reason"] if f else None, "code": f.get("code") if f else None,
                     "message": f["message"] if f else None,
                     "backend_message": n.get("message") or n.get("finalize")})
    return rows


def measure(validate, data, onnx_dir, rule_dirs, modes, jobs):
    cases = data["cases"]
    for c in cases:
        if not os.path.exists(os.path.join(onnx_dir, c["file"])):
            raise InputError(f"{c['id']}: no model {c['file']} in {onnx_dir}")
    work = [(c, m) for c in cases for m in modes]
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        preds = list(ex.map(lambda cm: run_validate(validate, os.path.join(onnx_dir, cm[0]["file"]),
                                                    cm[0]["soc"], cm[1], rule_dirs), work))
    results = {m: [] for m in modes}
    for (c, m), p in zip(work, preds):
        results[m].append({"case": c, "pred": p, "rows": compare_case(c, p)})
    return results


def totals(per_case):
    t = collections.Counter()
    for r in per_case:
        for row in r["rows"]:
            t[row["kind"]] += 1
            t["nodes"] += row["kind"] not in ("not-compared", "removed")
            t["judged"] += row["backend"] in ("accepted", "refused")  # data only: the same in every run
        t["graphs"] += 1
        t["graph_agree"] += r["pred"]["outcome"] == r["case"]["outcome"]
    return {"nodes": t["nodes"], "agree": t["agree"], "fp": t["FP"], "fn": t["FN"], "unread": t["unread"],
            "not_compared": t["not-compared"], "removed": t["removed"], "judged": t["judged"], "graphs": t["graphs"], "graph_agree": t["graph_agree"]}


def pct(a, b):
    return f"{100.0 * a / b:.2f}%" if b else "n/a"


def classes(per_case):
    """Disagreement classes: (kind, op, our reason/code, message) -> counts and examples."""
    out = {}
    for r in per_case:
        c = r["case"]
        for row in r["rows"]:
            if row["kind"] in ("agree", "not-compared", "removed"):
                continue
            if row["kind"] == "FN":
                key = ("FN", row["op"], "delegated", _NUM.sub("N", _short(row["backend_message"] or
                                                                           "placed on CPU by the EP", 200)))
            elif row["kind"] == "unread":
                key = ("unread", "(model)", "exit 2", _short(row["message"], 200))
            else:
                key = ("FP", row["op"], f"{row['reason']}/{row['code']}" if row["code"] else row["reason"],
                       _NUM.sub("N", _short(row["message"], 200)))
            e = out.setdefault(key, {"count": 0, "configs": set(), "socs": set(), "models": set(),
                                     "backend": collections.Counter(), "example": None})
            e["count"] += 1
            e["configs"].add(c["config"])
            e["socs"].add(c["soc"])
            e["models"].add(c["model"])
            e["backend"][row["backend"]] += 1
            if e["example"] is None:
                e["example"] = f"{c['id']} `{row['node']}`"
    return sorted(out.items(), key=lambda kv: (-kv[1]["count"], kv[0]))


def graph_causes(per_case):
    """Whole-graph disagreements: (backend outcome, predicted outcome, cause) -> number of graphs.
    The cause is what made the prediction differ: the ops of the false positives when qnn-validate
    expects CPU work the backend does not do, of the false negatives in the other direction, and
    the session error when the backend's session failed. A graph counts once under each cause."""
    out = collections.Counter()
    for r in per_case:
        b, p = r["case"]["outcome"], r["pred"]["outcome"]
        if b == p:
            continue
        if b == "session-failure":
            err = r["case"]["session_error"] or ""
            if "NHWC" in err:
                causes = ["NHWC layout: a node QNN refused after ORT laid it out as NHWC"]
            else:
                fin = {(n["op"], n["finalize"]) for n in r["case"]["nodes"] if n.get("finalize")}
                causes = ([f"{op}: {msg}" for op, msg in sorted(fin)] or r["case"].get("finalize_errors")
                          or [_short(err, 100)])
        else:
            kind = "FP" if p in ("cpu-fallback", "session-failure") else "FN"
            causes = [f"{kind} {op}" for op in sorted({row["op"] for row in r["rows"] if row["kind"] == kind})]
            causes = causes or ["(no node disagreement)"]
        for cause in causes:
            out[(b, p, _NUM.sub("N", cause))] += 1
    return sorted(out.items(), key=lambda kv: (-kv[1], kv[0]))


def print_summary(results, data):
    for m, per_case in results.items():
        t = totals(per_case)
        print(f"{m}: nodes {t['agree']}/{t['nodes']} agree ({pct(t['agree'], t['nodes'])}), "
              f"{t['fp']} false positive(s), {t['fn']} false negative(s), {t['unread']} unread; "
              f"whole graph {t['graph_agree']}/{t['graphs']} ({pct(t['graph_agree'], t['graphs'])})")
    first = next(iter(results))
    print(f"\nper case ({first} mode): backend outcome / qnn-validate outcome, FP, FN")
    for r in results[first]:
        ct = totals([r])
        print(f"  {r['case']['id']:<40} {r['case']['outcome']:<16} {r['pred']['outcome']:<16} "
              f"FP {ct['fp']:<4} FN {ct['fn']}")
    for m, per_case in results.items():
        print(f"\ndisagreement classes ({m} mode):")
        for (kind, op, why, msg), e in classes(per_case)[:40]:
            print(f"  {e['count']:>5} {kind:<6} {op:<28} {why:<28} {msg[:110]}")


def check(results, expected, invert):
    """Problems against the expected figures (empty: no regression) and improvements."""
    problems, better = [], []
    for m, per_case in results.items():
        t, e = totals(per_case), expected.get(m)
        if e is None:
            problems.append(f"{m}: no expected figures")
            continue
        for k, worse in (("agree", lambda a, b: a < b), ("graph_agree", lambda a, b: a < b),
                         ("fp", lambda a, b: a > b), ("fn", lambda a, b: a > b), ("unread", lambda a, b: a > b)):
            if worse(t[k], e[k]):
                problems.append(f"{m}: {k} {t[k]} (expected {e[k]})")
            elif t[k] != e[k]:
                better.append(f"{m}: {k} {t[k]} (was {e[k]})")
        for k in ("judged", "graphs"):
            if t[k] != e[k]:
                problems.append(f"{m}: {k} compared {t[k]}, expected {e[k]} (data changed: --write-expected)")
    return problems, better


def _cell(r_by_mode, cid):
    s = r_by_mode["strict"].get(cid)
    w = r_by_mode["warn"].get(cid)
    if s is None:
        return ""
    st, wt = totals([s]), totals([w]) if w else None
    b = OUTCOMES[s["case"]["outcome"]]
    cell = f"{b} / {OUTCOMES[s['pred']['outcome']]}"
    if w:
        cell += f", {OUTCOMES[w['pred']['outcome']]}"
    cell += f" · {st['fp']}/{st['fn']}"
    if wt:
        cell += f", {wt['fp']}/{wt['fn']}"
    return cell


def write_doc(path, results, data, expected_path, validate_cmd):
    by_mode = {m: {r["case"]["id"]: r for r in per_case} for m, per_case in results.items()}
    socs = sorted({c["soc"] for c in data["cases"]})
    models = list(dict.fromkeys(c["model"] for c in data["cases"]))
    configs = list(dict.fromkeys(c["config"] for c in sorted(data["cases"], key=lambda c: c["config"])))
    v = data["versions"]
    L = []
    L.append("# Model-level conformance: qnn-validate against the real HTP backend on whole models")
    L.append("")
    L.append("<!-- Generated by tools/conformance/models/compare.py --write-doc; do not edit by hand. -->")
    L.append("")
    L.append("Issue 21's measuring instrument: real model architectures, quantized the way ONNX Runtime")
    L.append("users quantize for QNN, run through the real HTP backend, and compared node by node and")
    L.append("graph by graph with what `qnn-validate` predicts for the same file.")
    L.append("")
    L.append("## How it is measured")
    L.append("")
    L.append(f"- **Models** ({len(models)}, random seeded weights, nothing downloaded; "
             "`tools/conformance/models/zoo.py`): " + ", ".join(f"`{m}`" for m in models) + ". "
             "Vision models are torchvision's classes at reduced width on 64x64 inputs (ViT 32x32); "
             "the transformers are `transformers` configs (hidden 64, 2 layers, sequence 16, eager attention).")
    L.append("- **Export**: torch.onnx (TorchScript exporter, opset 17).")
    L.append("- **Quantization**: onnxruntime.quantization.execution_providers.qnn — `qnn_preprocess_model`, "
             "`get_qnn_qdq_config` (calibration: 4 seeded random inputs, MinMax), `quantize` — in "
             + ", ".join(f"`{c}`" for c in configs) + " (8a8w: uint8/uint8; 8a8w_pc: uint8 activations, "
             "per-channel symmetric int8 weights; 16a8w: uint16/uint8; 16a16w: uint16/uint16; 16-bit configs "
             "are upgraded to opset 21 by the quantizer). `tools/conformance/models/build.py`; the models are "
             "committed in `tests/conformance/models/onnx/`.")
    L.append("- **Oracle**: " + f"onnxruntime {v.get('onnxruntime')}, onnxruntime-qnn {v.get('onnxruntime_qnn')} "
             f"(QAIRT {v.get('qairt')}), the wheel's x86 `libQnnHtp.so` through the QNN plugin EP; "
             f"{data['session']['graph_optimization_level']} session graph optimizations; `ep.context_enable=1` "
             "(graph finalize runs); verbose log parsed per node (`tools/conformance/logparse.py`). "
             f"SoCs: {', '.join(socs)}. `tools/conformance/models/run.py` writes "
             "`tests/conformance/models/verdicts.json`.")
    L.append(f"- **Prediction**: `{validate_cmd}` in strict mode and with `--warn`.")
    L.append("- **Node verdicts**: the backend refused a compute node (any node but Q/DQ) when QNN's op "
             "validation rejected it or it ran on CPU (also when ORT's CPU-side optimizations removed it after the "
             "EP refused it). Nodes ORT's optimizations removed before partitioning "
             "(constants, shape arithmetic) run nowhere: they count only when qnn-validate refuses them (FP). qnn-validate refused it when `delegation.fallbacks` lists it with a reason "
             "other than `follows-cpu` (followers go where their neighbours go; not a verdict on the node). "
             "**FP** = qnn-validate refuses a node the backend runs; **FN** = qnn-validate delegates a node "
             "the backend refuses. Nodes of a model qnn-validate cannot read (exit 2) are counted as *unread*.")
    L.append("- **Whole graph**: all-qnn (Q), cpu-fallback (C), session-failure (F) — session creation failed, "
             "e.g. graph finalize or a refused node ORT had already laid out as NHWC — and, for qnn-validate, "
             "unread (E).")
    L.append("")
    L.append("Regenerate: `scripts/build.sh build && python3 tools/conformance/models/compare.py "
             "--validate build/tools/qnn-validate/qnn-validate --write-doc`; re-measure the oracle: "
             "`PYTHONPATH=tools .venv/bin/python -m conformance.models.build` then `... -m conformance.models.run` "
             "(resumable). The CTest `conformance_models` holds the figures to "
             "`tests/conformance/models/expected.json`.")
    L.append("")
    L.append("## Agreement")
    L.append("")
    L.append("| mode | nodes compared | agree | FP (we refuse, backend runs) | FN (we delegate, backend refuses) "
             "| unread | whole graph agree |")
    L.append("|---|---|---|---|---|---|---|")
    for m, per_case in results.items():
        t = totals(per_case)
        L.append(f"| {m} | {t['nodes']} | {t['agree']} ({pct(t['agree'], t['nodes'])}) | {t['fp']} | {t['fn']} "
                 f"| {t['unread']} | {t['graph_agree']}/{t['graphs']} ({pct(t['graph_agree'], t['graphs'])}) |")
    L.append("")
    outc = collections.Counter(c["outcome"] for c in data["cases"])
    nc = totals(next(iter(results.values())))["not_compared"]
    L.append(f"Not counted: {totals(next(iter(results.values())))['removed']} node(s) ORT removed before "
             "partitioning that qnn-validate does not refuse either. ")
    L.append(f"Not compared: {nc} node(s) with no backend verdict (the EP never asked QNN about them and the "
             "session failed, so their placement is unknown; mostly shape arithmetic ORT folds when the session "
             "succeeds).")
    L.append("")
    L.append("Backend outcomes: " + ", ".join(f"{k} {outc[k]}" for k in OUTCOMES if outc[k]) + f" of {len(data['cases'])} cases.")
    L.append("")
    for m, per_case in results.items():
        conf = collections.Counter((r["case"]["outcome"], r["pred"]["outcome"]) for r in per_case)
        L.append(f"Whole-graph confusion ({m}; rows: backend, columns: qnn-validate):")
        L.append("")
        L.append("| backend \\ qnn-validate | " + " | ".join(OUTCOMES) + " |")
        L.append("|---|" + "---|" * len(OUTCOMES))
        for b in ("all-qnn", "cpu-fallback", "session-failure"):
            L.append(f"| {b} | " + " | ".join(str(conf[(b, p)]) for p in OUTCOMES) + " |")
        L.append("")
    for m, per_case in results.items():
        L.append(f"Whole-graph disagreements ({m}) by cause (graphs; a graph counts under each of its causes):")
        L.append("")
        L.append("| graphs | backend | qnn-validate | cause |")
        L.append("|---|---|---|---|")
        for (b, p, cause), n in graph_causes(per_case):
            L.append(f"| {n} | {b} | {p} | {_short(cause, 240)} |")
        L.append("")
    L.append("## Disagreement classes")
    L.append("")
    L.append("Grouped by kind, ONNX op, qnn-validate's reason/code (FP) and message (numbers replaced by N); "
             "for FN, the backend's message. Counted in nodes over all cases.")
    for m, per_case in results.items():
        L.append("")
        L.append(f"### {m} mode")
        L.append("")
        L.append("| nodes | kind | op | qnn-validate | message | backend | configs | SoCs | models | example |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for (kind, op, why, msg), e in classes(per_case):
            back = ", ".join(f"{k} {v}" for k, v in sorted(e["backend"].items(), key=lambda kv: str(kv[0])))
            L.append(f"| {e['count']} | {kind} | {op} | {why} | {_short(msg, 200)} | {back} | "
                     f"{', '.join(sorted(e['configs']))} | {len(e['socs'])} | {len(e['models'])} | {e['example']} |")
    L.append("")
    L.append("## Per model, configuration and SoC")
    L.append("")
    L.append("Cell: backend outcome / qnn-validate outcome strict, warn · FP/FN strict, warn "
             "(Q all on QNN, C CPU fallback, F session failure, E unread).")
    L.append("")
    L.append("| model | config | " + " | ".join(socs) + " |")
    L.append("|---|---|" + "---|" * len(socs))
    for mo in models:
        for cf_ in configs:
            cells = [_cell(by_mode, f"{mo}/{cf_}/{s}") for s in socs]
            if any(cells):
                L.append(f"| {mo} | {cf_} | " + " | ".join(cells) + " |")
    L.append("")
    L.append("## Session failures seen on the backend")
    L.append("")
    fails, where = collections.Counter(), {}
    for c in data["cases"]:
        if c["session_error"]:
            msg = re.sub(r"Node '[^']*'", "Node '…'", _NUM.sub("N", c["session_error"]))
            fails[msg] += 1
            where.setdefault(msg, set()).add(f"{c['soc']} {c['config']}")
    for msg, n in fails.most_common():
        L.append(f"- {n} case(s) ({', '.join(sorted(where[msg]))}): `{_short(msg, 300)}`")
    if not fails:
        L.append("- none")
    fin = collections.Counter(f for c in data["cases"] for f in c.get("finalize_errors", []))
    if fin:
        L.append("")
        L.append("Graph finalize errors: " + "; ".join(f"{n}× `{_short(m, 160)}`" for m, n in fin.most_common()))
    L.append("")
    L.append("## Versions")
    L.append("")
    for k, val in sorted(v.items()):
        L.append(f"- {k}: {val}")
    L.append("")
    write_page(path, L)


def write_page(path, lines):
    """Writes a generated page whole or not at all (a reader never sees half a page)."""
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".tmp", path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--validate", required=True)
    ap.add_argument("--data", default=os.path.join(DATA, "verdicts.json"))
    ap.add_argument("--onnx", default=os.path.join(DATA, "onnx"))
    ap.add_argument("--expected", default=os.path.join(DATA, "expected.json"))
    ap.add_argument("--rules", action="append", default=[])
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--write-expected", action="store_true")
    ap.add_argument("--write-doc", nargs="?", const=DOC, default=None)
    ap.add_argument("--expect-regression", action="store_true",
                    help="mutation test: pass only when the figures are worse than expected")
    ap.add_argument("--quiet", action="store_true", help="totals only")
    a = ap.parse_args(argv)
    modes = a.modes.split(",")
    try:
        if any(m not in MODES for m in modes):
            raise InputError(f"--modes: one of {', '.join(MODES)}")
        data = load(a.data)
        if not data.get("cases"):
            raise InputError(f"{a.data}: no cases")
        results = measure(a.validate, data, a.onnx, a.rules, modes, a.jobs)
        expected = None if a.write_expected else load(a.expected)
    except (InputError, KeyError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.quiet:
        for m, per_case in results.items():
            t = totals(per_case)
            print(f"{m}: nodes {t['agree']}/{t['nodes']} agree ({pct(t['agree'], t['nodes'])}), FP {t['fp']}, "
                  f"FN {t['fn']}, unread {t['unread']}; whole graph {t['graph_agree']}/{t['graphs']}")
    else:
        print_summary(results, data)
    if a.write_doc:
        if set(modes) != set(MODES):
            print("error: --write-doc needs both modes", file=sys.stderr)
            return 2
        write_doc(a.write_doc, results, data, a.expected, "qnn-validate MODEL.onnx --backend htp --soc SOC --format json")
        print(f"wrote {os.path.relpath(a.write_doc, ROOT)}")
    if a.write_expected:
        out = {"note": "figures measured by tools/conformance/models/compare.py with the rules of the commit that "
                       "wrote this file; the CTest conformance_models fails when a figure gets worse",
               **{m: totals(per_case) for m, per_case in results.items()}}
        with open(a.expected, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {os.path.relpath(a.expected, ROOT)}")
        return 0
    problems, better = check(results, expected, a.expect_regression)
    if a.expect_regression:
        if problems:
            print("mutation detected: " + "; ".join(problems))
            return 0
        print("mutation check failed: the figures did not get worse", file=sys.stderr)
        return 1
    for b in better:
        print(f"IMPROVED {b}: update tests/conformance/models/expected.json (--write-expected)")
    for p in problems:
        print(f"REGRESSION {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
