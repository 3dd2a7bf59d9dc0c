#!/usr/bin/env python3
"""Runs the scaling series: qnn-validate on generated graphs of growing size, per shape.

    benchmarks/scaling.py [--build build] [--sizes 10000 100000 1000000] [--shapes ...]
                          [--qnn-validate PATH] [--workdir DIR] [--timeout 600]

For each shape and size it generates the graph (make_stress_graph.py, make_decoder_graph.py)
into --workdir (default: a temporary directory, so big files never land in the checkout),
runs `qnn-validate FILE --soc SOC --format text` (CPU from wait4, peak RSS from /usr/bin/time), and the bare
simdjson parse of the same file (build/benchmarks/parse_floor), and prints:

  cpu s      user + system CPU of qnn-validate
  us/node    CPU per node
  x10k       CPU per node relative to the smallest size of the same shape (1.0 = linear)
  rss MB     peak resident set size of qnn-validate
  x parse    CPU relative to the simdjson parse of the same file

--qnn-validate runs another binary on the same files (e.g. a build of main, for before/after).
--baseline PATH runs a second binary side by side, interleaved with the first and the floor on
every repeat, and adds its CPU and `x base` (this CPU over the baseline's). With --repeat N each
figure is the minimum of N interleaved runs (the least-disturbed run of a noisy machine).
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NODES_PER_DECODER_LAYER = 76  # make_decoder_graph.py: layers * 76 + 16 nodes

# name -> (generator arguments for a graph of about n nodes, SoC)
SHAPES = {
    "decoder": (lambda n: ["make_decoder_graph.py", "--quant", "per-tensor", "--layers", layers(n)], "SM8650"),
    # 8a8w specs on every port but no scales: the annotations of a graph before calibration.
    "decoder-annotated": (lambda n: ["make_decoder_graph.py", "--quant", "annotated", "--layers", layers(n)],
                          "SM8650"),
    "decoder-per-channel": (lambda n: ["make_decoder_graph.py", "--quant", "per-channel", "--layers", layers(n)],
                            "SM8650"),
    "decoder-block-wise": (lambda n: ["make_decoder_graph.py", "--quant", "block-wise", "--layers", layers(n)],
                           "SM8650"),
    "decoder-16a16w": (lambda n: ["make_decoder_graph.py", "--quant", "16a16w", "--layers", layers(n)], "SM8650"),
    "decoder-16a16w-gated": (lambda n: ["make_decoder_graph.py", "--quant", "16a16w", "--layers", layers(n)],
                             "SM8450"),
    # make_large_graph.py: conv blocks with per-channel weight lists, 6 nodes per block (issue 13's
    # "array-heavy" file: 365 MB at 1M nodes).
    "array-heavy": (lambda n: ["make_large_graph.py", "--blocks", str(max(1, n // 6))], "SM8650"),
    "chain": (lambda n: ["make_stress_graph.py", "--shape", "chain", "--nodes", str(n)], "SM8650"),
    "invalid": (lambda n: ["make_stress_graph.py", "--shape", "invalid", "--nodes", str(n)], "SM8650"),
    "alternating": (lambda n: ["make_stress_graph.py", "--shape", "alternating", "--nodes", str(n)], "SM8650"),
    "fan-in": (lambda n: ["make_stress_graph.py", "--shape", "fan-in", "--nodes", str(n)], "SM8650"),
    "fan-out": (lambda n: ["make_stress_graph.py", "--shape", "fan-out", "--nodes", str(n)], "SM8650"),
}


def layers(n):
    return str(max(1, n // NODES_PER_DECODER_LAYER))


def timed(cmd, timeout):
    """(cpu seconds, peak RSS MB, exit code) of cmd; None on timeout. The CPU is the rusage of
    wait4 (microseconds, where /usr/bin/time prints 10 ms steps that made the 10k rows coarse);
    the peak RSS is /usr/bin/time's: a process forked from this one starts with this
    interpreter's pages counted in its high-water mark, a grandchild forked by time does not."""
    with tempfile.NamedTemporaryFile(mode="r") as rss:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
                kb = rss.read().strip().splitlines()
                return usage.ru_utime + usage.ru_stime, float(kb[-1]) / 1024 if kb else float("nan"), p.returncode
            if time.monotonic() > deadline:
                os.killpg(p.pid, signal.SIGKILL)  # time and the command it runs
                os.wait4(p.pid, 0)
                p.returncode = -9
                return None
            time.sleep(0.002)


