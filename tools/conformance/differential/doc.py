"""Writes docs/conformance-differential.md from the tester's data and today's qnn-validate.

  PYTHONPATH=tools .venv/bin/python -m conformance.differential.doc [--validate PATH] [--data-dir DIR]
The figures of the runs come from runs.json; the table of reproducers from verdicts.json (what the
backend did) and from running qnn-validate on each reproducer now (what it says today), so the
page shows which findings the rules have since fixed. run.py calls it at the end of a run.
"""
import argparse
import collections
import os

from ..models import compare
from . import check, data, mechanisms
from .generate import MAX_NODES, MIN_NODES
from .graph import MAX_ELEMS, MAX_WEIGHT
from .ops import FORMS

DOC = os.path.join(data.ROOT, "docs", "conformance-differential.md")


def _pct(a, b):
    return compare.pct(a, b)


def _cell(text, n=150):
    return compare._short(text or "", n)


def _explores():
    forms = ", ".join(f"{name} ({w})" for name, (w, _) in FORMS.items())
    return [
        "## What it explores",
        "",
        f"- **Graphs**: {MIN_NODES}-{MAX_NODES} nodes, drawn by `tools/conformance/differential/generate.py` from "
        "one float input of rank 1-6 (more inputs appear as second operands), each step applied to the newest "
        "tensor (60%) or an older one (branches, joins); every output nobody reads is a graph output.",
        f"- **Forms** (`ops.py`, with their drawing weights): {forms}. They include Conv 1-D/2-D with groups "
        "(depthwise and grouped), strides, dilations, symmetric and asymmetric pads; MatMul on ranks 1-6 "
        "with constant weights (+ bias), x @ xᵀ and broadcast batch dims; Gemm with transA/transB, bias [N], "
        "[1,N] or none; broadcasting against scalars, [1], rank-mismatched constants and computed operands "
        "(either side broadcast); Gelu in its Erf form; LayerNorm fused (any axis) and decomposed; RMSNorm; "
        "reductions over 1-3 axes with keepdims 0/1; Reshape to constant targets with 0 and -1 and through "
        "shape arithmetic (Shape → Gather → Unsqueeze → Concat → Reshape, Shape → Slice → Concat); Slice with "
        "negative starts/ends, INT64 bounds and steps 2, 3, -1; Gather with scalar, 1-D and 2-D constant indices; "
        "Where with computed and constant masks and fills down to float's lowest; Resize nearest/linear/cubic "
        "by scales or sizes in four coordinate modes; Pad constant/reflect/edge; Einsum in six equations "
        "exporters write; Cast no-op, through float16, and of a shape value; Range and ConstantOfShape.",
        f"- **Sizes**: dims are 1 (22%), 2-8, 9-40, 41-160, or 161-1024 (4%); every tensor at most "
        f"{MAX_ELEMS:,} elements and every constant at most {MAX_WEIGHT:,}.",
        "- **Validity**: onnx.checker (full), ONNX's strict shape inference agreeing with the generator's "
        "shapes, ONNX Runtime's CPU session running the graph on the calibration inputs with finite outputs; "
        "a graph failing one is discarded and counted by reason.",
        "- **Quantization**: `tools/conformance/models/build.py`'s `quantize` (ORT's QNN workflow: "
        "`qnn_preprocess_model`, `get_qnn_qdq_config`, `quantize`), the configuration drawn per graph.",
        "- **Oracle and comparison**: one session per SoC (`tools/conformance/models/run.py`'s `run_case`, "
        "ORT default optimizations, EP context on so the graph finalizes) and qnn-validate strict and warn, "
        "compared node by node and graph by graph by `tools/conformance/models/compare.py`. A disagreement's "
        "*kind* (`check.py`): FN/FP, op, the backend's message (FN) or qnn-validate's code (FP) without "
        "numbers and names, and the whole-graph outcome pair (Q all on QNN, C CPU fallback, F session fails, "
        "E unread) backend/qnn-validate.",
        "- **Minimization** (`minimize.py`): the first graph of each kind is redrawn smaller (sizes divided by "
        "up to 64, a lower input rank) and with steps left out (their outputs become graph inputs), keeping "
        "every change after which the oracle and qnn-validate still disagree in the same kind on the same SoC.",
        "",
    ]


