"""Node-level comparison of qnnrules' delegation with the HTP backend for the Quantizer suite.

Shared by tools/conformance/quantizer/run.py (which records) and
tests/python/test_quantizer_oracle.py (which re-validates the recorded graphs with today's rules):
no torch here, only the qnnrules package (for predict) and PyYAML (the rules' structural kinds).

- engine(soc): the engine the comparison judges with: HTP rules of the SoC, strict, for the
  lowering path the oracle takes (LOWERING: ONNX Runtime's QNN EP, `ort-qnn`; the graph itself is
  the converted GraphModule, whose default path is ExecuTorch's). The paths differ in what ORT
  does to the encodings before QNN sees them (rules/lowering/ort-qnn.yaml), e.g. merging the
  two Q/DQ pairs around a cast: judged for ExecuTorch, the Llama's embedding on V68 is fine;
  ORT hands QNN a float32 Gather that V68 cannot finalize (bisect_gather.py).
- predict(engine, graph_dict): the engine's verdict per compute node of a graph format v1 dict
  (the converted GraphModule as qnnrules.torch.to_dict reads it): "delegated", or "refused" when
  the delegation report lists it as a fallback for a reason other than `follows-cpu` (a
  follower goes where its neighbours go: not a verdict on the node; docs/delegation.md). Compute
  nodes are the call nodes the report places, less the constant / dead / no-op nodes it sets
  aside, the quantize/dequantize it folds and structural followers (getitem, clone, dropout...).
- compare(ours, onnx_nodes, backend_nodes): per FX compute node, the backend's state over the
  ONNX nodes exported from it, and the kind: agree, FP (we refuse, the backend runs it), FN (we
  delegate, the backend refuses it), removed (ORT removed every ONNX node of it before
  partitioning, and we delegate it: nobody places it), not-compared (no ONNX node, or no
  backend verdict because the session failed before the EP asked). A node op validation accepted
  and graph finalize then failed on (`refused-at-finalize`: the whole graph does not compile)
  agrees when the rules predict that the graph fails at finalize (the delegation report's
  session failure, from a variant's `gate_fails_at: finalize`).
"""
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # tools/, for conformance.models
from conformance.models.compare import backend_state  # noqa: E402


LOWERING = "ort-qnn"  # the oracle's path: ONNX Runtime's QNN EP


def engine(soc, lowering=LOWERING):
    import qnnrules
    return qnnrules.Engine(backend="htp", soc=soc, strict=True, lowering=lowering, use_environment=False)


def fails_at_finalize(session_failure):
    """Whether the delegation report's session failure is one at graph finalize (a gated
    variant's `gate_fails_at: finalize`), rather than ORT's NHWC layout."""
    return bool(session_failure) and "graph finalize" in (session_failure.get("message") or "")


def is_qdq_target(target):
    return target.startswith("quantized_decomposed.") or (target.startswith("torchao.") and "quantize" in target)


def structural_targets(rules_dir=os.path.join(ROOT, "rules", "htp")):
    """ATen targets of the HTP rules of kind `structural` (followers, not compute nodes)."""
    import yaml
    out = set()
    for path in glob.glob(os.path.join(rules_dir, "**", "*.yaml"), recursive=True):
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
        for r in doc.get("rules", []) if isinstance(doc, dict) else []:
            if isinstance(r, dict) and r.get("kind") == "structural":
                out.update(r.get("targets", []))
    return out


def compute_nodes(graph_dict, report, structural):
    """Names of the engine's compute nodes (docs/delegation.md), in graph order."""
    placed = {x for p in report["partitions"] for x in p["nodes"]} | {f["node"] for f in report["fallbacks"]}
    aside = set(report["constant_nodes"]) | set(report["dead_nodes"]) | set(report["noop_nodes"])
    out = []
    for n in graph_dict["nodes"]:
        t = n.get("target", "")
        if (n.get("kind") == "call" and n["name"] in placed and n["name"] not in aside
                and not is_qdq_target(t) and t not in structural):
            out.append(n["name"])
    return out