def count_nodes(path):
    """Nodes in a generated graph file, read in pieces (this process stays small: see timed)."""
    n, tail = 0, b""
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            data = tail + chunk
            n += data.count(b'"kind":')
            tail = data[-6:]
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--qnn-validate", help="binary to time (default: BUILD/tools/qnn-validate/qnn-validate)")
    ap.add_argument("--parse-floor", help="default: BUILD/benchmarks/parse_floor")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000, 1000000])
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    ap.add_argument("--workdir", help="where generated graphs go (kept); default a temporary directory")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--baseline", help="a second qnn-validate timed side by side (e.g. a build of an older commit)")
    ap.add_argument("--repeat", type=int, default=1, help="interleaved runs per figure; the minimum is shown")
    ap.add_argument("--extra", nargs=argparse.REMAINDER, default=[],
                    help="more qnn-validate arguments, e.g. --extra --format json")
    a = ap.parse_args()
    qv = a.qnn_validate or os.path.join(a.build, "tools", "qnn-validate", "qnn-validate")
    floor = a.parse_floor or os.path.join(a.build, "benchmarks", "parse_floor")
    for exe in (qv, floor) + ((a.baseline,) if a.baseline else ()):
        if not os.access(exe, os.X_OK):
            sys.exit(f"scaling: {exe} is not built (scripts/build.sh)")
    tmp = None if a.workdir else tempfile.TemporaryDirectory()
    work = a.workdir or tmp.name
    os.makedirs(work, exist_ok=True)
    print(f"{'shape':<22} {'nodes':>8} {'MB':>7} {'cpu s':>8} {'us/node':>8} {'x10k':>5} {'rss MB':>7} "
          f"{'x parse':>7} {'rc':>3}" + (f" {'base s':>8} {'x base':>6}" if a.baseline else ""))
    warmed = False
    for shape in a.shapes:
        gen, soc = SHAPES[shape]
        base = None
        for n in a.sizes:
            args = gen(n)
            # Named by what it holds, so shapes that differ only by SoC share one file.
            path = os.path.join(work, "_".join(x.lstrip("-") for x in args[1:]) + f"_{n}.json")
            if not os.path.exists(path):
                subprocess.run([sys.executable, os.path.join(HERE, args[0])] + args[1:] + ["-o", path], check=True)
            nodes = count_nodes(path)
            mb = os.path.getsize(path) / 1e6
            if not warmed:  # the first run of a working directory fills the rule cache: not measured
                for exe in (qv,) + ((a.baseline,) if a.baseline else ()):
                    timed([exe, path, "--soc", soc] + a.extra, a.timeout)
                warmed = True
            runs, parses, bases = [], [], []
            for _ in range(max(1, a.repeat)):
                runs.append(timed([qv, path, "--soc", soc] + a.extra, a.timeout))
                parses.append(timed([floor, path], a.timeout))
                if a.baseline:
                    bases.append(timed([a.baseline, path, "--soc", soc] + a.extra, a.timeout))
            if any(r is None for r in runs + bases):
                print(f"{shape:<22} {nodes:>8} {mb:>7.1f} {'> ' + str(int(a.timeout)):>8}   (timed out)", flush=True)
                continue
            cpu, rss, rc = min(runs)
            parse = min(p[0] for p in parses if p)
            per_node = cpu / nodes * 1e6
            base = base or per_node
            ratio = cpu / parse if parse > 0 else float("nan")
            extra = ""
            if bases:
                bcpu = min(bases)[0]
                extra = f" {bcpu:>8.2f} {cpu / bcpu:>6.2f}"
            print(f"{shape:<22} {nodes:>8} {mb:>7.1f} {cpu:>8.2f} {per_node:>8.2f} {per_node / base:>5.2f} "
                  f"{rss:>7.0f} {ratio:>7.2f} {rc:>3}" + extra, flush=True)
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
