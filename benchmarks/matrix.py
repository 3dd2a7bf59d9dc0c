#!/usr/bin/env python3
"""The compatibility matrix's cost against one validation (issue 26), side by side in one run.

    benchmarks/matrix.py [--build build] [--layers 28] [--repeat 3]

Generates a float decoder (make_decoder_graph.py --quant float), then times, alternately and
--repeat times, (a) one run: `qnn-validate G --soc SM8650 --annotate 16a8w --warn` and (b) the
matrix: `qnn-validate G --soc all --configs <8 configs> --warn --format json`, by the CPU time
(user + system, wait4) of each process, and prints the medians and their ratio.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = ["8a8w", "8a4w", "16a16w", "16a8w", "16a4w", "16a2w", "16a4w_block", "fp16a8w"]


def cpu(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{cmd[0]} exited {code}")
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--layers", type=int, default=28)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    exe = os.path.join(a.build, "tools", "qnn-validate", "qnn-validate")
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "decoder.json")
        subprocess.run([sys.executable, os.path.join(HERE, "make_decoder_graph.py"), "--layers", str(a.layers),
                        "--quant", "float", "-o", graph], check=True)
        one = [exe, graph, "--soc", "SM8650", "--annotate", "16a8w", "--warn"]
        matrix = [exe, graph, "--soc", "all", "--configs", *CONFIGS, "--warn", "--format", "json"]
        cpu(one)  # warm the rule cache
        singles, matrices = [], []
        for _ in range(a.repeat):
            singles.append(cpu(one))
            matrices.append(cpu(matrix))
        s, m = statistics.median(singles), statistics.median(matrices)
        listing = subprocess.run([exe, "--list-socs", "--format", "json"], capture_output=True, text=True).stdout
        socs = listing.count('"name"')
        print(f"decoder: {a.layers} layers; matrix: {len(CONFIGS)} configs x all SoCs ({socs} SoCs)")
        print(f"one validation   CPU s median {s:.3f}  ({', '.join(f'{x:.3f}' for x in singles)})")
        print(f"matrix           CPU s median {m:.3f}  ({', '.join(f'{x:.3f}' for x in matrices)})")
        print(f"matrix / one     {m / s:.2f}x")


if __name__ == "__main__":
    main()
