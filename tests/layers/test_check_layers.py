"""The layer check passes on the engine and fails on a planted upward include. Runs under pytest
or as a plain script (CTest engine_layers: /usr/bin/python3, standard library only)."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.normpath(os.path.join(HERE, "..", "..", "engine"))
CHECK = os.path.join(HERE, "check_layers.py")


def run(root):
    return subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True, check=False)


def test_the_engine_keeps_its_layers():
    r = run(ENGINE)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_planted_upward_include_is_named(tmp_path):
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("*.o"))
    planted = copy / "src" / "core" / "Status.cpp"
    planted.write_text('#include "qnnrules/pipeline/RunReport.h"\n' + planted.read_text())
    r = run(str(copy))
    assert r.returncode == 1
    assert f"{planted}:1: core includes qnnrules/pipeline/RunReport.h of the higher layer pipeline" in r.stdout


def test_a_folder_outside_the_order_is_named(tmp_path):
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE, copy)
    (copy / "src" / "misc").mkdir()
    (copy / "src" / "misc" / "X.cpp").write_text("int x;\n")
    r = run(str(copy))
    assert r.returncode == 1 and "folder 'misc' is not a layer" in r.stdout


if __name__ == "__main__":
    test_the_engine_keeps_its_layers()
    for test in (test_a_planted_upward_include_is_named, test_a_folder_outside_the_order_is_named):
        with tempfile.TemporaryDirectory() as d:
            test(Path(d))
    print("layer check: the engine keeps its layers; planted violations are named")
