"""The qnnrules-cli wheel (packaging/cli/): the commands alone, for any CPython >= 3.9.

`pip wheel packaging/cli` builds it (one CMake build of qnn-validate, qnn-rules and the two reader
modules; scikit-build-core from the project venv, so no network), `auditwheel repair` bundles the
Debian libraries they link, and then:
- its tag is py3-none-manylinux_2_X_x86_64 (no interpreter version, no ABI), its metadata says
  Requires-Python >=3.9 and carries the LICENSE, and it holds the commands, the modules, the rules
  and the launcher package qnnrules_cli/, and nothing of the qnnrules package (no extension);
- every ELF file in it resolves each library it needs inside the wheel or from the manylinux
  policy's list;
- for each CPython >= 3.9 of ANOTHER minor version than the one that built it (found as
  python3.X on PATH, /usr/bin/python3.X, $PYENV_ROOT/versions/3.*/bin/python3, or named in
  QNNRULES_TEST_PYTHONS, separated by ':'), pip installs it into a fresh venv of that interpreter
  (pip checks the tag and Requires-Python itself) and, from an empty directory with the system
  copies of the bundled libraries hidden (as in test_wheel.py), `qnn-validate` reads ONNX and
  .pt2 models with the wheel's own rules and modules, `python -m qnnrules_cli` and `qnn-rules`
  run, `qnn-validate-files` fails on a violating model, and `import qnnrules` fails (not in it).
With no such interpreter the run tests are skipped, saying so (CTest reports the test skipped).

CTest `cli_wheel` (tests/CMakeLists.txt) builds in the python_wheel test's build tree after it, with
its flags, so that ccache serves the objects compiled for that wheel (a wheel build compiles the
engine again: scikit-build-core's install prefix, a new temporary directory, is in its flags). QNNRULES_TEST_CLI_WHEEL names a
wheel built before (scripts/build-cli-wheel.sh, or `pip wheel packaging/cli`) to test instead."""

import os
import re
import shutil
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The qnnrules wheel test's helpers: environment cleaning, the manylinux policy, the mount
# namespace that hides the system's copies of the bundled libraries.
sys.path.insert(0, str(ROOT / "tests" / "python"))
from test_wheel import (assert_resolved_inside, clean_env, cmake_version, elf_files, isolated,  # noqa: E402
                        pip_wheel, policy_whitelist, repair, run, system_copy)

BIN = Path(sys.executable).parent
ONNX = ROOT / "tests" / "data" / "onnx"
PT2 = ROOT / "tests" / "data" / "pt2"
PKG = "qnnrules_cli"
TAG = re.compile(r"^qnnrules_cli-(?P<version>[0-9.]+)-py3-none-(?P<plat>manylinux_\d+_\d+_x86_64)"
                 r"(?:\.manylinux\w+)*\.whl$")


def other_pythons():
    """One CPython >= 3.9 per minor version other than this interpreter's, oldest first."""
    named = os.environ.get("QNNRULES_TEST_PYTHONS")
    if named:
        candidates = named.split(os.pathsep)
    else:
        minors = range(9, 20)
        pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
        candidates = [*(shutil.which(f"python3.{m}") for m in minors), *(f"/usr/bin/python3.{m}" for m in minors),
                      *sorted(str(p) for p in pyenv.glob("3.*/bin/python3"))]
    found = {}
    for exe in candidates:
        if not exe or not os.access(exe, os.X_OK):
            continue
        # venv and ensurepip: the venv gets its own pip, which installs the wheel.
        probe = run([exe, "-c", "import sys, venv, ensurepip; print(sys.implementation.name, *sys.version_info[:2])"],
                    env=clean_env())
        fields = probe.stdout.split() if probe.returncode == 0 else []
        if len(fields) != 3 or fields[0] != "cpython":
            continue
        version = (int(fields[1]), int(fields[2]))
        if version >= (3, 9) and version != sys.version_info[:2]:
            found.setdefault(version, exe)
    return [(f"{major}.{minor}", found[(major, minor)]) for major, minor in sorted(found)]


OTHER_PYTHONS = other_pythons()
NO_OTHER_PYTHON = (f"no CPython >= 3.9 other than {sys.version_info[0]}.{sys.version_info[1]} found (python3.X on "
                   "PATH, /usr/bin/python3.X, $PYENV_ROOT/versions/3.*/bin/python3, or QNNRULES_TEST_PYTHONS): "
                   "the qnnrules-cli wheel was not run on another interpreter")


