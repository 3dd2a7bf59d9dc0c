#!/usr/bin/env python3
"""The HTML report (qnn-validate --html) in a real headless browser (Debian's chromium).

For an example with diagnostics and for a 30,000-node graph with scattered CPU fallbacks:
the page loads with no console message (errors, uncaught exceptions), the script draws every
section (the DOM after load has the verdict, the per-op rows, the diagnostic groups and one
partition-picture block per placement run), and a screenshot of the summary is written to
OUT_DIR (look at it: docs/README show the command). Skips (exit 77) only when chromium is not
installed, saying so.

The compatibility matrix's page (--soc all --configs all --html, docs/compatibility-matrix.md)
of the model suite's llama exported float, strict and warn: it loads with no console message,
the table has one cell per SoC and config in the JSON's order, coloured and labelled by the
cell's verdict, and every cell's link resolves to an element of the DOM chromium built (a shared
cell's to the section of the SoC holding its diagnostics).

Usage: check_html.py QNN_VALIDATE OUT_DIR. Debian's python3, standard library only.
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP = 77


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(exe, page, *args):
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000", *args, "file://" + page]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    return p.returncode, p.stdout, p.stderr


def screenshot(chrome, page, name, out_dir, size, failures):
    """OUT_DIR/NAME.png of the page at SIZE ("W,H"); a failure when none is written."""
    shot = os.path.join(out_dir, name + ".png")
    rc, _, log = chromium(chrome, page, "--window-size=" + size, "--screenshot=" + shot)
    if rc != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        failures.append(f"{name}: no screenshot: {log[-500:]}")
    return shot


def large_graph(path, blocks=5000):
    """benchmarks/make_large_graph.py's blocks (30,000 nodes), every 97th relu an op without a rule."""
    subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "make_large_graph.py"), "--blocks", str(blocks),
                    "-o", path], check=True)
    with open(path) as f:
        g = json.load(f)
    for n in g["nodes"]:
        if n.get("target") == "aten.relu.default" and int(n["name"][4:]) % 97 == 0:
            n["target"] = "aten.mystery_op.default"
    with open(path, "w") as f:
        json.dump(g, f)


class MatrixDom(html.parser.HTMLParser):
    """The matrix table's cells (class, link, label) and every id of the DOM."""

    def __init__(self):
        super().__init__()
        self.ids, self.cells, self.in_table, self.in_label = set(), [], False, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table" and a.get("id") == "matrix":
            self.in_table = True
        elif self.in_table and tag == "td" and "cell" in a.get("class", "").split():
            self.cells.append({"class": a["class"].split(), "href": None, "label": ""})
        elif self.in_table and tag == "a" and self.cells:
            self.cells[-1]["href"] = a.get("href")
        elif self.in_table and tag == "b" and self.cells:
            self.in_label = True

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_table = False
        if tag == "b":
            self.in_label = False

    def handle_data(self, data):
        if self.in_label:
            self.cells[-1]["label"] += data


def label(cell):
    """The verdict a cell shows."""
    return {"valid": "VALID", "valid-with-cpu-fallback": f"CPU {cell['cpu_percent']}%", "invalid": "INVALID",
            "session-failure": "SESSION FAILS"}[cell["verdict"]]


