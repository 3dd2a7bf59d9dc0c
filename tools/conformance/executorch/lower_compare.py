"""Compares qnn-validate with ExecuTorch's own QNN lowering, recorded by lower.py (issue 33).

    python3 tools/conformance/executorch/lower_compare.py --validate PATH/qnn-validate
        [--data tests/conformance/executorch/lowering/verdicts.json] [--pt2 DIR] [--expected FILE]
        [--rules DIR]... [--modes strict,warn] [--write-expected] [--write-doc [PAGE]]

Standard library only. Each recorded case (model x quantizer x config x SoC, its quantized .pt2
beside the verdicts) is run through `qnn-validate CASE.pt2 --backend htp --soc SOC --format json`
(a .pt2's default lowering path is executorch; checked once per run) in strict mode and with --warn,
and compared with what ExecuTorch did, with the machinery of tools/conformance/models/compare.py:

- node level, over the .pt2's compute nodes (every node but quantize/dequantize): ExecuTorch refused
  a node when an edge node made from it (meta from_node) was refused by its partitioner (the
  backend's validateOpConfig through ExecuTorch's op builders, or no builder) or left out of every
  partition; a node ExecuTorch's passes removed (BatchNorm folded into the conv) is compared only
  when qnn-validate refuses it. FP: qnn-validate refuses, ExecuTorch delegates; FN: the reverse.
- whole graph: all-delegated / partial / lowering-fails (preprocess: graph compile or finalize, or
  the partitioner raising) against qnn-validate's all-qnn / cpu-fallback / session-failure.

The totals are held to --expected (the CTest conformance_executorch_lowering): exit 1 when a figure
is worse, 2 on bad input.
"""
import argparse
import collections
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))
import compare as mc  # noqa: E402  (tools/conformance/models/compare.py)
sys.path.insert(0, HERE)
from run import _save as save  # noqa: E402  (standard library only, like this file)

ROOT = mc.ROOT
DATA = os.path.join(ROOT, "tests", "conformance", "executorch", "lowering")
DOC = os.path.join(ROOT, "docs", "conformance-executorch-lowering.md")
OUTCOME = {"all-delegated": "all-qnn", "partial": "cpu-fallback", "lowering-fails": "session-failure"}
SHORT = {"all-qnn": "A", "cpu-fallback": "P", "session-failure": "F", "unread": "E"}
VALIDATE_CMD = "qnn-validate CASE.pt2 --backend htp --soc SOC --lowering executorch --format json"


def to_cases(verdicts):
    """verdicts.json (lower.py) -> the case list of models/compare.py; cases that did not lower or
    quantize (worker error, timeout) are left out and counted apart."""
    cases, skipped = [], []
    for cid, c in sorted(verdicts["cases"].items()):
        if c.get("outcome") not in OUTCOME:
            skipped.append((cid, c.get("outcome"), c.get("detail")))
            continue
        model, quantizer, config, soc = cid.split("/")
        nodes = []
        for name, v in c["nodes"].items():
            if v["verdict"] == "unchecked":  # the partitioner raised before reaching it
                continue
            msg = "; ".join(v.get("messages", [])) or None
            nodes.append({"name": name, "op": "/".join(v.get("edge_ops", [])) or "(removed)", "domain": "",
                          "placement": {"qnn": "QNN", "cpu": "CPU", "absent": "removed"}[v["verdict"]],
                          "verdict": "rejected" if v.get("unsupported") else "",
                          "message": msg or ("refused by ExecuTorch's partitioner" if v.get("unsupported") else
                                             "outside every partition" if v["verdict"] == "cpu" else None)})
        cases.append({"id": cid, "file": c["pt2"], "soc": soc, "model": model, "quantizer": quantizer,
                      "config": config, "outcome": OUTCOME[c["outcome"]], "nodes": nodes,
                      "session_error": c.get("exception"), "finalize_errors": c.get("backend_errors")})
    return cases, skipped