def predict(engine, graph_dict, structural):
    """({node: {"target", "ours", "reason", "code", "message"}}, summary) for one graph dict."""
    import qnnrules
    rep = engine.delegation(qnnrules.Graph.from_dict(graph_dict, graph_dict.get("name", "model")))
    rd = rep.to_dict()
    fallbacks = {f["node"]: f for f in rd["fallbacks"]}
    by_name = {n["name"]: n for n in graph_dict["nodes"]}
    out = {}
    for name in compute_nodes(graph_dict, rd, structural):
        f = fallbacks.get(name)
        refused = f is not None and f["reason"] != "follows-cpu"
        out[name] = {"target": by_name[name]["target"], "ours": "refused" if refused else "delegated",
                     "reason": f["reason"] if f else None, "code": f.get("code") if f else None,
                     "message": f["message"][:300] if f else None}
    summary = {"compute_nodes": rep.compute_nodes, "delegated": rep.delegated_compute_nodes,
               "partitions": len(rep.partitions), "diagnostics": len(rep.validation.diagnostics),
               "codes": sorted({x.code for x in rep.validation.diagnostics}),
               "session_failure": rd.get("session_failure"), "summary": rep.summary,
               "fails_at_finalize": fails_at_finalize(rd.get("session_failure")),
               "lowering": rd.get("lowering"), "compute_nodes_listed": len(out)}
    return out, summary


def at_finalize(state, messages):
    """An ONNX node QNN's op validation accepted but graph finalize named in an op it could not
    create ("NODE" generated: could not create op) did not run: `refused-at-finalize`."""
    if state == "accepted" and any((m or "").startswith("graph finalize") for m in messages):
        return "refused-at-finalize"
    return state


REFUSED = ("refused", "refused-at-finalize")


def node_kind(ours, backend, finalize_predicted=False):
    if backend in (None, "no-onnx-node"):
        return "not-compared"
    if ours == "delegated" and backend == "refused-at-finalize" and finalize_predicted:
        return "agree"  # the rules say the graph does not compile: nothing of it runs
    if ours == "refused" and backend not in REFUSED:
        return "FP"
    if ours == "delegated" and backend in REFUSED:
        return "FN"
    if backend == "removed":
        return "removed"
    return "agree"


def compare(ours, onnx_nodes, backend_nodes, finalize_predicted=False):
    """(rows {fx node: row}, ONNX compute nodes that map to no FX compute node)."""
    by_onnx = {n["name"]: n for n in backend_nodes}
    of_fx = {}
    unmapped = []
    for n in onnx_nodes:
        if n["fx"] in ours:
            of_fx.setdefault(n["fx"], []).append(n["name"])
        else:
            b = by_onnx.get(n["name"])
            unmapped.append({"name": n["name"], "op": n["op"], "fx": n["fx"], "exported_fx": n["exported_fx"],
                             "backend": at_finalize(backend_state(b), [b.get("finalize")]) if b else None,
                             "backend_message": (b.get("message") or b.get("finalize")) if b else None})
    rows = {}
    for name, o in ours.items():
        onx = of_fx.get(name, [])
        states = [backend_state(by_onnx[x]) for x in onx if x in by_onnx]
        msgs = [by_onnx[x].get("message") or by_onnx[x].get("finalize") for x in onx if x in by_onnx]
        if not onx:
            b = "no-onnx-node"
        elif "refused" in states:
            b = "refused"
        elif "accepted" in states:
            b = at_finalize("accepted", msgs)
        elif states and all(s == "removed" for s in states):
            b = "removed"
        else:
            b = None
        rows[name] = {"target": o["target"], "ours": o["ours"], "code": o["code"], "reason": o["reason"],
                      "message": o["message"], "onnx": onx, "backend": b, "kind": node_kind(o["ours"], b, finalize_predicted),
                      "backend_message": next((m for m in msgs if m), None)}
    return rows, unmapped


def rejudge(ours, recorded, finalize_predicted=False):
    """Rows of today's verdicts ``ours`` (predict) against the backend states of the recorded
    rows of the same case: what the test checks and run.py --repredict writes."""
    rows = {}
    for name, o in ours.items():
        rec = recorded.get(name) or {}
        b = rec.get("backend")
        rows[name] = {"target": o["target"], "ours": o["ours"], "code": o["code"], "reason": o["reason"],
                      "message": o["message"], "onnx": rec.get("onnx", []), "backend": b,
                      "kind": node_kind(o["ours"], b, finalize_predicted),
                      "backend_message": rec.get("backend_message")}
    return rows