@pytest.fixture(scope="module")
def cli_wheel(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli-wheel")
    start = time.monotonic()
    if os.environ.get("QNNRULES_TEST_CLI_WHEEL"):
        raw = Path(os.environ["QNNRULES_TEST_CLI_WHEEL"])
    else:
        # In the python_wheel test's build tree (QNNRULES_PIP_BUILD_DIR), with its settings, so that
        # ccache serves the objects compiled there. That tree keeps the Python extension:
        # packaging/cli turns QNNRULES_BUILD_PYTHON off, and the qnnrules wheel, which does not set
        # it, would find it off in the cache.
        shared = os.environ.get("QNNRULES_PIP_BUILD_DIR")
        raw = pip_wheel(ROOT / "packaging" / "cli", tmp / "dist", tmp / "pip-wheel.log", shared or tmp / "build",
                        *(["--config-settings=cmake.define.QNNRULES_BUILD_PYTHON=ON"] if shared else []))
    built_s = time.monotonic() - start
    whl = raw if TAG.match(raw.name) else repair(raw, tmp / "repaired")   # not repaired yet, or already
    unpacked = tmp / "unpacked"
    with zipfile.ZipFile(whl) as z:
        z.extractall(unpacked)
        names = z.namelist()
    for elf in elf_files(unpacked):   # zipfile drops the executable bits
        elf.chmod(0o755)
    print(f"\ncli wheel: {whl.name}, {whl.stat().st_size / 1e6:.1f} MB (before auditwheel repair "
          f"{raw.stat().st_size / 1e6:.1f} MB); built in {built_s:.0f} s\n"
          f"other CPythons: {OTHER_PYTHONS or 'none'}")
    return {"whl": whl, "names": names, "unpacked": unpacked, "tmp": tmp}


def dist_info_file(w, name):
    (member,) = [n for n in w["names"] if re.fullmatch(r"qnnrules_cli-[0-9.]+\.dist-info/" + name, n)]
    return zipfile.ZipFile(w["whl"]).read(member).decode()


def test_tag_is_any_cpython3_and_it_holds_the_commands_alone(cli_wheel):
    m = TAG.match(cli_wheel["whl"].name)
    assert m, f"{cli_wheel['whl'].name}: not py3-none-manylinux_2_X_x86_64"
    assert m.group("version") == cmake_version()
    wheel_meta = dist_info_file(cli_wheel, "WHEEL")
    assert f"Tag: py3-none-{m.group('plat')}" in wheel_meta and "Root-Is-Purelib: false" in wheel_meta, wheel_meta
    assert not re.search(r"Tag: cp3", wheel_meta), wheel_meta
    metadata = dist_info_file(cli_wheel, "METADATA")
    assert "Name: qnnrules-cli" in metadata and "Requires-Python: >=3.9" in metadata, metadata
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.splitlines()[0] in metadata or "License-File: LICENSE" in metadata, metadata
    assert dist_info_file(cli_wheel, "licenses/LICENSE") == license_text

    names = cli_wheel["names"]
    tops = {n.split("/")[0] for n in names}
    assert tops == {PKG, f"{PKG}.libs", f"qnnrules_cli-{cmake_version()}.dist-info"}, tops
    for member in ("__init__.py", "__main__.py", "bin/qnn-validate", "bin/qnn-rules", "libqnnrules_onnx.so",
                   "libqnnrules_pt2.so", "rules/socs.yaml"):
        assert f"{PKG}/{member}" in names, member
    # The launcher is python/qnnrules_cli.py itself; no extension module anywhere.
    assert zipfile.ZipFile(cli_wheel["whl"]).read(f"{PKG}/__init__.py") == (ROOT / "python" / "qnnrules_cli.py").read_bytes()
    assert not [n for n in names if re.search(r"\.(cpython|abi3)[^/]*\.so$", n)], names
    # Every rule file, as in the source tree.
    want_rules = sorted(str(p.relative_to(ROOT / "rules")) for p in (ROOT / "rules").rglob("*") if p.is_file())
    got_rules = sorted(n[len(f"{PKG}/rules/"):] for n in names if n.startswith(f"{PKG}/rules/") and not n.endswith("/"))
    assert got_rules == want_rules
    scripts = dist_info_file(cli_wheel, "entry_points.txt")
    for line in ("qnn-validate = qnnrules_cli:qnn_validate", "qnn-rules = qnnrules_cli:qnn_rules",
                 "qnn-validate-files = qnnrules_cli:qnn_validate_files"):
        assert line in scripts, scripts


def test_every_library_it_needs_is_inside_or_allowed(cli_wheel):
    unpacked = cli_wheel["unpacked"]
    allowed = policy_whitelist(TAG.match(cli_wheel["whl"].name).group("plat"))
    bundled = list((unpacked / f"{PKG}.libs").iterdir())
    assert any(f.name.startswith("libyaml-cpp") for f in bundled), bundled
    elves = list(elf_files(unpacked))
    assert len(elves) >= 4 + len(bundled), elves
    assert_resolved_inside(elves, unpacked, allowed)


@pytest.mark.parametrize("version,python", [pytest.param(v, exe, id=f"python{v}") for v, exe in OTHER_PYTHONS]
                         or [pytest.param(None, None, id="no-other-python", marks=pytest.mark.skip(reason=NO_OTHER_PYTHON))])
def test_installs_and_runs_on_another_cpython(cli_wheel, version, python):
    tmp = cli_wheel["tmp"] / f"python{version}"
    venv = tmp / "venv"
    made = run([python, "-m", "venv", venv], env=clean_env())   # no system site-packages
    assert made.returncode == 0, made.stdout + made.stderr
    py = venv / "bin" / "python"
    got = run([py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]).stdout.strip()
    assert got == version != "%d.%d" % sys.version_info[:2], (got, version)
    inst = run([py, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", "--disable-pip-version-check",
                cli_wheel["whl"]], env=clean_env())
    assert inst.returncode == 0, f"pip of Python {version} refused {cli_wheel['whl'].name}:\n{inst.stdout}{inst.stderr}"
    site = Path(run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"]).stdout.strip())
    pkg = site / PKG
    hidden = sorted({str(c) for f in (site / f"{PKG}.libs").iterdir() if (c := system_copy(f.name))})
    w = {"venv": venv, "hidden": hidden, "work": tmp / "elsewhere"}

    # The acceptance run: the console script, on an ONNX model, with the wheel's rules and module
    # (glibc's LD_DEBUG=files names each library as it is loaded).
    model = ONNX / "linear_16a4w_block.onnx"
    r = isolated(w, ["env", "LD_DEBUG=files", "qnn-validate", model, "--soc", "SM8650"])
    assert r.returncode == 0 and "verdict: VALID" in r.stdout, f"Python {version}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    assert f"rules from: {pkg / 'rules'}" in r.stdout, r.stdout
    assert re.search(rf"file={re.escape(str(pkg / 'libqnnrules_onnx.so'))} \[0\];\s+dynamically loaded", r.stderr), \
        r.stderr[-3000:]

    for model, code, want in [(ONNX / "no_rule.onnx", 1, "error[no-rule]: node 'hardmax'"),
                              (PT2 / "lpbq_16a4w.pt2", 0, "verdict: VALID")]:
        r = isolated(w, ["qnn-validate", model, "--soc", "SM8650"])
        assert r.returncode == code and want in r.stdout, f"{model}: exit {r.returncode}\n{r.stdout}{r.stderr}"
        assert f"rules from: {pkg / 'rules'}" in r.stdout, r.stdout

    r = isolated(w, [py, "-m", "qnnrules_cli", "--version"])
    assert r.returncode == 0 and r.stdout.strip() == f"qnn-validate {cmake_version()}", r
    r = isolated(w, [py, "-m", "qnnrules_cli", "rules", "--version"])
    assert r.returncode == 0 and r.stdout.strip() == f"qnn-rules {cmake_version()}", r
    r = isolated(w, [py, "-m", "qnnrules_cli", ONNX / "no_rule.onnx", "--soc", "SM8650"])
    assert r.returncode == 1 and "error[no-rule]" in r.stdout, r
    lint = isolated(w, ["qnn-rules", "lint"])
    assert lint.returncode == 0 and "rules OK" in lint.stdout, lint.stdout + lint.stderr
    files = isolated(w, ["qnn-validate-files", "--soc", "SM8650", ONNX / "conv_8a8w.onnx", ONNX / "no_rule.onnx"])
    assert files.returncode == 1 and "verdict: VALID" in files.stdout and "error[no-rule]" in files.stdout, files
    # The commands alone: no Python API in this wheel.
    r = isolated(w, [py, "-c", "import qnnrules"])
    assert r.returncode == 1 and "No module named 'qnnrules'" in r.stderr, r