def unpack(pt2_dir, cases, tmp):
    """The folder qnn-validate reads the cases' .pt2 files from: the data keeps each one gzip-
    compressed (FILE.pt2.gz, about a third of the size; lower.py writes them), unpacked into tmp."""
    for c in cases:
        src, dst = os.path.join(pt2_dir, c["file"]), os.path.join(tmp, c["file"])
        if os.path.exists(dst):
            continue
        if os.path.exists(src):
            os.symlink(os.path.abspath(src), dst)
        elif os.path.exists(src + ".gz"):
            with gzip.open(src + ".gz", "rb") as f, open(dst, "wb") as g:
                shutil.copyfileobj(f, g)
    return tmp


def check_default_lowering(validate, pt2):
    p = subprocess.run([validate, pt2, "--backend", "htp", "--format", "json"], capture_output=True, text=True,
                       env=dict(os.environ, QNNRULES_PATH=""))
    try:
        name = json.loads(p.stdout)["lowering"]["name"]
    except (ValueError, KeyError, TypeError):
        raise mc.InputError(f"qnn-validate wrote no report on {pt2} (exit {p.returncode})")
    if name != "executorch":
        raise mc.InputError(f"qnn-validate's default lowering for .pt2 is {name}, not executorch")


def by_quantizer(per_case):
    groups = collections.defaultdict(list)
    for r in per_case:
        groups[r["case"]["quantizer"]].append(r)
    return dict(sorted(groups.items()))


def suite_lines(verdicts):
    """What the recorded cases cover: models, quantizers, configs, SoCs (from the case ids)."""
    ids = [cid.split("/") for cid in verdicts["cases"]]
    cover = [sorted({p[i] for p in ids}) for i in range(4)]
    return [f"{len(ids)} recorded cases (`tests/conformance/executorch/lowering/suite_plan.txt`, the bias-scale case",
            "added): " + "; ".join(f"{len(c)} {what} ({', '.join(c)})" for c, what in
                                    zip(cover, ("models", "quantizers", "configs", "SoCs"))) + ".",
            "Models: small random-weight CNNs with and without BatchNorm (`cnn_bn`, `cnn_plain`, `mobile_block`), a",
            "segmentation and a detection head (`seg_head`, `det_head`), an MLP, one layer of six `transformers`",
            "families built from configs (BERT, ViT, DistilBERT encoders; GPT-2, Llama, Qwen2 decoders), and probes",
            "of ExecuTorch's rewrites (`act_probe`, `scalar_probe`, `alias_probe`); `tools/conformance/executorch/",
            "lower_models.py`. The .pt2 files are kept gzip-compressed; `lower.py` makes them again deterministically (seeded",
            "weights and calibration)."]


def numeric_section(path):
    """The numeric checks' oracle cases through ONNX Runtime (bias_ort.py), one row per family."""
    if not os.path.exists(path):
        return []
    rec = mc.load(path)
    fam = collections.OrderedDict()
    for cid, r in sorted(rec["cases"].items()):
        family = cid.rsplit("/", 1)[0]
        soc = cid.rsplit("/", 1)[1]
        f = fam.setdefault(family, {"socs": [], "oracle": set(), "qv": set()})
        f["socs"].append(soc)
        f["oracle"].add(r["oracle"])
        qv = r.get("qnn_validate") or {}
        f["qv"].add(", ".join(qv.get("errors") or []) or ("—" if qv else "not run"))
    L = ["", "## Numeric checks through ONNX Runtime (oracle cases)", "",
         "One ONNX Conv (uint8 activations, int8 weights, int32 bias) through ONNX Runtime's QNN EP on the real",
         "backend, one quantity varied (`tools/conformance/executorch/bias_ort.py`, recorded in",
         "`tests/conformance/executorch/lowering/numeric_ort.json`); the backend's verdict (op validation and graph",
         "finalize), and qnn-validate's errors on the same file (ORT path).", "",
         "| case | SoCs | backend | qnn-validate errors |", "|---|---|---|---|"]
    unenforced = set()
    for family, f in fam.items():
        L.append(f"| `{family}` | {', '.join(f['socs'])} | {', '.join(sorted(f['oracle']))} | "
                 f"{'; '.join(sorted(f['qv']))} |")
        if f["oracle"] == {"accepted"}:
            unenforced |= {c for q in f["qv"] for c in q.split(", ") if c not in ("—", "not run")}
    if unenforced:
        L += ["", "Checks the backend does not enforce (every case accepted and finalized) that qnn-validate reports as",
              f"errors: {', '.join(f'`{c}`' for c in sorted(unenforced))}. With the ExecuTorch cases",
              "`conv_bias/executorch/8a8w@bias=F/SM8650` above (the conv delegated and finalized), `bias-scale` is",
              "enforced by neither path: such a check belongs among the warnings (the engine's NumericChecks)."]
    return L


