"""The tester's data in tests/conformance/differential/: where it lives and how it is written.

- onnx/<id>.<config>.onnx: the quantized reproducers (minimized) and the agreeing sample;
- verdicts.json: the oracle's verdicts on them, one case per file x SoC, in the format of
  tests/conformance/models/verdicts.json (so models/compare.py compares them unchanged), each case
  with a "differential" entry saying what it is (role reproducer/agreement, the graph it came
  from, its spec (seed, scale, lower, skip) and, for a reproducer, the kind it reproduces);
- runs.json: one entry per run (seed): time spent, graphs drawn and discarded, oracle cases,
  agreement figures, and every disagreement kind seen before minimization with a mechanism guess.
Both files are rewritten after every graph (atomically): a run stopped at any point left usable data.
"""
import json
import os

from ..record import write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "tests", "conformance", "differential")


class Store:
    def __init__(self, out=DATA):
        self.out = out
        self.onnx = os.path.join(out, "onnx")
        self.verdicts_path = os.path.join(out, "verdicts.json")
        self.runs_path = os.path.join(out, "runs.json")
        os.makedirs(self.onnx, exist_ok=True)
        self.header, self.cases = None, {}
        if os.path.exists(self.verdicts_path):
            with open(self.verdicts_path) as f:
                d = json.load(f)
            self.header = {k: v for k, v in d.items() if k != "cases"}
            self.cases = {c["id"]: c for c in d["cases"]}
        self.runs = {"runs": []}
        if os.path.exists(self.runs_path):
            with open(self.runs_path) as f:
                self.runs = json.load(f)

    def run_for(self, seed, socs, configs, minutes):
        """The run of this seed to resume, or a new one."""
        for r in self.runs["runs"]:
            if r["seed"] == seed:
                if r["socs"] != socs or r["configs"] != configs:
                    raise SystemExit(f"run {seed} was made with socs {r['socs']}, configs {r['configs']}: "
                                     "resume it with the same, or use another --seed")
                r["minutes_asked"] = minutes
                return r
        r = {"seed": seed, "socs": socs, "configs": configs, "minutes_asked": minutes, "minutes": 0.0,
             "status": "running", "next_graph": 0,
             "graphs": {"drawn": 0, "valid": 0, "discarded": {}, "quantize_failed": 0},
             "oracle_cases": 0, "minimization": {"sessions": 0, "seconds": 0.0, "findings": 0, "failed": 0},
             "agreement": {}, "kinds": {}}
        self.runs["runs"].append(r)
        return r

    def reproducers(self):
        """{kind: reproducer id} of every recorded reproducer."""
        return {c["differential"]["kind"]: c["model"] for c in self.cases.values()
                if c.get("differential", {}).get("role") == "reproducer"}

    def samples(self):
        return sorted({c["model"] for c in self.cases.values()
                       if c.get("differential", {}).get("role") == "agreement"})

    def add(self, cases):
        for c in cases:
            self.cases[c["id"]] = c

    def save(self, header):
        self.header = header
        write(self.verdicts_path, header, [self.cases[k] for k in sorted(self.cases)])
        with open(self.runs_path + ".tmp", "w") as f:
            json.dump(self.runs, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(self.runs_path + ".tmp", self.runs_path)