def executorch_view(soc, graph_dict, rows, summary, structural):
    """The same graph judged for ExecuTorch's path (the converted GraphModule's default lowering):
    its outcome, and what differs from the `ort-qnn` judgement (nodes, or the node the session
    fails at)."""
    et, et_summary = predict(engine(soc, "executorch"), graph_dict, structural)
    et_outcome = outcome({n: {"ours": o["ours"]} for n, o in et.items()}, et_summary)
    differs = sorted(n for n, r in rows.items() if n in et and et[n]["ours"] != r["ours"])
    sf = summary.get("session_failure")
    if et_outcome != outcome(rows, summary) and sf and sf["node"] not in differs:
        differs.append(sf["node"])
    return {"outcome": et_outcome, "differs": differs}


KINDS = {"agree": "agree", "FP": "fp", "FN": "fn", "removed": "removed", "not-compared": "not_compared"}


def totals(rows):
    """{"nodes" (compared: agree + FP + FN), "agree", "fp", "fn" (of which "fn_finalize": op
    validation accepted them, graph finalize failed on them), "agree_finalize" (agreeing nodes
    graph finalize failed on: the rules predicted it), "removed", "not_compared"}."""
    t = {"nodes": 0, "agree": 0, "agree_finalize": 0, "fp": 0, "fn": 0, "fn_finalize": 0, "removed": 0,
         "not_compared": 0}
    for r in rows.values():
        t[KINDS[r["kind"]]] += 1
        t["fn_finalize"] += r["kind"] == "FN" and r["backend"] == "refused-at-finalize"
        t["agree_finalize"] += r["kind"] == "agree" and r["backend"] == "refused-at-finalize"
        t["nodes"] += r["kind"] in ("agree", "FP", "FN")
    return t


def outcome(rows, summary=None):
    """qnnrules' whole-graph prediction: the session fails when the delegation report says so
    (NHWC layout or graph finalize), else from its node verdicts."""
    if summary and summary.get("session_failure"):
        return "session-failure"
    return "cpu-fallback" if any(r["ours"] == "refused" for r in rows.values()) else "all-qnn"


# --- the tables of docs/conformance-quantizer.md ----------------------------------------------

OUTCOME = {"all-qnn": "Q", "cpu-fallback": "C", "session-failure": "F"}
BEGIN, END = "<!-- BEGIN GENERATED TABLES -->", "<!-- END GENERATED TABLES -->"


def _pct(a, b):
    return f"{100.0 * a / b:.2f}%" if b else "n/a"