def why(w):
    """The first backend error or exception of a lowering that still fails."""
    if w["outcome"] != "lowering-fails":
        return ""
    first = (w.get("backend_errors") or [w.get("exception") or ""])
    return f" ({first[0][:90]})" if first and first[0] else ""


def skips_section(path):
    """The skip sets of qnnrules.executorch measured on a failing lowering (skips.json)."""
    if not os.path.exists(path):
        return []
    rec = mc.load(path)
    L = ["", "## Skip sets (qnnrules.executorch)", "",
         "`qnnrules.executorch.skip_sets(report, program=...)` names the edge nodes ExecuTorch makes from the nodes the",
         "verdict leaves on CPU; `to_edge_transform_and_lower_to_qnn(..., skip_node_id_set=...)` then keeps them on",
         "CPU. Measured (`tools/conformance/executorch/skip_cases.py`, `tests/conformance/executorch/lowering/skips.json`)",
         "on the suite's failing lowerings, with the verdict qnn-validate gives (it checks every path behaviour",
         "`rules/lowering/executorch.yaml` states; skip_cases.py's own list of them adds nothing now), or nodes forced",
         "into the set (`--refuse`) to see what skipping them does. A node listed as blocking fails the lowering",
         "whatever is skipped (an op ExecuTorch keeps from decomposition, a parameter's dequantize): the verdict",
         "is then SESSION FAILS and no skip set helps:", "",
         "| case | without | refused by qnn-validate | refused by skip_cases.py's list (or forced) | with the skip set |",
         "|---|---|---|---|---|"]
    for cid, c in sorted(rec["cases"].items()):
        w, v = c["with"], c["verdict"]
        skipped = (w.get("skips") or {}).get("node_ids") or []
        L.append(f"| `{cid}` | {c['without']['outcome']} ({c['without'].get('stage')}) | "
                 f"{', '.join(v['qnn_validate_refused']) or '— (' + str(v['qnn_validate']) + ')'} | "
                 f"{', '.join(v['proposed_refused']) or '—'} | {w['outcome']}, {w['partitions']} partition(s), "
                 f"{len(skipped)} edge node(s) skipped{why(w)}; blocking: "
                 f"{', '.join(sorted((w.get('skips') or {}).get('blocking') or {})) or 'none'} |")
    return L


