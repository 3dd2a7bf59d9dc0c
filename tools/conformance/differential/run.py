"""The graph differential tester's loop: random graphs against the real HTP backend for N minutes.

  PYTHONPATH=tools .venv/bin/python -m conformance.differential.run --minutes N [--seed S]
      [--socs SM8350,SM8650,SM8850] [--configs 8a8w,8a8w_pc,16a8w,16a16w] [--cap 300]
Per graph: draw it (generate.py; invalid draws are discarded and counted), quantize it with ONNX
Runtime's QNN workflow (models/build.quantize) in a configuration drawn from --configs, run one
oracle session per SoC (models/run.run_case) and qnn-validate in strict and warn mode
(models/compare.py's comparison), and group the disagreements into kinds (check.py). The first
time a kind is seen it is minimized (minimize.py, at most --cap seconds) on the SoC that showed it,
and the reproducer is recorded, on every SoC of the run, in tests/conformance/differential/
(data.py). Graphs on which every SoC agrees in both modes are kept as an agreeing sample while
they are small and add ops the sample lacks (at most --samples graphs).

Resumable: the run of a seed continues where it stopped (runs.json's next_graph) until its total
time reaches --minutes; everything is written after each graph. At the end it writes expected.json
(models/compare.py --write-expected over the recorded cases) and the page (doc.py).
One line per graph on stderr. Run it under `nice`: it is one process, one session at a time.
"""
import argparse
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import time

from .. import oracle as unit_oracle
from ..models import compare
from ..models.build import CONFIGS, quantize
from . import check, data, doc, generate, mechanisms, minimize

DEFAULT_SOCS = "SM8350,SM8650,SM8850"
SAMPLE_MAX_BYTES = 12_000
SAMPLE_OP_COVERAGE = 3  # a sample graph must add an op the sample has fewer than 3 graphs of


def header(socs):
    return {"backend": "htp", "versions": unit_oracle.versions(),
            "session": {"graph_optimization_level": "ORT default (ORT_ENABLE_ALL)", "ep.context_enable": "1",
                        "provider": "QNN plugin EP, libQnnHtp.so"},
            "socs": socs, "generator": "tools/conformance/differential (issue 32)"}


def compute_ops(path):
    import onnx
    return sorted({n.op_type for n in onnx.load(path).graph.node
                   if n.op_type not in ("QuantizeLinear", "DequantizeLinear")})


