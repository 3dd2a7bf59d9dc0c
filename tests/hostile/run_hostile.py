#!/usr/bin/env python3
"""Runs the hostile-input table (cases.yaml): each row is one class of bad input or output
target, run through qnn-validate or qnn-rules, with the exit code and a message fragment it
must give, and checks on what was left on disk. Debian's python3 and PyYAML only.

Usage: run_hostile.py --validate QNN_VALIDATE --rules-tool QNN_RULES [--only NAME]...
"""
import argparse
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

import yaml

# Rows marked `unprivileged` (an unreadable file) prove nothing when run as root, who reads any
# file: as root (CI runs as root) their command runs without the capabilities that bypass file
# permissions (util-linux's setpriv drops them from the bounding set, so the tool never has them),
# still as uid 0, so the build tree stays reachable wherever the checkout is.
WITHOUT_FILE_CAPS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "inputs")
# A hang guard, not a speed assertion; sanitizer Debug builds run several times slower
# (tests/CMakeLists.txt sets QNNRULES_HOSTILE_TIMEOUT there).
TIMEOUT = float(os.environ.get("QNNRULES_HOSTILE_TIMEOUT", "60"))


def graph(nodes, name="generated"):
    return json.dumps({"format": "qnnrules-graph", "version": 1, "name": name, "nodes": nodes})


def relu_chain(count, stats):
    """An input and `count` relus, each output sharing its input's encoding: one long shared chain."""
    nodes = [{"name": "x", "kind": "input", "outputs": [{
        "dtype": "float32", "shape": [4], "qspec": {"dtype": "uint8", "quant_min": 0, "quant_max": 255},
        **({"stats": {"min": -1.0, "max": 1.0}} if stats else {})}]}]
    for i in range(count):
        prev = "x" if i == 0 else f"r{i - 1}"
        nodes.append({"name": f"r{i}", "kind": "call", "target": "aten.relu.default", "args": [{"ref": prev}],
                      "outputs": [{"dtype": "float32", "shape": [4], "qspec": {"shared_with": {"node": prev}}}]})
    return graph(nodes, "chain")


def generated(name):
    """Inputs too large (or too regular) to commit."""
    if name == "deep_nesting":
        return '{"format": "qnnrules-graph", "version": 1, "meta": ' + "[" * 100000 + "]" * 100000 + ', "nodes": []}'
    if name == "million_arguments":
        args = ",".join(['{"ref": "x"}'] * 1_000_000)
        return ('{"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "x", "kind": "input", "outputs": '
                '[{"dtype": "float32", "shape": [1]}]}, {"name": "c", "kind": "call", "target": "aten.cat.default", '
                '"args": [[' + args + ']], "outputs": [{"dtype": "float32", "shape": [1000000]}]}]}')
    if name == "many_duplicate_keys":
        keys = ",".join(f'"k{i}": {i}' for i in range(100_000))
        return ('{"format": "qnnrules-graph", "version": 1, "nodes": [{"name": "x", "kind": "input", "outputs": '
                '[{"dtype": "float32", "shape": [1]}]}, {"name": "c", "kind": "call", "target": "aten.relu.default", '
                '"args": [{"ref": "x"}], "kwargs": {' + keys + ', "k0": 0}}]}')
    if name == "encodings_chain":
        return relu_chain(40_000, stats=True)
    if name == "large_graph":
        return relu_chain(60_000, stats=False)
    raise SystemExit(f"unknown generated input {name}")