def write_doc(path, results, verdicts, skipped, expected_path):
    L = ["# Conformance: ExecuTorch's own QNN lowering as the oracle", "",
         "Generated by `tools/conformance/executorch/lower_compare.py --write-doc` from",
         "`tests/conformance/executorch/lowering/verdicts.json` (recorded by",
         "`scripts/conformance-executorch.sh`, i.e. `tools/conformance/executorch/lower.py`). Do not edit.", "",
         "## How the oracle runs", "",
         "ExecuTorch's `to_edge_transform_and_lower_to_qnn` runs for real on this x86 machine: its partitioner",
         "asks the backend about each node (`QnnOperatorSupport.is_node_supported` → its op builders →",
         "`QnnBackend_validateOpConfig`) and its `preprocess` compiles and finalizes the graph into a context",
         "binary, on the x86 `libQnnHtp.so` (QAIRT 2.51) of the onnxruntime-qnn wheel, for SM8350 … SM8850.",
         "",
         "One obstacle was in the way and is bridged by a test-only interposer",
         "(`tools/conformance/executorch/shim/`): the executorch 1.5.1 wheel was compiled against QNN 2.37",
         "headers, in which `QnnHtpDevice_CustomConfig_t`'s payload union starts at offset 4; QAIRT 2.51's",
         "union holds a pointer (`htpExtension`), so it is 8-byte aligned and starts at offset 8. ExecuTorch",
         "writes `socModel` at offset 4 (pytorch/executorch",
         "`backends/qualcomm/runtime/backends/htp/host/HtpDeviceCustomConfig.cpp`), the library reads 0 at 8:",
         "`Failed to set scatter gather parameters: unknown custom config socModel 0`, error 14001, no",
         "device. ONNX Runtime's QNN EP, compiled against the new headers, passes the same config fine. The",
         "shim forwards `QnnInterface_getProviders` to the real library and re-lays the device custom configs",
         "out (and drops ExecuTorch's platform-info config, which the x86 library replaces by its default,",
         "as under ORT). Graph and context configs are unchanged (their layout did not move). Measured with",
         "a direct C-API probe: the same SoC config at offset 8 creates the device (\"Client set SoC 57\").",
         "The library logs `unexpected GraphHtpSettings option 66` once per graph under ExecuTorch; it is its",
         "own internal setting, the graph still finalizes (status 0).", "",
         "## Suite", ""] + suite_lines(verdicts) + ["", "## Figures", ""]
    if skipped:
        L.append(f"{len(skipped)} recorded case(s) did not run to a verdict and are not compared: "
                 + ", ".join(f"`{c}` ({o})" for c, o, _ in skipped) + ".")
        L.append("")
    L.append("| mode | quantizer | nodes agree | FP | FN | whole graph agree |")
    L.append("|---|---|---|---|---|---|")
    for m, per_case in results.items():
        for q, group in [("all", per_case)] + list(by_quantizer(per_case).items()):
            t = mc.totals(group)
            L.append(f"| {m} | {q} | {t['agree']}/{t['nodes']} ({mc.pct(t['agree'], t['nodes'])}) | {t['fp']} | "
                     f"{t['fn']} | {t['graph_agree']}/{t['graphs']} ({mc.pct(t['graph_agree'], t['graphs'])}) |")
    L += ["", "## Per case", "",
          "Outcome: A all delegated, P partial, F lowering fails. Cell: ExecuTorch / qnn-validate strict, warn"
          " · FP/FN strict.", "",
          "| case | ExecuTorch | qnn-validate | FP/FN | partitions | ExecuTorch refused |", "|---|---|---|---|---|---|"]
    warn = {r["case"]["id"]: r for r in results.get("warn", [])}
    for r in results["strict"]:
        c, st = r["case"], mc.totals([r])
        w = warn.get(c["id"])
        v = verdicts["cases"][c["id"]]
        refused = [n["name"] for n in c["nodes"] if n["placement"] == "CPU"]
        L.append(f"| `{c['id']}` | {SHORT[c['outcome']]} | {SHORT[r['pred']['outcome']]}"
                 f"{', ' + SHORT[w['pred']['outcome']] if w else ''} | {st['fp']}/{st['fn']} | {v.get('partitions')} | "
                 f"{', '.join(refused) or '—'} |")
    bias = [r for r in results["strict"] if "@bias=" in r["case"]["id"]]
    if bias:
        L += ["", "## Bias scale (oracle case)", "",
              "One conv quantized by ExecuTorch's QnnQuantizer (8a8w), its int32 bias requantized after",
              "convert_pt2e to scale = F × the recorded one (the float bias kept), F = 0.5, 1, 2; lowered by ExecuTorch,",
              "whose conv builder hands the bias encoding to QNN unchanged.", "",
              "| case | ExecuTorch | conv on HTP | qnn-validate strict | qnn-validate's reason |", "|---|---|---|---|---|"]
        for r in bias:
            c = r["case"]
            conv = [n for n in c["nodes"] if "conv" in n["op"]]
            why = "; ".join(sorted({row["code"] or row["reason"] for row in r["rows"] if row.get("code") or row.get("reason")}))
            L.append(f"| `{c['id']}` | {SHORT[c['outcome']]} | {', '.join(n['placement'] for n in conv) or '—'} | "
                     f"{SHORT[r['pred']['outcome']]} | {why or '—'} |")
    L += numeric_section(os.path.join(os.path.dirname(os.path.abspath(expected_path)), "numeric_ort.json"))
    L += skips_section(os.path.join(os.path.dirname(os.path.abspath(expected_path)), "skips.json"))
    for m, per_case in results.items():
        L += ["", f"## Disagreement classes ({m})", ""]
        cl = mc.classes(per_case)
        if not cl:
            L.append("None.")
            continue
        L += ["| count | kind | op | qnn-validate | message | example |", "|---|---|---|---|---|---|"]
        for (kind, op, why, msg), e in cl:
            L.append(f"| {e['count']} | {kind} | {op} | {why} | {msg} | {e['example']} |")
        causes = mc.graph_causes(per_case)
        if causes:
            L += ["", "Whole-graph disagreements (ExecuTorch, qnn-validate, cause): "
                  + "; ".join(f"{b} vs {p}: {cause} ({n})" for (b, p, cause), n in causes)]
    L += ["", "## Commands", "",
          "- Record (needs the venv of `scripts/setup.sh`; 30-120 s per quantization and lowering on 2 cores):",
          "  `scripts/conformance-executorch.sh` (the cases of `tests/conformance/executorch/lowering/suite_plan.txt`,",
          "  a failing lowering retried with the skip sets; or options of `tools/conformance/executorch/lower.py`,",
          "  e.g. `--cases cnn_bn/qnnrules/8a8w/SM8650` or `--models cnn_bn --configs 8a8w --socs SM8650`).",
          f"- Compare: `python3 tools/conformance/executorch/lower_compare.py --validate build/tools/qnn-validate/"
          f"qnn-validate --write-doc` (per case `{VALIDATE_CMD}`, strict and `--warn`).",
          f"- Gate: CTest `conformance_executorch_lowering` holds the figures of `{os.path.relpath(expected_path, ROOT)}`.",
          "", "## Versions", ""]
    for k, val in sorted(verdicts.get("versions", {}).items()):
        L.append(f"- {k}: {val}")
    L.append("")
    mc.write_page(path, L)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--validate", required=True)
    ap.add_argument("--data", default=os.path.join(DATA, "verdicts.json"))
    ap.add_argument("--pt2", default=os.path.join(DATA, "pt2"))
    ap.add_argument("--expected", default=os.path.join(DATA, "expected.json"))
    ap.add_argument("--rules", action="append", default=[])
    ap.add_argument("--modes", default=",".join(mc.MODES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--write-expected", action="store_true")
    ap.add_argument("--write-doc", nargs="?", const=DOC, default=None)
    a = ap.parse_args(argv)
    modes = a.modes.split(",")
    try:
        verdicts = mc.load(a.data)
        cases, skipped = to_cases(verdicts)
        if not cases:
            raise mc.InputError(f"{a.data}: no case with a verdict")
        with tempfile.TemporaryDirectory(prefix="et-lowering-") as tmp:
            pt2_dir = unpack(a.pt2, cases, tmp)
            check_default_lowering(a.validate, os.path.join(pt2_dir, cases[0]["file"]))
            results = mc.measure(a.validate, {"cases": cases}, pt2_dir, a.rules, modes, a.jobs)
        expected = None if a.write_expected else mc.load(a.expected)
    except (mc.InputError, KeyError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    mc.print_summary(results, {"cases": cases})
    for cid, outcome, detail in skipped:
        print(f"not compared: {cid} ({outcome}: {detail})")
    if a.write_doc:
        write_doc(a.write_doc, results, verdicts, skipped, a.expected)
        print(f"wrote {os.path.relpath(a.write_doc, ROOT)}")
    if a.write_expected:
        figures = {m: mc.totals(per_case) for m, per_case in results.items()}
        figures["note"] = ("figures measured by tools/conformance/executorch/lower_compare.py with the rules of the "
                           "commit that wrote this file; the CTest conformance_executorch_lowering fails when one gets worse")
        save(figures, a.expected)
        print(f"wrote {os.path.relpath(a.expected, ROOT)}")
        return 0
    problems, better = mc.check(results, expected, False)
    for b in better:
        print(f"IMPROVED {b}: update {os.path.relpath(a.expected, ROOT)} (--write-expected)")
    for p in problems:
        print(f"REGRESSION {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