def check_matrix(exe, chrome, out_dir, env):
    failures = []
    graph = os.path.join(ROOT, "tests", "data", "matrix", "llama.float.json")
    for name, extra in (("matrix", []), ("matrix-warn", ["--warn"])):
        page = os.path.abspath(os.path.join(out_dir, name + ".html"))
        p = subprocess.run([exe, graph, "--soc", "all", "--configs", "all", *extra, "--format", "json", "--html", page],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        if p.returncode not in (0, 1) or not os.path.exists(page):
            failures.append(f"{name}: qnn-validate exit {p.returncode}: {p.stderr[:500]}")
            continue
        doc = json.loads(p.stdout)
        rc, dom, log = chromium(chrome, page, "--dump-dom")
        if rc != 0:
            failures.append(f"{name}: chromium exit {rc}: {log[-800:]}")
        failures.extend(f"{name}: console: {line}" for line in log.splitlines() if ":CONSOLE" in line)
        parsed = MatrixDom()
        parsed.feed(dom)
        if len(parsed.cells) != len(doc["cells"]):
            failures.append(f"{name}: {len(parsed.cells)} cells drawn for {len(doc['cells'])}")
        for shown, cell in zip(parsed.cells, doc["cells"]):
            where = f"{name}: {cell['soc']}/{cell['config']}"
            if cell["verdict"] not in shown["class"] or shown["label"] != label(cell):
                failures.append(f"{where}: drawn {shown['class']} {shown['label']!r}, verdict {cell['verdict']}")
            href = shown["href"] or ""
            if not href.startswith("#") or href[1:] not in parsed.ids:
                failures.append(f"{where}: link {href!r} resolves to no element")
            holder = cell.get("diagnostics_of", cell["soc"])
            if holder not in href:
                failures.append(f"{where}: links to {href!r}, not to {holder}'s section")
        shot = screenshot(chrome, page, name, out_dir, "1400,1000", failures)
        print(f"{name}: {len(doc['socs'])} SoCs x {len(doc['configs'])} configs, {doc['validations']} validations, "
              f"{len(parsed.cells)} cells drawn and linked, page {os.path.getsize(page)} bytes, screenshot {shot}")
    return failures


def main():
    exe, out_dir = sys.argv[1], sys.argv[2]
    chrome = browser()
    if not chrome:
        print("SKIP: chromium is not installed (apt-get install chromium, or scripts/setup.sh)")
        return SKIP
    os.makedirs(out_dir, exist_ok=True)
    env = dict(os.environ, QNNRULES_PATH="")
    failures = []
    large = os.path.join(out_dir, "large.json")
    large_graph(large)
    cases = [("violations", [os.path.join(ROOT, "examples", "violations.json"), "--soc", "SM8650", "--warn"]),
             ("large", [large, "--soc", "SM8650"])]
    for name, args in cases:
        page = os.path.abspath(os.path.join(out_dir, name + ".html"))
        jsonp = subprocess.run([exe, *args, "--format", "json", "--html", page], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=300)
        if jsonp.returncode not in (0, 1) or not os.path.exists(page):
            failures.append(f"{name}: qnn-validate exit {jsonp.returncode}: {jsonp.stderr[:500]}")
            continue
        report = json.loads(jsonp.stdout)
        rc, dom, log = chromium(chrome, page, "--dump-dom")
        console = [line for line in log.splitlines() if ":CONSOLE" in line]
        if rc != 0:
            failures.append(f"{name}: chromium exit {rc}: {log[-800:]}")
        for line in console:
            failures.append(f"{name}: console: {line}")
        if 'data-rendered="ok"' not in dom:
            failures.append(f"{name}: the page's script did not finish drawing")
        verdict = re.search(r'id="verdict"[^>]*>([^<]*)<', dom)
        if not verdict or verdict.group(1) != report["verdict"]["text"]:
            failures.append(f"{name}: verdict shown {verdict and verdict.group(1)!r}, report says "
                            f"{report['verdict']['text']!r}")
        blocks = len(re.findall(r"<rect ", dom))
        if blocks != len(report["placement_runs"]):
            failures.append(f"{name}: {blocks} picture blocks for {len(report['placement_runs'])} placement runs")
        codes = {d["code"] for d in report["diagnostics"]}
        groups = set(re.findall(r'data-code="([a-z-]+)"', dom))
        if groups != codes:
            failures.append(f"{name}: diagnostic groups {sorted(groups)}, report codes {sorted(codes)}")
        for op in report["ops"]:
            if f">{op['op']}</td>" not in dom:
                failures.append(f"{name}: op {op['op']} has no row")
        shot = screenshot(chrome, page, name, out_dir, "1280,900", failures)
        print(f"{name}: {report['verdict']['text']}, {len(report['diagnostics'])} diagnostics, "
              f"{len(report['placement_runs'])} runs, page {os.path.getsize(page)} bytes, screenshot {shot}")
    failures.extend(check_matrix(exe, chrome, out_dir, env))
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