class Case:
    def __init__(self, row, tools, work):
        self.row = row
        self.tools = tools
        self.work = work
        self.name = row["name"]

    def materialize_input(self):
        spec = self.row.get("input", {})
        if "file" in spec:
            return os.path.join(INPUTS, spec["file"])
        if "text" in spec:
            path = os.path.join(self.work, "input" + spec.get("suffix", ".json"))
            with open(path, "w", encoding="utf-8") as f:
                f.write(spec["text"])
            return path
        if "generate" in spec:
            path = os.path.join(self.work, spec["generate"] + spec.get("suffix", ".json"))
            with open(path, "w", encoding="utf-8") as f:
                f.write(generated(spec["generate"]))
            return path
        special = spec.get("special")
        if special == "fifo":
            path = os.path.join(self.work, "fifo.json")
            os.mkfifo(path)
            return path
        if special == "directory":
            return self.work
        if special == "unreadable":
            path = os.path.join(self.work, "unreadable.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(graph([]))
            os.chmod(path, 0)
            return path
        if special:
            return special  # a device path such as /dev/zero
        return os.path.join(INPUTS, "getitem_no_outputs.json")

    def materialize_output(self):
        kind = self.row.get("output")
        out = os.path.join(self.work, "out.json")
        if kind is None or kind == "new":
            return out
        if kind == "symlink":
            target = os.path.join(self.work, "target.json")
            with open(target, "w", encoding="utf-8") as f:
                f.write("old\n")
            os.chmod(target, 0o640)
            os.symlink("target.json", out)
            return out
        if kind == "existing_0600":
            with open(out, "w", encoding="utf-8") as f:
                f.write("old\n")
            os.chmod(out, 0o600)
            return out
        if kind == "fifo":
            os.mkfifo(out)
            return out
        if kind == "directory":
            os.mkdir(out)
            return out
        return kind  # a device path such as /dev/full or /dev/null

    def as_unprivileged(self, cmd):
        """The command without root's power over file permissions, when we are root."""
        if not self.row.get("unprivileged") or os.geteuid() != 0:
            return cmd
        return WITHOUT_FILE_CAPS + cmd

    def run(self):
        inp = self.materialize_input()
        out = self.materialize_output()
        args = [a.format(input=inp, out=out, inputs=INPUTS, work=self.work) for a in self.row.get("args", ["{input}"])]
        exe = self.tools[self.row.get("tool", "validate")]
        env = dict(os.environ, QNNRULES_PATH="")
        for k, v in self.row.get("env", {}).items():
            env[k] = v.format(input=inp, inputs=INPUTS, work=self.work)
        if "signal" in self.row:
            return self.run_interrupted([exe] + args, env)
        try:
            p = subprocess.run(self.as_unprivileged([exe] + args), env=env, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "fail", f"no answer within {TIMEOUT} s"
        text = (p.stdout + p.stderr).decode("utf-8", "replace")
        want = self.row["exit"]
        if p.returncode != want:
            return "fail", f"exit {p.returncode}, expected {want}\n{text[-2000:]}"
        if "internal error" in text:
            return "fail", f"internal error\n{text[-2000:]}"
        fragment = self.row.get("message")
        if fragment and fragment not in text:
            return "fail", f"message lacks {fragment!r}\n{text[-2000:]}"
        return self.check(out)

    def run_interrupted(self, cmd, env):
        """Interrupts the run at several points; whenever it stops, no temporary file is left and
        the output is either absent or complete."""
        sig = getattr(signal, "SIG" + self.row["signal"])
        out = cmd[cmd.index("--output") + 1]
        for delay in (0.05, 0.2, 0.5, 1.0, 2.0):
            if os.path.exists(out):
                os.unlink(out)
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            timer = threading.Timer(delay, lambda: p.poll() is None and p.send_signal(sig))
            timer.start()
            p.wait(timeout=TIMEOUT)
            timer.cancel()
            left = [f for f in os.listdir(self.work) if ".tmp-" in f]
            if left:
                return "fail", f"temporary files left after SIG{self.row['signal']} at {delay} s: {left}"
            if os.path.exists(out):
                with open(out, encoding="utf-8") as f:
                    try:
                        json.load(f)
                    except ValueError:
                        return "fail", f"half-written output after SIG{self.row['signal']} at {delay} s"
        return self.check(out)

    def check(self, out):
        for check in self.row.get("check", []):
            if check == "no_temp_files":
                left = [f for f in os.listdir(self.work) if ".tmp-" in f]
                if left:
                    return "fail", f"temporary files left: {left}"
            elif check == "symlink_written_through":
                if not os.path.islink(out):
                    return "fail", "the symlink was replaced"
                target = os.path.join(self.work, "target.json")
                with open(target, encoding="utf-8") as f:
                    json.load(f)
                if stat.S_IMODE(os.stat(target).st_mode) != 0o640:
                    return "fail", "the symlink target lost its mode"
            elif check == "mode_kept":
                if stat.S_IMODE(os.stat(out).st_mode) != 0o600:
                    return "fail", f"mode {oct(stat.S_IMODE(os.stat(out).st_mode))}, expected 0o600"
            elif check == "still_device":
                if not stat.S_ISCHR(os.stat(out).st_mode):
                    return "fail", f"{out} is no longer a character device"
            elif check == "still_fifo":
                if not stat.S_ISFIFO(os.lstat(out).st_mode):
                    return "fail", "the FIFO was replaced"
            elif check == "still_directory":
                if not os.path.isdir(out):
                    return "fail", "the directory was replaced"
            elif check == "reads_back":
                p = subprocess.run([self.tools["validate"], "--warn", out], capture_output=True, timeout=TIMEOUT)
                if p.returncode != 0:
                    return "fail", "the written graph does not read back:\n" + (p.stdout + p.stderr).decode()[-2000:]
            else:
                return "fail", f"unknown check {check}"
        return "pass", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--validate", required=True)
    ap.add_argument("--rules-tool", required=True)
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    with open(os.path.join(HERE, "cases.yaml"), encoding="utf-8") as f:
        rows = yaml.safe_load(f)["cases"]
    tools = {"validate": a.validate, "rules": a.rules_tool}
    failed = 0
    for row in rows:
        if a.only and row["name"] not in a.only:
            continue
        with tempfile.TemporaryDirectory(prefix="hostile-") as work:
            start = time.monotonic()
            verdict, detail = Case(row, tools, work).run()
            os.system(f"chmod -R u+rwx {work} 2>/dev/null")
        failed += verdict == "fail"
        print(f"{verdict:5} {row['name']} ({time.monotonic() - start:.1f} s){': ' + detail if detail else ''}")
    print(f"{failed} of {len(rows)} hostile-input case(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
