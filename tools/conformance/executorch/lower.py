"""ExecuTorch's own QNN lowering as an oracle (issue 33): quantize, lower on the real HTP backend,
record per node and per graph what ExecuTorch did.

    scripts/conformance-executorch.sh [lower.py options]        # one command from a fresh checkout
    .venv/bin/python tools/conformance/executorch/lower.py [--models cnn_bn,mlp] [--quantizers executorch,qnnrules]
        [--configs 8a8w,16a8w] [--socs SM8350,SM8550,SM8650,SM8750,SM8850] [--bias-case] [--timeout 900]

The environment is made here (lower_env.py: the wheel's x86 QNN libraries behind the shim/
interposer). Every step runs in its own process with a timeout (lower_worker.py): quantize once per
(model, quantizer, config) into BUILD/pt2/*.pt2, then lower once per SoC. Raw records go to
BUILD/records/; the summary (per case: outcome, partitions, context-binary sizes, per .pt2 compute
node the verdict and the backend's messages) is merged into tests/conformance/executorch/lowering/
verdicts.json, and the .pt2 files are kept beside it, gzip-compressed (lower_compare.py unpacks
them for qnn-validate). Cases are named MODEL/QUANTIZER/CONFIG[@bias=F]/SOC.
"""

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lower_env  # noqa: E402
from run import _save as save  # noqa: E402  (the ExecuTorch quantizer comparison's writer)

ROOT = lower_env.ROOT
DATA = os.path.join(ROOT, "tests", "conformance", "executorch", "lowering")
SOCS = ["SM8350", "SM8550", "SM8650", "SM8750", "SM8850"]
BIAS_FACTORS = [0.5, 1.0, 2.0]
WORKER = os.path.join(HERE, "lower_worker.py")


def run(cmd, env, timeout, log):
    """(exit code or "timeout", last stdout line) of a worker process."""
    with open(log, "w") as f:
        try:
            p = subprocess.run(cmd, env=env, timeout=timeout, stdout=subprocess.PIPE, stderr=f, text=True)
        except subprocess.TimeoutExpired:
            return "timeout", ""
    lines = p.stdout.strip().splitlines()
    return p.returncode, (lines[-1] if lines else "")


def edge_op(target):
    """"aten.hardtanh.default" of "<EdgeOpOverload: aten.hardtanh.default>: schema = ..."."""
    m = re.search(r"EdgeOpOverload: ([^>]+)>", target)
    return m.group(1) if m else target.split(" ")[0]


def node_verdicts(raw):
    """Per .pt2 compute node: qnn (every edge node made from it delegated), cpu (one is not: the
    partitioner refused it, or it sits outside every partition), absent (ExecuTorch's passes left no
    node made from it), with the messages the backend wrote while checking it. When the partitioner
    raised (the lowering fails there), a node is qnn when the partitioner accepted it."""
    by_origin = {n: [] for n in raw.get("pt2_compute_nodes", [])}
    for e in raw.get("nodes", []):
        if e.get("qdq"):
            continue
        # The oldest origin that is a .pt2 compute node: a decomposition names its nodes after
        # what they became (relu6 -> a node "hardtanh"), which may be another .pt2 node's name
        # (act_probe has both); the .pt2 node itself ends the from_node chain.
        home = next((o for o in reversed(e.get("origin", [])) if o in by_origin), None)
        if home is not None:
            by_origin[home].append(e)
    # When the partitioner itself raised, no node was placed: a node's verdict is then what the
    # partitioner said of it (the one that raised is refused), not its missing partition.
    raised = raw.get("outcome") == "failed" and raw.get("stage") == "partition"
    out = {}
    for name, edges in by_origin.items():
        if not edges:
            # After a raise, a node the partitioner never reached has no verdict at all.
            out[name] = {"verdict": "unchecked" if raised else "absent"}
            continue
        refused = [e for e in edges if not e.get("supported") or (not raised and not e.get("partition"))]
        v = {"verdict": "cpu" if refused else "qnn",
             "edge_ops": sorted({edge_op(e["target"]) for e in edges})}
        msgs = [m for e in refused for m in (e.get("messages") or []) + ([e["exception"]] if e.get("exception") else [])]
        if refused:
            v["refused_edge_nodes"] = [e["name"] for e in refused]
            v["unsupported"] = any(e.get("supported") is False for e in refused)
        if msgs:
            v["messages"] = msgs[:6]
        out[name] = v
    return out


