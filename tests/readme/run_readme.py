#!/usr/bin/env python3
"""Runs every command of README.md as written, from the source root, with the build's tools
first on PATH (as the README says to put them there), and checks what the README shows.

Each fenced block of README.md is one of:
- sh blocks: every command line runs (exit 0, or the exit code the README's exit-code table
  gives for it); ./scripts/demo.sh runs the qnn-validate commands it shows (its build step is
  what the build tree already is), ./scripts/test.sh and ./scripts/fuzz.sh are skipped with the
  reason printed (they take hours);
- a "$ command" block followed by "..." and output lines: the command runs and its output must
  end with those lines;
- an "error[...]" excerpt: it must appear, verbatim, in the output of the run that produces it
  (found by running the README's examples);
- the synopsis block (GRAPH, [--flags]): each concrete command of its last lines runs;
- python blocks ("# PYTHONPATH=build/python .venv/bin/python FILE"): run with the venv's
  interpreter and the build's extension; skipped, with the reason, when either is missing.

Nothing is skipped silently: every block prints what was done with it. Exit 1 on a failure.

Usage: run_readme.py --validate EXE --rules-tool EXE [--python-dir DIR] [--venv-python PY]
Debian's python3, standard library only.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def blocks(text):
    """(language, first line number, lines) of each fenced block."""
    out, lang, start, lines = [], None, 0, None
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if lines is None:
                lang, start, lines = line[3:].strip(), i + 1, []
            else:
                out.append((lang, start, lines))
                lines = None
        elif lines is not None:
            lines.append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--validate", required=True)
    ap.add_argument("--rules-tool", required=True)
    ap.add_argument("--python-dir")
    ap.add_argument("--venv-python")
    args = ap.parse_args()
    env = dict(os.environ, QNNRULES_PATH="", NO_COLOR="1")
    env["PATH"] = os.pathsep.join([os.path.dirname(os.path.abspath(args.validate)),
                                   os.path.dirname(os.path.abspath(args.rules_tool)), env.get("PATH", "")])
    failures, ran = [], 0

    def sh(command, cwd=ROOT, timeout=300, extra_env=None):
        p = subprocess.run(command, shell=True, cwd=cwd, env=dict(env, **(extra_env or {})), capture_output=True,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def expect_run(where, command, codes=(0,), cwd=ROOT):
        nonlocal ran
        rc, out, err = sh(command, cwd=cwd)
        ran += 1
        print(f"  ran: {command}  -> exit {rc}")
        if rc not in codes:
            failures.append(f"{where}: `{command}` exited {rc} (expected {codes}):\n{out[-2000:]}\n{err[-2000:]}")
        return out

    readme = open(os.path.join(ROOT, "README.md")).read()
    # The examples' outputs, where the README's excerpts must come from.
    example_runs = ["qnn-validate examples/lpbq_linear.json --soc SM8350", "qnn-validate examples/violations.json --soc SM8650",
                    "qnn-validate examples/tiny_cnn_8a8w.json --soc SM8650"]
    for lang, line, lines in blocks(readme):
        where = f"README.md:{line}"
        body = "\n".join(lines)
        print(f"{where}: {lang or 'text'} block")
        if lang == "python":
            first = lines[0] if lines else ""
            m = re.match(r"# PYTHONPATH=(\S+) (\S+) (\S+)$", first)
            if not m:
                failures.append(f"{where}: a python block without its '# PYTHONPATH=... python FILE' line")
                continue
            if not (args.python_dir and args.venv_python and os.path.exists(args.venv_python)):
                print("  skipped: the Python extension is not built or the venv is missing (scripts/setup.sh, "
                      "-DQNNRULES_BUILD_PYTHON=ON)")
                continue
            with tempfile.TemporaryDirectory() as tmp:
                script = os.path.join(tmp, m.group(3))
                with open(script, "w") as f:
                    f.write(body + "\n")
                rc, out, err = sh(f"{shlex.quote(args.venv_python)} {shlex.quote(script)}", timeout=900,
                                  extra_env={"PYTHONPATH": args.python_dir})
                ran += 1
                print(f"  ran: {first[2:]}  -> exit {rc}")
                if rc != 0:
                    failures.append(f"{where}: {m.group(3)} exited {rc}:\n{out[-2000:]}\n{err[-3000:]}")
            continue
        if lang == "sh":
            commands = [l for l in lines if l.strip() and not l.lstrip().startswith("#")]
            if any(c.startswith("qnn-validate GRAPH") for c in commands):
                # The synopsis: its concrete alternatives.
                print("  the synopsis: running its concrete commands")
                for c in ("qnn-validate --list-rules", "qnn-validate --list-rules --backend gpu", "qnn-validate --list-socs",
                          "qnn-validate --list-socs --format json", "qnn-rules lint", "qnn-rules list --backend gpu",
                          "qnn-rules explain htp.conv2d", "qnn-rules docs --check"):
                    expect_run(where, c)
                continue
            for c in commands:
                if c.startswith("./scripts/demo.sh"):
                    demo = open(os.path.join(ROOT, "scripts", "demo.sh")).read()
                    shown = re.findall(r'^\$QV (.+)$', demo, re.M)
                    if not shown:
                        failures.append(f"{where}: scripts/demo.sh runs no $QV command")
                    print(f"  ./scripts/demo.sh: its setup and build steps are what made this build tree; "
                          f"running its {len(shown)} qnn-validate commands")
                    for s in shown:
                        expect_run(where, "qnn-validate " + s)
                elif c.startswith("./scripts/test.sh") or c.startswith("./scripts/fuzz.sh"):
                    print(f"  skipped: {c} (the whole CI run / hours of fuzzing; run by CI itself)")
                elif "--html report.html" in c:
                    with tempfile.TemporaryDirectory() as tmp:
                        os.symlink(os.path.join(ROOT, "examples"), os.path.join(tmp, "examples"))
                        expect_run(where, c, cwd=tmp)
                        page = os.path.join(tmp, "report.html")
                        if not os.path.exists(page) or "<html" not in open(page).read():
                            failures.append(f"{where}: `{c}` wrote no HTML page")
                else:
                    expect_run(where, c, codes=(0, 1))
            continue
        if lines and lines[0].startswith("$ "):
            command = lines[0][2:]
            tail = lines[lines.index("...") + 1:] if "..." in lines else lines[1:]
            out = expect_run(where, command, codes=(0, 1))
            if out.rstrip("\n").splitlines()[-len(tail):] != tail:
                failures.append(f"{where}: the output of `{command}` does not end with the lines shown:\n"
                                + "\n".join(tail) + "\n--- got:\n" + out[-3000:])
            continue
        if lines and re.match(r"(error|warning)\[[a-z-]+\]", lines[0]):
            outputs = [sh(c)[1] for c in example_runs]
            ran += 1
            if not any(body in o for o in outputs):
                failures.append(f"{where}: this excerpt is in the output of none of: {example_runs}\n{body}")
            else:
                print("  found verbatim in the output of the examples")
            continue
        failures.append(f"{where}: a block this test does not know how to check ({lang or 'text'}): {lines[:2]}")

    for f in failures:
        print("FAIL:", f)
    print(f"run_readme: {ran} command(s) run, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