def tables(data, bisect=None):
    """Markdown: the totals, the model x config x SoC table, the FP/FN classes, build failures,
    and the bisection's runs (bisect_gather.json's cases) when given."""
    import collections
    cases = data["cases"]
    done = [c for c in cases if "nodes" in c]
    socs = sorted({c["soc"] for c in cases})
    t = collections.Counter()
    for c in done:
        for k, v in c["totals"].items():
            t[k] += v
        t["graphs"] += 1
        t["graph_agree"] += c["ours_outcome"] == c["oracle"]["outcome"] or (
            c["ours_outcome"] == "cpu-fallback" and c["oracle"]["outcome"] == "session-failure")
    out = ["## Agreement", "",
           "| cases | FX compute nodes compared | agree | of which graph finalize fails, as predicted | FP (we refuse, backend runs) | FN (we delegate, backend refuses) | of which at graph finalize | removed by ORT | not compared | whole graph agree |",
           "|---|---|---|---|---|---|---|---|---|---|",
           f"| {t['graphs']} | {t['nodes']} | {t['agree']} ({_pct(t['agree'], t['nodes'])}) | {t['agree_finalize']} | "
           f"{t['fp']} | {t['fn']} | {t['fn_finalize']} | {t['removed']} | {t['not_compared']} | "
           f"{t['graph_agree']}/{t['graphs']} |", ""]
    outcomes = collections.Counter((c["oracle"]["outcome"], c["ours_outcome"]) for c in done)
    out += ["Whole graph (rows: backend; columns: qnnrules' delegation report for the `ort-qnn` path: "
            "`session-failure` when it says the session fails — a refused node ORT laid out as NHWC, or "
            "a variant graph finalize refuses — `cpu-fallback` when a node is refused, which also agrees "
            "with a backend session failure):", "",
            "| backend \\ qnnrules | all-qnn | cpu-fallback | session-failure |", "|---|---|---|---|"]
    for b in ("all-qnn", "cpu-fallback", "session-failure"):
        out.append(f"| {b} | {outcomes[(b, 'all-qnn')]} | {outcomes[(b, 'cpu-fallback')]} | "
                   f"{outcomes[(b, 'session-failure')]} |")
    et = [c for c in done if (c["qnnrules"].get("executorch") or {}).get("differs")]
    if any("executorch" in c["qnnrules"] for c in done):
        out += ["", f"Judged for ExecuTorch's path instead (`lowering=\"executorch\"`, the converted "
                f"GraphModule's default): {len(et)} case(s) differ"
                + (": " + "; ".join(f"{c['id']} ({OUTCOME[c['qnnrules']['executorch']['outcome']]} for ExecuTorch, "
                                    f"{OUTCOME[c['ours_outcome']]} for ONNX Runtime; "
                                    + ", ".join(f"`{n}`" for n in c['qnnrules']['executorch']['differs']) + ")"
                                    for c in et)
                   if et else "") + "."]
    out += ["", "## Per model, configuration and SoC", "",
            "Cell: backend outcome / qnnrules outcome · agreeing nodes/compared nodes · FP/FN "
            "(Q all compute nodes on QNN, C CPU fallback, F session failure; `build failed` when the "
            "Quantizer or the export failed).", "",
            "| model | config | " + " | ".join(socs) + " |", "|---|---|" + "---|" * len(socs)]
    by = {(c["model"], c["config"], c["soc"]): c for c in cases}
    for model in sorted({c["model"] for c in cases}):
        for config in ("8a8w", "16a8w", "16a16w"):
            cells = []
            for soc in socs:
                c = by.get((model, config, soc))
                if c is None:
                    cells.append("")
                elif c.get("build_error"):
                    cells.append("build failed")
                elif "nodes" not in c:
                    cells.append("not run")
                else:
                    x = c["totals"]
                    cells.append(f"{OUTCOME[c['oracle']['outcome']]} / {OUTCOME[c['ours_outcome']]} · "
                                 f"{x['agree']}/{x['nodes']} · {x['fp']}/{x['fn']}")
            if any(cells):
                out.append(f"| {model} | {config} | " + " | ".join(cells) + " |")
    classes = collections.defaultdict(lambda: {"n": 0, "cases": set()})
    for c in done:
        for name, r in c["nodes"].items():
            if r["kind"] in ("FP", "FN"):
                msg = (r.get("message") if r["kind"] == "FP" else r.get("backend_message")) or ""
                k = classes[(r["kind"], r["target"], r.get("reason") or "", r.get("code") or "", msg[:140])]
                k["n"] += 1
                k["cases"].add(f"{c['model']}/{c['config']}/{c['soc']}")
    out += ["", "## Disagreements", ""]
    if not classes:
        out.append("None: every compared node agrees.")
    else:
        out += ["| nodes | kind | op | our reason / code | message | cases (example) |", "|---|---|---|---|---|---|"]
        for (kind, op, reason, code, msg), v in sorted(classes.items(), key=lambda kv: -kv[1]["n"]):
            out.append(f"| {v['n']} | {kind} | `{op}` | {reason} / {code} | {msg.replace('|', '/')} | "
                       f"{len(v['cases'])} ({sorted(v['cases'])[0]}) |")
    refused = collections.Counter()
    for c in done:
        for r in c["nodes"].values():
            if r["ours"] == "refused":
                refused[(r["target"], r.get("reason"), r.get("code"), r["backend"], c["config"], c["arch"])] += 1
    if refused:
        out += ["", "Nodes qnnrules refuses (and what the backend did with them):", "",
                "| nodes | op | reason / code | backend | config | arch |", "|---|---|---|---|---|---|"]
        for (op, reason, code, b, cfg, arch), n in sorted(refused.items(), key=lambda kv: (-kv[1], kv[0][0])):
            out.append(f"| {n} | `{op}` | {reason} / {code} | {b} | {cfg} | {arch} |")
    errs = collections.Counter((c["oracle"]["session_error"] or "")[:220] for c in done if c["oracle"]["session_error"])
    if errs:
        out += ["", "Session failures on the backend:", ""]
        out += [f"- {n} case(s): `{e}`" for e, n in errs.most_common()]
    fails = [c for c in cases if c.get("build_error")]
    if fails:
        out += ["", "Build failures (quantize or export):", ""]
        out += [f"- {c['id']}: `{c['build_error'][:300]}`" for c in fails]
    unmapped = collections.Counter()
    for c in done:
        for u in c.get("unmapped_onnx_nodes", []):
            unmapped[(u["op"], u["backend"])] += 1
    if unmapped:
        out += ["", "ONNX compute nodes with no FX compute node (from nodes qnnrules folds as constants, "
                "e.g. the causal mask and RoPE tables, or exporter helpers); not compared:", "",
                "| ONNX op | backend | nodes |", "|---|---|---|"]
        out += [f"| {op} | {b} | {n} |" for (op, b), n in sorted(unmapped.items(), key=lambda kv: -kv[1])]
    if bisect:
        out += ["", "## The V68 finalize failure, bisected", "",
                "`tools/conformance/quantizer/bisect_gather.py` (`bisect_gather.json`): one Gather over a "
                "quantized 128 x 64 table, then what the case says, then a quantized Sigmoid. Cell: graph "
                "finalized (ok) or the session failed (F), and the datatype QNN's op validation logged for the "
                "Gather's data.", ""]
        bsocs = sorted({r["soc"] for r in bisect})
        out += ["| case | what | ORT optimizations | " + " | ".join(bsocs) + " |", "|---|---|---|" + "---|" * len(bsocs)]
        by = {(r["case"], r["soc"]): r for r in bisect}
        for name in dict.fromkeys(r["case"] for r in bisect):
            first = by[(name, bsocs[0])]
            cells = [f"{'ok' if by[(name, so)]['outcome'] == 'finalized' else 'F'} "
                     f"({by[(name, so)]['qnn_gather_data_type']})" if (name, so) in by else "" for so in bsocs]
            out.append(f"| `{name}` | {first['what']} | {first['ort_optimizations']} | " + " | ".join(cells) + " |")
    v = data.get("versions", {})
    out += ["", "## Versions", ""] + [f"- {k}: {v[k]}" for k in sorted(v)]
    return "\n".join(out) + "\n"