def summarize(raw, worker_status):
    s = {"outcome": None, "seconds": raw.get("seconds")}
    if raw.get("outcome") in (None, "error") or worker_status not in (0,):
        s["outcome"] = "error"
        s["detail"] = raw.get("exception") or f"worker exit {worker_status}"
        return s
    s["nodes"] = node_verdicts(raw)
    s["partitions"] = raw.get("partitions", 0)
    if raw["outcome"] == "failed":
        s["outcome"] = "lowering-fails"
        s["stage"] = raw.get("stage")
        s["exception"] = raw.get("exception")
    else:
        cpu = [n for n, v in s["nodes"].items() if v["verdict"] == "cpu"]
        s["outcome"] = "partial" if cpu else "all-delegated"
        s["context_binary_bytes"] = raw.get("context_binaries")
    if raw.get("backend_errors"):
        s["backend_errors"] = raw["backend_errors"]
    return s


def lower_with_skips(a, env, pt2, model, soc, stem):
    """The case lowered again with the skip sets of qnnrules.executorch made from qnn-validate's
    strict report on the .pt2 for SOC: {outcome, partitions, skipped edge nodes, cpu nodes}."""
    report = os.path.join(a.build, "records", f"{stem}.{soc}.qnn-validate.json")
    p = subprocess.run([a.validate, pt2, "--backend", "htp", "--soc", soc, "--format", "json"], capture_output=True,
                       text=True, env=dict(env, QNNRULES_PATH=""))
    with open(report, "w") as f:
        f.write(p.stdout)
    rec = os.path.join(a.build, "records", f"{stem}.{soc}.skips.json")
    rc, _ = run([sys.executable, WORKER, "lower", pt2, model, soc, rec, "--skips", report], env, a.timeout,
                os.path.join(a.build, "logs", f"{stem}.{soc}.skips.lower.log"))
    raw = load(rec) if rc != "timeout" else {"outcome": "error", "exception": "timeout"}
    s = summarize(raw, rc)
    out = {"outcome": s["outcome"], "partitions": s.get("partitions"), "skips": raw.get("skips"),
           "cpu": sorted(n for n, v in s.get("nodes", {}).items() if v["verdict"] == "cpu")}
    if s.get("exception") or s.get("detail"):
        out["exception"] = s.get("exception") or s.get("detail")
    print(f"{stem} {soc} with skips: {out['outcome']} partitions={out['partitions']} skipped={(out['skips'] or {}).get('node_ids')}",
          flush=True)
    return out