class Loop:
    def __init__(self, a):
        self.a, self.store = a, data.Store(a.out)
        self.socs, self.configs = a.socs.split(","), a.configs.split(",")
        self.run = self.store.run_for(a.seed, self.socs, self.configs, a.minutes)
        self.head = header(sorted(set(self.socs) | set((self.store.header or {}).get("socs", []))))
        self.tmp = tempfile.mkdtemp(prefix="qnnrules-differential-")
        self.log = open(os.path.join(a.work, f"cases.s{a.seed}.jsonl"), "a")

    def record(self, rid, qpath, config, soc_results, extra):
        """Copies a quantized graph into the data and adds its cases (one per SoC)."""
        f = f"{rid}.{config}.onnx"
        shutil.copyfile(qpath, os.path.join(self.store.onnx, f))
        self.store.add({"id": f"{rid}/{config}/{soc}", "model": rid, "config": config, "file": f,
                        "differential": extra, **case} for soc, case in soc_results.items())

    def minimize_kind(self, kind, gid, gseed, config, soc):
        m = self.run["minimization"]
        spec, checks, seconds = minimize.minimize(gseed, config, soc, kind, self.a.validate, self.a.cap)
        m["sessions"] += checks
        m["seconds"] = round(m["seconds"] + seconds, 1)
        k = self.run["kinds"][kind]
        if spec is None:
            m["failed"] += 1
            k["minimize_failed"] = k.get("minimize_failed", 0) + 1
            return
        m["findings"] += 1
        rid = f"{gid}-{len(self.store.reproducers()) + 1}"
        fp, qp = os.path.join(self.tmp, "mf.onnx"), os.path.join(self.tmp, "mq.onnx")
        b = generate.build(fp, gseed, **spec)
        quantize(fp, qp, config, gseed)
        results = {}
        for s in self.socs:
            try:
                results[s] = check.oracle(qp, s)
            except check.OracleTimeout:
                pass
        self.record(rid, qp, config, results, {
            "role": "reproducer", "kind": kind, "soc": soc, "graph": gid, "seed": gseed, "spec": spec,
            "nodes": len(b.nodes), "minimize": {"checks": checks, "seconds": round(seconds, 1)}})
        k["reproducer"] = rid

    def maybe_sample(self, gid, gseed, config, qp, results):
        samples = self.store.samples()
        if len(samples) >= self.a.samples or os.path.getsize(qp) > SAMPLE_MAX_BYTES:
            return
        have = {}
        for c in self.store.cases.values():
            if c.get("differential", {}).get("role") == "agreement" and c["soc"] == self.socs[0]:
                for n in c["nodes"]:
                    have.setdefault(n["op"], set()).add(c["model"])
        if any(len(have.get(op, ())) < SAMPLE_OP_COVERAGE for op in compute_ops(qp)):
            self.record(gid, qp, config, results, {"role": "agreement", "graph": gid, "seed": gseed,
                                                    "spec": {"scale": 1, "lower": 0, "skip": []}})

    def count(self, kind, modes, case_id, first_in_graph):
        """Adds one case showing `kind` to the run's figures of that kind."""
        gid, config, soc = case_id.split("/")
        k = self.run["kinds"].setdefault(kind, {"cases": 0, "graphs": 0, "socs": [], "configs": [], "modes": [],
                                                "first": case_id, "mechanism": mechanisms.guess(kind),
                                                "reproducer": None})
        k["cases"] += 1
        k["graphs"] += first_in_graph
        k["socs"] = sorted(set(k["socs"]) | {soc})
        k["configs"] = sorted(set(k["configs"]) | {config})
        k["modes"] = sorted(set(k["modes"]) | modes)

    def graph(self, i):
        r, t0 = self.run, time.time()
        gid, gseed = f"s{self.a.seed}g{i}", generate.graph_seed(self.a.seed, i)
        r["graphs"]["drawn"] += 1
        fp, qp = os.path.join(self.tmp, "f.onnx"), os.path.join(self.tmp, "q.onnx")
        try:
            b = generate.build(fp, gseed)
        except generate.Invalid as e:
            r["graphs"]["discarded"][e.reason] = r["graphs"]["discarded"].get(e.reason, 0) + 1
            return f"{gid}: discarded ({e.reason})"
        r["graphs"]["valid"] += 1
        config = random.Random(gseed).choice(self.configs)
        try:
            quantize(fp, qp, config, gseed)
        except Exception as e:  # ORT's quantizer fails on some valid graphs: counted, not a finding
            r["graphs"]["quantize_failed"] += 1
            return f"{gid} {config}: quantization failed ({type(e).__name__}: {str(e)[:120]})"
        results, found, line = {}, {}, []
        for soc in self.socs:
            try:
                case, preds, kinds = check.run(self.a.validate, qp, soc)
            except check.OracleTimeout:
                # The backend hangs: no verdict to compare. Listed; the graph's other SoCs are
                # skipped, since a hang costs SESSION_TIMEOUT per SoC.
                r.setdefault("oracle_timeouts", []).append(f"{gid}/{config}/{soc}")
                line.append(f"{soc} timed out")
                break
            r["oracle_cases"] += 1
            check.tally(case, preds, r["agreement"])
            results[soc] = case
            line.append(f"{soc} {check.SHORT[case['outcome']]}/{check.SHORT[preds['strict']['outcome']]}"
                        + (f" {len(kinds)} kind(s)" if kinds else ""))
            for kind, e in kinds.items():
                self.count(kind, e["modes"], f"{gid}/{config}/{soc}", first_in_graph=kind not in found)
                found.setdefault(kind, soc)
        self.log.write(json.dumps({"graph": gid, "config": config, "steps": b.steps, "nodes": b.emitted,
                                   "cases": {s: {"outcome": c["outcome"], "error": c["session_error"]} for s, c in results.items()},
                                   "kinds": {k: s for k, s in found.items()}}) + "\n")
        self.log.flush()
        new = [k for k in found if k not in self.store.reproducers()]
        for kind in new:
            if (r["kinds"][kind].get("minimize_failed", 0) < 3
                    and r["minimization"]["seconds"] <= self.a.minimize_share * r["minutes"] * 60 + self.a.cap):
                self.minimize_kind(kind, gid, gseed, config, found[kind])
        if not found and len(results) == len(self.socs):
            self.maybe_sample(gid, gseed, config, qp, results)
        return (f"{gid} {config} {b.emitted} nodes: " + ", ".join(line) + f" · {time.time() - t0:.1f} s"
                + (f" · {len(new)} new kind(s)" if new else "") + f" · kinds {len(r['kinds'])}")

    def loop(self):
        """Until the run's time is spent; time spent waiting for qnn-validate (being rebuilt) is
        not counted: the minutes are the tester's."""
        r, start, spent = self.run, time.time(), self.run["minutes"] * 60
        r["status"] = "running"
        note = self.a.validate_note or self.a.validate
        if note not in r.setdefault("validate", []):
            r["validate"].append(note)

        def elapsed():
            return spent + time.time() - start - check.waited

        while elapsed() < self.a.minutes * 60:
            i = r["next_graph"]
            msg = self.graph(i)
            r["next_graph"] = i + 1
            r["minutes"] = round(elapsed() / 60, 2)
            self.store.save(self.head)
            print(f"[{r['minutes']:.1f} min] {msg}", file=sys.stderr, flush=True)
        r["status"] = "done"
        self.store.save(self.head)
        shutil.rmtree(self.tmp, ignore_errors=True)


