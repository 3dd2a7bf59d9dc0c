#!/usr/bin/env python3
"""Cold-start CPU of qnn-validate: a 10-node graph with the rule cache off and warm, and --version.

    benchmarks/cold_start.py [--build build | --exe PATH] [--runs 30] [--graph examples/tiny_cnn_8a8w.json]

(--exe: another qnn-validate, e.g. a wheel's, `python -c "import qnnrules, os;
print(os.path.join(os.path.dirname(qnnrules.__file__), 'bin', 'qnn-validate'))"`.)

Each figure is the mean user + system CPU of --runs processes (getrusage of the child, so
the kernel's exec and page-fault work and the dynamic loader count, and other load on the
machine does not), after one unmeasured run. Rows:

  --version              exec + dynamic loading + static initialisers: the tool's floor
  tiny, cache off        QNNRULES_CACHE=0: every run parses the rule YAML
  tiny, cache warm       the compiled rule cache (a fresh directory, filled by the first run)
  tiny, cache warm, new working directory
                         the same cache, each run the first in a working directory of its own
                         (made empty for it, outside the rules): what a user's first run in a
                         new project costs once the cache holds the rules (issue 25: < 10 ms)
  empty C++ program ...  the floor of any C++ program linked against the same shared
                         libraries as qnn-validate (its DT_NEEDED list), for comparison
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cpu_ms(argv, env, runs, cwd=None):
    """Mean user+sys CPU (ms) of `runs` executions of argv, after one unmeasured run; `cwd(i)`,
    when given, is the working directory of run i."""
    total = 0.0
    for i in range(runs + 1):
        where = cwd(i) if cwd else None
        pid = os.fork()
        if pid == 0:
            try:
                if where:
                    os.chdir(where)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            sys.exit(f"cold_start: {' '.join(argv)} exited with {os.waitstatus_to_exitcode(status)}")
        if i > 0:
            total += usage.ru_utime + usage.ru_stime
    return 1000.0 * total / runs


def needed_libraries(binary):
    """The DT_NEEDED entries of an ELF file (readelf -d)."""
    out = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)


def empty_program_like(binary, tmp, libs):
    """An empty C++ program that loads `libs` (sonames) at start-up, like `binary` does."""
    src = os.path.join(tmp, "empty.cpp")
    with open(src, "w") as f:
        f.write("#include <cstdio>\nint main() { std::puts(\"\"); return 0; }\n")
    exe = os.path.join(tmp, "empty_" + str(len(libs)))
    args = ["c++", "-O2", src, "-o", exe, "-Wl,--no-as-needed"]
    args += ["-l:" + lib for lib in libs if not re.match(r"lib(c|m|stdc\+\+|gcc_s)\.so", lib)]
    subprocess.run(args, check=True)
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--exe", help="the qnn-validate to measure (default: BUILD/tools/qnn-validate/qnn-validate)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--graph", default=os.path.join(ROOT, "examples", "tiny_cnn_8a8w.json"))
    ap.add_argument("--soc", default="SM8650")
    ap.add_argument("--no-floor", action="store_true", help="skip the empty-program rows (they need a C++ compiler)")
    a = ap.parse_args()
    qv = os.path.abspath(a.exe) if a.exe else os.path.join(a.build, "tools", "qnn-validate", "qnn-validate")
    if not os.access(qv, os.X_OK):
        sys.exit(f"cold_start: {qv} is not built (scripts/build.sh)")
    a.graph = os.path.abspath(a.graph)
    env = {k: v for k, v in os.environ.items() if not k.startswith("QNNRULES_")}
    tiny = [qv, a.graph, "--soc", a.soc]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(("qnn-validate --version", cpu_ms([qv, "--version"], env, a.runs)))
        rows.append(("tiny graph, rule cache off", cpu_ms(tiny, {**env, "QNNRULES_CACHE": "0"}, a.runs)))
        rows.append(("tiny graph, rule cache warm",
                     cpu_ms(tiny, {**env, "QNNRULES_CACHE_DIR": os.path.join(tmp, "cache")}, a.runs)))

        def new_directory(i):
            d = os.path.join(tmp, "cwd", str(i))
            os.makedirs(d)
            return d

        # The same cache, filled above from this directory; every run in a directory never used.
        rows.append(("tiny graph, rule cache warm, new working directory",
                     cpu_ms(tiny, {**env, "QNNRULES_CACHE_DIR": os.path.join(tmp, "cache")}, a.runs,
                            cwd=new_directory)))
        # (Not for --exe: a wheel's libraries have auditwheel's names, found through its RPATH.)
        if not a.no_floor and not a.exe and shutil.which("c++") and shutil.which("readelf"):
            libs = needed_libraries(qv)
            rows.append((f"empty C++ program, {len(libs)} libs like qnn-validate",
                         cpu_ms([empty_program_like(qv, tmp, libs)], env, a.runs)))
            rows.append(("empty C++ program, libstdc++ only", cpu_ms([empty_program_like(qv, tmp, [])], env, a.runs)))
    print(f"cold start of {qv}, mean CPU (user+sys) of {a.runs} runs; graph {os.path.relpath(a.graph)}")
    for name, ms in rows:
        print(f"  {name:<52} {ms:7.2f} ms")


if __name__ == "__main__":
    main()
