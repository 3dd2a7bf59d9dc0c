#!/usr/bin/env python3
"""Runs a command and writes the command's own peak RSS (bytes) to PEAK_FILE; exits as it did.

Usage: measure_peak.py PEAK_FILE LIMIT_MB -- COMMAND [ARGS...]   (LIMIT_MB 0: no address-space cap)

Why a separate process: Linux carries a process's peak RSS across exec (exec_mmap keeps the old
address space's high-water mark), so a tool forked straight from run_hostile.py would report
the runner's own peak -- which grows with every large input the runner generates -- instead of
its own. This helper starts small; the tool is spawned from it (posix_spawn, sharing this small
address space until exec), so the figure is the tool's plus this helper's few MB.

SIGINT and SIGTERM are ignored here and restored to their defaults in the tool: the runner
signals the whole process group, and the tool alone decides what to do with them.
"""
import os
import resource
import signal
import sys


def main():
    peak_file, limit_mb, sep, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    if sep != "--" or not cmd:
        raise SystemExit(__doc__)
    if limit_mb:
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))
    interrupts = (signal.SIGINT, signal.SIGTERM)
    for s in interrupts:
        signal.signal(s, signal.SIG_IGN)
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, setsigdef=interrupts)
    _, status, usage = os.wait4(pid, 0)
    with open(peak_file, "w", encoding="utf-8") as f:
        f.write(str(usage.ru_maxrss * 1024))
    if os.WIFSIGNALED(status):  # die the same way, so the runner sees the signal
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    sys.exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