def store_pt2(pt2, dest):
    """The data keeps a .pt2 gzip-compressed (DEST.gz; mtime 0, so the bytes depend on the .pt2 only):
    about a third of the size. lower_compare.py unpacks it."""
    with open(pt2, "rb") as f, open(dest + ".gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                                          filename="") as g:
        shutil.copyfileobj(f, g)
    if os.path.exists(dest):
        os.remove(dest)


def load(path):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def versions():
    from importlib import metadata
    return {p: metadata.version(p) for p in ("executorch", "torch", "torchao", "onnxruntime-qnn", "transformers")}


def plan(a):
    """[(model, quantizer, config, bias factor or None, [SoC, ...])]: one quantization each, lowered
    on each SoC. --cases MODEL/QUANTIZER/CONFIG/SOC,... names cases one by one (the suite's plan,
    suite_plan.txt, is such a list); otherwise the product of --models, --quantizers, --configs
    and --socs."""
    jobs = {}
    if a.cases:
        names = a.cases.split(",")
        if len(names) == 1 and os.path.exists(names[0]):
            with open(names[0]) as f:
                names = [ln.split("#")[0].strip() for ln in f if ln.split("#")[0].strip()]
        for cid in names:
            model, quantizer, config, soc = cid.split("/")
            jobs.setdefault((model, quantizer, config, None), []).append(soc)
    else:
        for model in a.models.split(","):
            for quantizer in a.quantizers.split(","):
                for config in a.configs.split(","):
                    jobs[(model, quantizer, config, None)] = a.socs.split(",")
    if a.bias_case:
        for f in BIAS_FACTORS:
            jobs[("conv_bias", "executorch", "8a8w", f)] = a.bias_socs.split(",")
    return [k + (socs,) for k, socs in jobs.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="cnn_bn,mlp,bert_layer,llama_layer")
    ap.add_argument("--quantizers", default="executorch,qnnrules")
    ap.add_argument("--configs", default="8a8w,16a8w")
    ap.add_argument("--socs", default=",".join(SOCS))
    ap.add_argument("--cases", default=None,
                    help="MODEL/QUANTIZER/CONFIG/SOC,... or a file of such lines (e.g. suite_plan.txt)")
    ap.add_argument("--bias-case", action="store_true", help="also the bias-scale oracle case (conv, 0.5x/1x/2x)")
    ap.add_argument("--bias-socs", default="SM8650")
    ap.add_argument("--build", default=lower_env.DEFAULT_BUILD, help="scratch: shim, QNN folder, pt2, raw records")
    ap.add_argument("--python-path", default=os.path.join(ROOT, "build-et", "python"),
                    help="where the qnnrules module is built (the qnnrules quantizer)")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--reuse", action="store_true", help="keep .pt2 files already made")
    ap.add_argument("--with-skips", nargs="?", const="failing", default=None, choices=["failing", "all"],
                    help="lower a case whose lowering fails (or every case: all) again with the skip sets of "
                         "qnnrules.executorch made from qnn-validate's report (--validate)")
    ap.add_argument("--validate", default=os.path.join(ROOT, "build", "tools", "qnn-validate", "qnn-validate"))
    ap.add_argument("--resummarize", action="store_true",
                    help="rebuild the recorded summaries from BUILD/records (nothing runs)")
    a = ap.parse_args()
    if a.resummarize:
        vpath = os.path.join(a.data, "verdicts.json")
        doc = load(vpath)
        for cid, s in doc["cases"].items():
            rec = os.path.join(a.build, "records", s.get("pt2", "")[:-len(".pt2")] + "." + cid.split("/")[-1] + ".json")
            if s.get("pt2") and os.path.exists(rec):
                doc["cases"][cid] = dict(summarize(load(rec), 0), pt2=s["pt2"])
        save(doc, vpath)
        return

    env = lower_env.prepare(a.build)
    env["PYTHONPATH"] = os.pathsep.join([a.python_path] + [p for p in [env.get("PYTHONPATH")] if p])
    qenv = dict(env, EXECUTORCH_BUILDING_WHEEL="1")
    for d in ("pt2", "records", "logs"):
        os.makedirs(os.path.join(a.build, d), exist_ok=True)
    os.makedirs(os.path.join(a.data, "pt2"), exist_ok=True)
    vpath = os.path.join(a.data, "verdicts.json")
    doc = load(vpath)
    doc.setdefault("cases", {})
    doc["versions"] = versions()
    total = time.time()
    for model, quantizer, config, bias, socs in plan(a):
        tag = f"{config}@bias={bias:g}" if bias is not None else config
        stem = f"{model}.{quantizer}.{tag.replace('@', '.').replace('=', '')}"
        pt2 = os.path.join(a.build, "pt2", stem + ".pt2")
        if not (a.reuse and os.path.exists(pt2)):
            cmd = [sys.executable, WORKER, "quantize", model, quantizer, config, pt2]
            if bias is not None:
                cmd += ["--bias-scale", str(bias)]
            rc, out = run(cmd, qenv, a.timeout, os.path.join(a.build, "logs", stem + ".quantize.log"))
            if rc != 0:
                print(f"{stem}: quantize failed ({rc}), see {a.build}/logs/{stem}.quantize.log", flush=True)
                with open(os.path.join(a.build, "logs", stem + ".quantize.log"), errors="replace") as f:
                    tail = [ln.strip() for ln in f if ln.strip()][-1:]
                for soc in socs:
                    doc["cases"][f"{model}/{quantizer}/{tag}/{soc}"] = {
                        "outcome": "quantize-fails", "detail": f"{rc}: {tail[0][:300]}" if tail else str(rc)}
                save(doc, vpath)
                continue
            print(f"{stem}: quantized {out}", flush=True)
        store_pt2(pt2, os.path.join(a.data, "pt2", stem + ".pt2"))
        for soc in socs:
            rec = os.path.join(a.build, "records", f"{stem}.{soc}.json")
            rc, out = run([sys.executable, WORKER, "lower", pt2, model, soc, rec], env, a.timeout,
                          os.path.join(a.build, "logs", f"{stem}.{soc}.lower.log"))
            raw = load(rec) if rc != "timeout" else {"outcome": "error", "exception": "timeout"}
            s = summarize(raw, rc)
            s["pt2"] = stem + ".pt2"
            if a.with_skips and (s["outcome"] == "lowering-fails" or a.with_skips == "all"):
                s["with_skips"] = lower_with_skips(a, env, pt2, model, soc, stem)
            doc["cases"][f"{model}/{quantizer}/{tag}/{soc}"] = s
            save(doc, vpath)
            print(f"{stem} {soc}: {s['outcome']} partitions={s.get('partitions')} "
                  f"cpu={[n for n, v in s.get('nodes', {}).items() if v['verdict'] == 'cpu']} {s.get('seconds')} s",
                  flush=True)
    print(f"wrote {vpath} in {round(time.time() - total)} s")


if __name__ == "__main__":
    main()
