"""`pip install .` from the checkout: builds the wheel with scikit-build-core (the system CMake,
Ninja and Debian's C++ libraries; scikit-build-core and pybind11 from the project venv, so no
network), installs it into a throwaway directory, and imports it from another directory with
nothing of the source or build tree visible: version, typed stubs, its own rules, a validation.

Slow (it compiles the engine again, through ccache): CTest labels it `package`."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHECK = r"""
import json, os, sys
import qnnrules
site = sys.argv[1]
engine = qnnrules.Engine(backend="htp", soc="SM8650")
ok = engine.check(qnnrules.Graph.from_file(sys.argv[2]))
try:
    engine.validate(qnnrules.Graph.from_file(sys.argv[3]))
    bad = None
except qnnrules.ValidationError as e:
    bad = sorted({(d.code, d.node) for d in e.errors})
warned = sorted({(d.code, d.node) for d in engine.check(qnnrules.Graph.from_file(sys.argv[3])).warnings})
# The .pt2 and ONNX readers are modules loaded on first use; the wheel carries them.
modules = {os.path.basename(p): len(qnnrules.Graph.from_file(p)) for p in sys.argv[4:]}
print(json.dumps({
    "file": qnnrules.__file__, "version": qnnrules.__version__, "rules": str(engine.search_path[0]),
    "typed": sorted(f for f in os.listdir(os.path.dirname(qnnrules.__file__)) if f.endswith((".pyi", ".typed"))),
    "ok_errors": ok.error_count, "ok_checked": ok.nodes_checked, "bad": bad, "warned": warned, "modules": modules,
}))
"""


def cmake_version():
    return re.search(r"project\(qnnrules VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "QNNRULES_PATH", "QNNRULES_BUILTIN_RULES", "PIP_REQUIRE_VIRTUALENV")}
    # Debian's CMake and Ninja first: the cmake first on PATH may be another (pip's 4.x).
    env["PATH"] = os.pathsep.join(["/usr/bin", "/bin", env.get("PATH", "")])
    env.update(extra)
    return env


def test_pip_install_builds_a_package_that_works_from_anywhere(tmp_path):
    site = tmp_path / "site"
    build_dir = os.environ.get("QNNRULES_PIP_BUILD_DIR") or str(tmp_path / "build")
    cmd = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
           "--quiet", "--target", str(site), str(ROOT),
           f"--config-settings=build-dir={build_dir}",
           "--config-settings=cmake.build-type=RelWithDebInfo",
           # The flags of scripts/build.sh, so ccache serves the engine's objects.
           "--config-settings=cmake.define.QNNRULES_WERROR=ON",
           "--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    proc = subprocess.run(cmd, env=clean_env(CCACHE_BASEDIR=str(ROOT)), capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    pkg = site / "qnnrules"
    assert (pkg / "rules" / "socs.yaml").is_file() and (pkg / "rules" / "htp").is_dir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run([sys.executable, "-c", CHECK, str(site), str(ROOT / "examples" / "tiny_cnn_8a8w.json"),
                          str(ROOT / "examples" / "violations.json"), str(ROOT / "tests" / "data" / "pt2" / "float.pt2"),
                          str(ROOT / "tests" / "data" / "onnx" / "conv_8a8w.onnx")],
                         cwd=elsewhere, env=clean_env(PYTHONPATH=str(site)), capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(got["file"]).parent == pkg
    assert got["version"] == cmake_version()
    assert Path(got["rules"]) == pkg / "rules"   # its own rules, not the source tree's
    assert got["typed"] == ["_qnnrules.pyi", "py.typed"]
    assert got["ok_errors"] == 0 and got["ok_checked"] > 0
    assert ["symmetric", "conv_asym"] in got["bad"] and ["no-rule", "mystery"] in got["bad"]
    # 8-bit Sigmoid's 1/256 output scale is recommended, not required: a warning, not an error.
    assert ["fixed-scale", "gate"] in got["warned"] and ["fixed-scale", "gate"] not in got["bad"]
    assert got["modules"]["float.pt2"] > 0 and got["modules"]["conv_8a8w.onnx"] > 0, got["modules"]
