#!/usr/bin/env python3
"""Times qnn-validate end to end (read + validate + report) on large synthetic graphs.

    benchmarks/time_cli.py [--build build] [--blocks 2000 20000] [--repeat 3]

Prints, per graph size: file size, node count, and the best wall time of --repeat runs,
in text and JSON output modes.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--blocks", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--soc", default="SM8650")
    a = ap.parse_args()
    qv = os.path.join(a.build, "tools", "qnn-validate", "qnn-validate")
    if not os.access(qv, os.X_OK):
        sys.exit(f"time_cli: {qv} is not built (scripts/build.sh)")
    print(f"{'blocks':>7} {'MB':>6} {'nodes':>7} {'format':>6} {'best s':>7} {'MB/s':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for blocks in a.blocks:
            g = os.path.join(tmp, f"g{blocks}.json")
            subprocess.run([sys.executable, os.path.join(HERE, "make_large_graph.py"), "--blocks", str(blocks),
                            "-o", g], check=True)
            mb = os.path.getsize(g) / 1e6
            for fmt in ("text", "json"):
                best = float("inf")
                for _ in range(a.repeat):
                    t0 = time.perf_counter()
                    r = subprocess.run([qv, g, "--backend", "htp", "--soc", a.soc, "--warn", "--format", fmt],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    best = min(best, time.perf_counter() - t0)
                    if r.returncode not in (0, 1):
                        sys.exit(f"time_cli: qnn-validate exited {r.returncode} on {g}")
                print(f"{blocks:>7} {mb:>6.1f} {blocks * 6 + 2:>7} {fmt:>6} {best:>7.3f} {mb / best:>6.1f}")


if __name__ == "__main__":
    main()