def finish(a):
    """The mechanism guesses refreshed (mechanisms.py learns from the runs), expected.json from the
    recorded cases, then the page."""
    d = data.Store(a.out)
    for r in d.runs["runs"]:
        for kind, k in r["kinds"].items():
            k["mechanism"] = mechanisms.guess(kind)
    d.save(d.header)
    expected = os.path.join(a.out, "expected.json")
    compare.main(["--validate", a.validate, "--data", d.verdicts_path, "--onnx", d.onnx,
                  "--expected", expected, "--write-expected", "--quiet"])
    with open(expected) as f:  # compare.py's note names the model suite's test
        e = json.load(f)
    e["note"] = ("figures measured by tools/conformance/models/compare.py with the rules of the commit that wrote "
                 "this file; the CTest conformance_differential fails when a figure gets worse")
    with open(expected, "w") as f:
        json.dump(e, f, indent=1, sort_keys=True)
        f.write("\n")
    doc.main(["--validate", a.validate, "--data-dir", a.out, "--out", a.doc])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=None, help="total time of this seed's run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--socs", default=DEFAULT_SOCS)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--cap", type=float, default=300, help="seconds of minimization per finding")
    ap.add_argument("--minimize-share", type=float, default=0.5,
                    help="minimize only while minimization took less than this share of the run")
    ap.add_argument("--samples", type=int, default=40, help="agreeing graphs to keep")
    ap.add_argument("--validate", default=check.validate_path())
    ap.add_argument("--validate-note", default=None,
                    help="what --validate is, for runs.json (e.g. a copy of the build's binary and rules)")
    ap.add_argument("--out", default=data.DATA)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "qnnrules-differential"),
                    help="per-case log (cases.s<seed>.jsonl)")
    ap.add_argument("--doc", default=doc.DOC, help="the page to write at the end")
    ap.add_argument("--no-finish", action="store_true", help="skip expected.json and the page at the end")
    ap.add_argument("--finish-only", action="store_true", help="only write expected.json and the page")
    a = ap.parse_args(argv)
    if a.minutes is None and not a.finish_only:
        ap.error("--minutes is required (or --finish-only)")
    unknown = [s for s in a.socs.split(",") if s not in check.SOC_IDS] + \
        [c for c in a.configs.split(",") if c not in CONFIGS]
    if unknown:
        ap.error(f"unknown SoC or config: {', '.join(unknown)}")
    os.makedirs(a.work, exist_ok=True)
    logging.getLogger().setLevel(logging.ERROR)  # the quantizer's advice, once per graph
    if not a.finish_only:
        Loop(a).loop()
    if not a.no_finish:
        finish(a)


if __name__ == "__main__":
    main()