def _runs(runs):
    L = ["## Runs", "",
         "| seed | minutes | SoCs | configs | graphs drawn | valid | discarded (why) | quantization failed "
         "| oracle cases | nodes agree strict / warn | FP / FN strict | graphs agree strict / warn | kinds "
         "| minimization (sessions, min) |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        g, a = r["graphs"], r["agreement"]
        s, w = a.get("strict", {}), a.get("warn", {})
        disc = ", ".join(f"{k} {v}" for k, v in sorted(g["discarded"].items())) or "none"
        L.append(f"| {r['seed']} | {r['minutes']:.0f} | {', '.join(r['socs'])} | {', '.join(r['configs'])} "
                 f"| {g['drawn']} | {g['valid']} | {sum(g['discarded'].values())} ({disc}) | {g['quantize_failed']} "
                 f"| {r['oracle_cases']} | {_pct(s.get('agree', 0), s.get('nodes', 0))} / "
                 f"{_pct(w.get('agree', 0), w.get('nodes', 0))} of {s.get('nodes', 0)} | {s.get('fp', 0)} / {s.get('fn', 0)} "
                 f"| {s.get('graph_agree', 0)}/{s.get('graphs', 0)} / {w.get('graph_agree', 0)}/{w.get('graphs', 0)} "
                 f"| {len(r['kinds'])} | {r['minimization']['sessions']}, {r['minimization']['seconds'] / 60:.0f} |")
    L.append("")
    for r in runs:
        hangs = r.get("oracle_timeouts", [])
        L.append(f"- Seed {r['seed']}: qnn-validate: {'; '.join(r.get('validate', []))}. Sessions that did not finish "
                 f"in {check.SESSION_TIMEOUT} s (the backend hangs; not compared, the graph's other SoCs skipped): "
                 + (", ".join(f"`{h}`" for h in hangs) or "none") + ".")
    return L + [""]


def _kinds(runs):
    merged = collections.OrderedDict()
    for r in runs:
        for kind, k in r["kinds"].items():
            e = merged.setdefault(kind, {"cases": 0, "graphs": 0, "socs": set(), "configs": set(),
                                         "reproducer": None, "first": k["first"]})
            e["cases"] += k["cases"]
            e["graphs"] += k["graphs"]
            e["socs"] |= set(k["socs"])
            e["configs"] |= set(k["configs"])
            e["reproducer"] = e["reproducer"] or k["reproducer"]
    L = ["## Disagreement kinds before minimization", "",
         "Every kind seen, over all runs: oracle cases (graph x SoC) and graphs showing it, where, the "
         "reproducer recorded for it and a guess at the mechanism (`mechanisms.py`).", "",
         "| cases | graphs | kind | SoCs | configs | reproducer | mechanism (guess) |", "|---|---|---|---|---|---|---|"]
    for kind, e in sorted(merged.items(), key=lambda kv: -kv[1]["cases"]):
        L.append(f"| {e['cases']} | {e['graphs']} | {_cell(kind, 220)} | {', '.join(sorted(e['socs']))} "
                 f"| {', '.join(sorted(e['configs']))} | {e['reproducer'] or '—'} | {mechanisms.guess(kind)} |")
    return L + [""]


# What the backend did with a node when QNN gave no message.
_STATE = {"refused": "the EP placed it on CPU", "accepted": "ran on QNN",
          "removed": "ORT's optimizations removed it before partitioning"}


def _reproducers(store, results):
    by_id = {r["case"]["id"]: r for r in results["strict"]}
    warn = {r["case"]["id"]: r for r in results["warn"]}
    L = ["## Reproducers", "",
         "Each minimized reproducer on the SoC it was minimized on (it is recorded on every SoC of its run): "
         "the node the two sides judge differently, what the backend did (QNN's message), what qnn-validate "
         "says today (strict; warn when it differs), and the guessed mechanism. Outcomes: backend / "
         "qnn-validate.", "",
         "| reproducer | SoC | compute nodes | outcome | node (op) | backend | qnn-validate | mechanism (guess) |",
         "|---|---|---|---|---|---|---|---|"]
    for c in sorted(store.cases.values(), key=lambda c: c["id"]):
        d = c.get("differential", {})
        if d.get("role") != "reproducer" or c["soc"] != d["soc"]:
            continue
        r = by_id[c["id"]]
        rows = [x for x in r["rows"] if x["kind"] in ("FN", "FP", "unread")]
        short = f"{check.SHORT[c['outcome']]}/{check.SHORT[r['pred']['outcome']]}"
        pair = short.replace("/", " / ")
        wp = warn[c["id"]]["pred"]["outcome"]
        if wp != r["pred"]["outcome"]:
            pair += f" (warn {check.SHORT[wp]})"
        nodes = len(c["nodes"])
        if not rows:
            back = c["session_error"] or "; ".join(c.get("finalize_errors", [])) or c["outcome"]
            sf = r["pred"].get("session_failure") or {}
            ours = sf.get("message") or ("delegated" if r["pred"]["outcome"] == "all-qnn" else r["pred"]["outcome"])
            L.append(f"| `{c['file']}` | {c['soc']} | {nodes} | {pair} | (graph) | {_cell(back)} | {_cell(ours)} "
                     f"| {mechanisms.guess(d['kind'])} |")
        for x in rows[:3]:
            back = f"{x['backend']}: {x['backend_message'] or _STATE[x['backend']]}"
            ours = f"{x['ours']}" + (f": {x['message']}" if x.get("message") else "")
            kind = check.row_kind(x, short)
            L.append(f"| `{c['file']}` | {c['soc']} | {nodes} | {pair} | `{x['node']}` ({x['op']}) | {_cell(back)} "
                     f"| {_cell(ours)} | {mechanisms.guess(kind)} |")
    return L + [""]


def write(path, store, results):
    runs = store.runs["runs"]
    L = ["# Graph differential testing: random graphs against the real HTP backend", "",
         "<!-- Generated by tools/conformance/differential/doc.py; do not edit by hand. -->", "",
         "Issue 32's differential tester: random small float ONNX graphs, quantized with ONNX Runtime's QNN "
         "workflow, run through the real HTP backend and through `qnn-validate`; every disagreement is "
         "minimized to a small reproducer and kept as a regression case in `tests/conformance/differential/` "
         "(CTest `conformance_differential`, figures held to `expected.json`).", "",
         "Run: `nice -n 10 env PYTHONPATH=tools .venv/bin/python -m conformance.differential.run --minutes 65 "
         "--seed S` (resumable; `--socs`, `--configs`, `--cap` seconds per minimization). Check: "
         "`python3 tools/conformance/models/compare.py --validate build/tools/qnn-validate/qnn-validate "
         "--data tests/conformance/differential/verdicts.json --onnx tests/conformance/differential/onnx "
         "--expected tests/conformance/differential/expected.json`. Regenerate this page: "
         "`PYTHONPATH=tools .venv/bin/python -m conformance.differential.doc`.", ""]
    L += _explores() + _runs(runs) + _kinds(runs) + _reproducers(store, results)
    t = {m: compare.totals(per) for m, per in results.items()}
    L += ["## The recorded cases today", "",
          f"{len(store.cases)} cases ({len({c['model'] for c in store.cases.values()})} graphs: "
          f"{len(store.reproducers())} reproducers, {len(store.samples())} agreeing samples) with today's rules:", ""]
    for m, x in t.items():
        L.append(f"- {m}: nodes {x['agree']}/{x['nodes']} agree ({_pct(x['agree'], x['nodes'])}), FP {x['fp']}, "
                 f"FN {x['fn']}, unread {x['unread']}; whole graph {x['graph_agree']}/{x['graphs']}")
    L.append("")
    compare.write_page(path, L)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--validate", default=check.validate_path())
    ap.add_argument("--data-dir", default=data.DATA)
    ap.add_argument("--out", default=DOC)
    a = ap.parse_args(argv)
    store = data.Store(a.data_dir)
    results = compare.measure(a.validate, {"cases": list(store.cases.values())}, store.onnx, [], compare.MODES, 2)
    write(a.out, store, results)
    print(f"wrote {os.path.relpath(a.out, data.ROOT)}")


if __name__ == "__main__":
    main()