def splice_tables(path, generated):
    """Replaces what stands between the doc's BEGIN and END markers with `generated`; True when
    the doc changed. The repair suite's doc uses it too."""
    with open(path) as f:
        text = f.read()
    i, j = text.index(BEGIN), text.index(END)
    new = text[:i + len(BEGIN)] + "\n" + generated + text[j:]
    with open(path, "w") as f:
        f.write(new)
    return new != text


def write_doc(data, path, bisect=None):
    return splice_tables(path, tables(data, bisect))


def main(argv=None):
    import argparse
    import json
    ap = argparse.ArgumentParser(description="Prints (or writes into the doc) the tables of the Quantizer suite.")
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "conformance", "quantizer", "verdicts.json"))
    ap.add_argument("--write-doc", nargs="?", const=os.path.join(ROOT, "docs", "conformance-quantizer.md"))
    ap.add_argument("--bisect", default=os.path.join(ROOT, "tests", "conformance", "quantizer", "bisect_gather.json"))
    a = ap.parse_args(argv)
    with open(a.data) as f:
        data = json.load(f)
    bisect = None
    if os.path.exists(a.bisect):
        with open(a.bisect) as f:
            bisect = json.load(f)["cases"]
    if a.write_doc:
        write_doc(data, a.write_doc, bisect)
    else:
        sys.stdout.write(tables(data, bisect))


if __name__ == "__main__":
    main()
